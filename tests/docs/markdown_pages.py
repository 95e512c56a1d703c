"""The Markdown pages of a tree and their lines, told apart as prose or fenced code, as the docs
checkers (check_docs.py, run_doc_commands.py) both read them.

A fenced block opens with three or more backticks or tildes (indented at most three spaces),
with an optional info string after them, and closes with a fence of the same character at least
as long that carries no info string; an unclosed block runs to the end of the page.
"""

import os
import re

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*(.*?)\s*$")


def doc_pages(root):
    """README.md and every .md page under docs/, relative to `root`, in a stable order."""
    pages = []
    if os.path.isfile(os.path.join(root, "README.md")):
        pages.append("README.md")
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, "docs")):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".md"):
                pages.append(os.path.relpath(os.path.join(dirpath, name), root))
    return pages


class _Block:
    def __init__(self, info):
        self.info = info


def _lines(text):
    """(line number, line, block): block is None outside fenced code, else the block the line is
    in; the fence lines themselves are left out."""
    fence, block = None, None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not m.group(2):
                fence, block = None, None
                continue
            yield number, line, block
        elif m:
            fence, block = m.group(1), _Block(m.group(2))
        else:
            yield number, line, None


def prose_lines(text):
    """(line number, line) for every line outside fenced code blocks."""
    for number, line, block in _lines(text):
        if block is None:
            yield number, line


def fenced_blocks(text):
    """[(info string, [(line number, line)])] for every fenced code block that holds a line."""
    blocks = []
    for number, line, block in _lines(text):
        if block is None:
            continue
        if not blocks or blocks[-1][0] is not block:
            blocks.append((block, []))
        blocks[-1][1].append((number, line))
    return [(block.info, lines) for block, lines in blocks]
