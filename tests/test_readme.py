"""The README stays a user guide (short), and no relative link in it or in docs/ is broken."""
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_README_LINES = 300

# [text](target) and ![alt](target); the target may be followed by a "title".
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files():
    return [README] + sorted((ROOT / "docs").glob("*.md"))


def prose_lines(text):
    """The lines outside fenced and indented code blocks, and with inline code removed."""
    in_fence = False
    previous_blank = True
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            previous_blank = False
            continue
        if in_fence:
            continue
        # An indented code block starts after a blank line (list continuations are
        # indented by at most three spaces in these files, code by four).
        if line.startswith("    ") and previous_blank:
            continue
        previous_blank = not line.strip()
        yield re.sub(r"`[^`]*`", "", line)


def relative_links(path):
    """(line text, target) for each link in the file that is not a URL or a bare #anchor."""
    for line in prose_lines(path.read_text(encoding="utf-8")):
        for match in LINK.finditer(line):
            target = match.group(1)
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):  # http:, https:, mailto: ...
                continue
            if target.startswith("#"):
                continue
            yield line.strip(), target


def broken_links(path, root=ROOT):
    broken = []
    for line, target in relative_links(path):
        file_part = unquote(target.split("#", 1)[0].split("?", 1)[0])
        if not (path.parent / file_part).exists():
            broken.append(f"{path.relative_to(root)}: {target}  (in: {line})")
    return broken


def test_readme_is_short():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, (
        f"README.md has {lines} lines (at most {MAX_README_LINES}): move reference material "
        "to a page under docs/ and link it")


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    assert broken_links(path) == []


def test_readme_and_docs_have_relative_links():
    # Not vacuous: the README links its docs pages, and docs/history.md its chart.
    assert len(list(relative_links(README))) >= 8
    assert "../generated-reports/changes.png" in [t for _, t in relative_links(ROOT / "docs" / "history.md")]


def test_readme_links_every_docs_page():
    linked = {(README.parent / t.split("#", 1)[0]).resolve() for _, t in relative_links(README)}
    missing = [p.name for p in sorted((ROOT / "docs").glob("*.md")) if p.resolve() not in linked]
    assert missing == [], f"docs pages the README does not link: {missing}"


def test_link_checker_finds_links_and_broken_ones(tmp_path):
    # The checker itself: it sees links and images, skips URLs, anchors and code, and
    # resolves a link relative to the file that holds it.
    (tmp_path / "docs").mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "c.png").write_bytes(b"")
    page = tmp_path / "docs" / "p.md"
    page.write_text(
        "See [ok](../results/c.png#x) and ![img](../results/c.png) and [web](https://e.org/a)\n"
        "and [anchor](#top), `[code](nope.md)`, [bad](results/c.png) [gone](missing.md \"t\").\n"
        "\n    [indented code](nope2.md)\n\n```\n[fenced](nope3.md)\n```\n",
        encoding="utf-8")
    targets = [t for _, t in relative_links(page)]
    broken = broken_links(page, root=tmp_path)
    assert targets == ["../results/c.png#x", "../results/c.png", "results/c.png", "missing.md"]
    assert [b.split(": ", 1)[1].split("  ")[0] for b in broken] == ["results/c.png", "missing.md"]
