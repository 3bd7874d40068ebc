"""What every report page of the site gets (pages.py writes them): a contents list with an
anchor on each heading of a long page, links to the graphs of the benchmarks it names, and no
link a visitor cannot follow (a repository path links to the repository file only where
MXBENCH_REPOSITORY_URL names the repository, else it is plain words).

    MXBENCH_REPOSITORY_URL=https://github.com/<owner>/<repo>/blob/main python -m mxbench publish
"""
import html
import json
import os
import re

REPOSITORY_URL_VARIABLE = "MXBENCH_REPOSITORY_URL"
# A page with at least this many headings gets a contents list.
CONTENTS_AT = 4
# The site's own files a report page may link to; any other relative address is a path of the
# repository (docs/*.md, results/...), which the published site does not hold.
SITE_FILES = ("index.html", "models.html", "changes.html", "coverage.html", "cliffs.html",
              "baselines.html", "baselines.csv")
HEADING = re.compile(r"<h([23])>(.*?)</h\1>", re.S)
LINK = re.compile(r'<a href="([^"]*)">(.*?)</a>', re.S)
# A repository path named in a page's text: docs/x.md, generated-reports/X.md.
REPOSITORY_PATH = re.compile(r'(?<![\w/."=>-])((?:docs|generated-reports)/[\w.-]+\.md)\b')


def repository_url():
    """The configured repository file address prefix (no trailing /), or None."""
    url = os.environ.get(REPOSITORY_URL_VARIABLE, "").strip().rstrip("/")
    return url if re.match(r"^https?://[^\s\"<>]+$", url) else None


def graph_link(benchmark, text=None, code=False):
    """A link to one benchmark's graph page of the site."""
    text = html.escape(text or benchmark)
    return '<a href="index.html#%s">%s</a>' % (html.escape(benchmark, quote=True),
                                              "<code>%s</code>" % text if code else text)


def _slug(text, taken):
    base = re.sub(r"[^a-z0-9]+", "-", html.unescape(re.sub(r"<[^>]+>", "", text)).lower())
    base = base.strip("-") or "section"
    slug, n = base, 2
    while slug in taken:
        slug, n = "%s-%d" % (base, n), n + 1
    taken.add(slug)
    return slug


def add_contents(body):
    """The body with an id on each h2/h3 and, where there are CONTENTS_AT of them or more, a
    contents list of links to them at its top."""
    taken, entries = set(), []

    def anchor(found):
        level, text = found.group(1), found.group(2)
        slug = _slug(text, taken)
        entries.append((level, slug, re.sub(r"<(?!/?code)[^>]+>", "", text)))
        return '<h%s id="%s">%s</h%s>' % (level, slug, text, level)

    body = HEADING.sub(anchor, body)
    if len(entries) < CONTENTS_AT:
        return body
    items = "".join('<li class="level-%s"><a href="#%s">%s</a></li>' % (level, slug, text)
                    for level, slug, text in entries)
    return '<div class="contents"><strong>Contents</strong><ul>%s</ul></div>\n%s' % (items, body)


def _is_repository_path(url):
    path = url.split("#")[0].split("?")[0]
    return bool(path) and not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", url) and \
        os.path.basename(path) not in SITE_FILES


def repository_links(body, url=None):
    """Links to repository paths (../docs/x.md) go to the repository file under `url`, or
    become their text; a repository path named in the text links there where `url` is set."""
    def link(found):
        address, text = html.unescape(found.group(1)), found.group(2)
        if not _is_repository_path(address):
            return found.group(0)
        if url is None:
            return text
        path = os.path.normpath(address).lstrip("./").replace(os.sep, "/")
        return '<a href="%s/%s">%s</a>' % (html.escape(url, quote=True),
                                          html.escape(path, quote=True), text)

    body = LINK.sub(link, body)
    if url is not None:
        parts = re.split(r"(<a [^>]*>.*?</a>|<[^>]+>)", body, flags=re.S)
        body = "".join(part if part.startswith("<") else REPOSITORY_PATH.sub(
            lambda f: '<a href="%s/%s">%s</a>' % (html.escape(url, quote=True), f.group(1),
                                                 f.group(1)), part) for part in parts)
    return body


def site_benchmarks(html_dir):
    """The benchmark names of the published site in html_dir (index.json), or an empty set."""
    path = os.path.join(html_dir, "index.json")
    if not os.path.isfile(path):
        return set()
    with open(path, encoding="utf-8") as fh:
        return set(json.load(fh).get("benchmarks", {}))


def entry_graph(name, benchmarks, modules=("bench_operators",)):
    """The graph (benchmark name) of a catalogue entry in the first of `modules` that has it."""
    for module in modules:
        benchmark = "%s.%s.time_forward" % (module, name)
        if benchmark in benchmarks:
            return benchmark
    return None


ENTRY_NAME = re.compile(r"(?<![\w.<>/-])([A-Za-z_][A-Za-z0-9_]*)(?![\w.(-])")
ROW = re.compile(r"<tr>(?:<td[^>]*>.*?</td>)+</tr>", re.S)
CELL = re.compile(r"(<td[^>]*>)(.*?)(</td>)", re.S)


def link_entries_in_cells(body, benchmarks, column, modules=("bench_operators",)):
    """Each catalogue entry named in table column `column` (0-based) links to its graph."""
    def row(found):
        cells = iter(range(1000))

        def cell(c):
            if next(cells) != column or "<a " in c.group(2):
                return c.group(0)
            linked = ENTRY_NAME.sub(lambda f: _entry_link(f.group(1), benchmarks, modules),
                                    c.group(2))
            return c.group(1) + linked + c.group(3)

        return CELL.sub(cell, found.group(0))

    return ROW.sub(row, body)


def _entry_link(name, benchmarks, modules):
    graph = entry_graph(name, benchmarks, modules)
    return graph_link(graph, name) if graph else name
