"""The command lines of a Markdown file's code blocks (for tests/test_readme_commands.py).

A code block is a fenced block (```sh, ```bash, ```shell, ```console or no language) or an
indented block (four spaces, after a blank line). In a block:

- a line may start with a `$ ` prompt, which is not part of the command;
- a line that ends with `\\` continues on the next line;
- `#` (outside quotes, at the start or after a blank) starts a comment; a comment that
  starts with `-> ` quotes the command's output (`resolve ... cpu-openblas   # -> mxnet-native==...`);
- blank lines and comment-only lines are not commands.

Every other line is a command as a reader would type it: `Command.text`, the key the test's
table uses. Fenced blocks in another language are returned by `other_fences()` so that a new
kind of block cannot be skipped without anyone noticing.
"""
import re
from collections import namedtuple

SHELL_LANGUAGES = ("", "sh", "bash", "shell", "console")
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)")

Command = namedtuple("Command", "line text comment output")
Command.__doc__ = """line: 1-based line of the README where the command starts; text: the
command (prompt, continuations and comment removed); comment: the comment after it or "";
output: the output the comment quotes (`# -> X`: "X") or None."""


def _blocks(text):
    """(language or None for an indented block, [(line number, line)]) for each code block."""
    lines = text.splitlines()
    blocks = []
    i = 0
    previous_blank = True
    while i < len(lines):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            indent, marker, language = fence.groups()
            body = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(marker):
                body.append((i + 1, lines[i][len(indent):] if lines[i].startswith(indent)
                             else lines[i].lstrip()))
                i += 1
            blocks.append((language.lower(), body))
            i += 1
            previous_blank = False
            continue
        if line.startswith("    ") and line.strip() and previous_blank:
            body = []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append((i + 1, lines[i][4:]))
                i += 1
            while body and not body[-1][1].strip():
                body.pop()
            blocks.append((None, body))
            previous_blank = False
            continue
        previous_blank = not line.strip()
        i += 1
    return blocks


def split_comment(line):
    """(command, comment): the comment starts at the first `#` outside quotes that begins
    the line or follows a blank."""
    quote = None
    escaped = False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def commands_in_block(body):
    """The commands of one block's [(line number, line)]."""
    out = []
    pending = None  # (first line number, text so far) of a command continued with `\`
    for number, raw in body:
        line = raw.strip()
        if pending is None:
            if not line or line.startswith("#"):
                continue
            if line.startswith("$ "):
                line = line[2:].lstrip()
            start, text = number, line
        else:
            start, text = pending[0], pending[1] + " " + line
        if text.endswith("\\"):
            pending = (start, text[:-1].rstrip())
            continue
        pending = None
        command, comment = split_comment(text)
        output = comment[3:].strip() if comment.startswith("-> ") else None
        out.append(Command(start, command, comment, output))
    if pending is not None:
        out.append(Command(pending[0], pending[1], "", None))
    return out


def readme_commands(text):
    """Every command of every shell or indented code block, in the order of the file."""
    out = []
    for language, body in _blocks(text):
        if language is None or language in SHELL_LANGUAGES:
            out += commands_in_block(body)
    return out


def other_fences(text):
    """(first line, language) of the fenced blocks that are not shell blocks."""
    return [(body[0][0] - 1 if body else 0, language) for language, body in _blocks(text)
            if language is not None and language not in SHELL_LANGUAGES]
