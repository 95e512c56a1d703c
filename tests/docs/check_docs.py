#!/usr/bin/env python3
"""Fails on a broken relative link in README.md or docs/, or on a code citation of a docs section
that does not exist.

Links: every [text](path) and [text](path#anchor) outside code in README.md and docs/**/*.md
must name an existing file or directory inside the repository, and an anchor must be the
GitHub-style slug of a heading of the target page. Citations: "docs/NAME.md §N" (or
"section N", for C headers that stay ASCII) in the source trees must name an existing page with a
heading that starts "§N "; a bare citation of the old DESIGN file is a problem too.

  check_docs.py [--root DIR]                 check a tree (default: this repository)
  check_docs.py --root DIR --expect FILE     pass only when the problems are exactly FILE's lines
  check_docs.py --self-test                  prove on generated trees that each problem is caught
"""

import argparse
import os
import re
import sys
import tempfile
import unicodedata
import urllib.parse

from markdown_pages import doc_pages, prose_lines

CODE_DIRS = ("framework", "tools", "sdk", "plugins", "tests", "cmake", "scripts", "fuzz",
             "examples")
CODE_FILES = ("CMakeLists.txt",)
# The checker and its fixtures hold broken links and citations on purpose.
SKIPPED_DIRS = (os.path.join("tests", "docs"),)
OLD_DESIGN = "DESIGN" + ".md"  # spelled apart so this file does not cite it

CITATION = re.compile(r"(?<![\w/.-])(docs/[\w.-]+\.md)(?:\s*(?:§\s*|section\s+)(\d+(?:\.\d+)*))?")
BARE_OLD = re.compile(r"(?<![\w/])" + re.escape(OLD_DESIGN))
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//")


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, OSError):
        return None


def slug(heading):
    """GitHub's anchor for a heading: its text, lower-cased, punctuation dropped, spaces to '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)  # tags go
    text = text.lower()
    kept = [c for c in text
            if c in " -" or unicodedata.category(c)[0] in "LMN" or unicodedata.category(c) == "Pc"]
    return "".join(kept).replace(" ", "-")


def page_anchors(text):
    anchors, seen = set(), {}
    for _, line in prose_lines(text):
        anchors.update(HTML_ANCHOR.findall(line))
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        anchors.add(base if n == 0 else f"{base}-{n}")
    return anchors


def section_numbers(text):
    numbers = set()
    for _, line in prose_lines(text):
        m = HEADING.match(line)
        if m:
            s = re.match(r"§(\d+(?:\.\d+)*)\s", m.group(2) + " ")
            if s:
                numbers.add(s.group(1))
    return numbers


def check_links(root):
    problems = []
    real_root = os.path.realpath(root)
    for page in doc_pages(root):
        text = read_text(os.path.join(root, page)) or ""
        page_dir = os.path.dirname(os.path.join(root, page))
        for number, line in prose_lines(text):
            line = INLINE_CODE.sub("", line)
            targets = LINK.findall(line)
            ref = REFERENCE.match(line)
            if ref:
                targets.append(ref.group(1))
            for target in targets:
                if not target or SCHEME.match(target):
                    continue
                path, _, anchor = target.partition("#")
                path = urllib.parse.unquote(path)
                where = f"{page}:{number}"
                resolved = os.path.join(root, page) if not path else os.path.join(page_dir, path)
                inside = os.path.realpath(resolved)
                if os.path.commonpath([real_root, inside]) != real_root:
                    problems.append(f"{where}: broken link {target}: outside the repository")
                    continue
                if not os.path.exists(resolved):
                    problems.append(f"{where}: broken link {target}: no such file")
                    continue
                if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
                    if anchor not in page_anchors(read_text(resolved) or ""):
                        problems.append(f"{where}: broken link {target}: no heading #{anchor}")
    return problems


def code_files(root):
    for name in CODE_FILES:
        if os.path.isfile(os.path.join(root, name)):
            yield name
    skipped = {os.path.normpath(d) for d in SKIPPED_DIRS}
    for top in CODE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            rel_dir = os.path.relpath(dirpath, root)
            dirnames[:] = sorted(d for d in dirnames
                                 if os.path.normpath(os.path.join(rel_dir, d)) not in skipped)
            for name in sorted(filenames):
                yield os.path.join(rel_dir, name)


def check_citations(root):
    problems = []
    sections = {}
    pages = doc_pages(root)
    for rel in list(code_files(root)) + pages:
        text = read_text(os.path.join(root, rel))
        if text is None:
            continue  # binary (fuzz corpora, pictures)
        # In the docs, code blocks and spans are examples, and link targets are checked as links.
        lines = ((n, LINK_TARGET.sub("]", INLINE_CODE.sub("", l))) for n, l in prose_lines(text)) \
            if rel in pages else enumerate(text.splitlines(), 1)
        for number, line in lines:
            where = f"{rel}:{number}"
            if BARE_OLD.search(line):
                problems.append(f"{where}: dangling citation {OLD_DESIGN}: cite a docs/ page")
            for page, section in CITATION.findall(line):
                if page not in sections:
                    page_text = read_text(os.path.join(root, page))
                    sections[page] = None if page_text is None else section_numbers(page_text)
                if sections[page] is None:
                    problems.append(f"{where}: dangling citation {page}: no such page")
                elif section and section not in sections[page]:
                    problems.append(f"{where}: dangling citation {page} §{section}: "
                                    f"no heading starts with §{section}")
    return problems


def check(root):
    return check_links(root) + check_citations(root)


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


GOOD_TREE = {
    "README.md": "# Tool\n\nSee [the design](docs/design.md#2-the-verdict-first-match-wins), "
                 "[the top](#tool) and [a dir](framework/).\n\n"
                 "```\n[not a link](missing.md)\n```\n\nAnd `[code](missing.md)` is code.\n",
    "docs/design.md": "# Design\n\n## §1 Intro\n\n## §2 The verdict: first match wins\n\n"
                      "### §2.1 Rules\n\n## Notes\n\n## Notes\n\n"
                      "Back to [notes](#notes-1) and [the README](../README.md).\n",
    "framework/verdict.hpp": "// The verdict (docs/design.md §2.1).\n",
    "sdk/plugin.h": "/* One row (docs/design.md section 1). */\n",
    "tests/docs/fixture.md": "cites " + OLD_DESIGN + " on purpose, and is skipped\n",
}

# Each case: one file changed from the good tree, and the one problem it must cause.
BROKEN_CASES = [
    ("README.md", "[gone](docs/gone.md)\n", "README.md:1: broken link docs/gone.md: no such file"),
    ("README.md", "[bad anchor](docs/design.md#9-nothing)\n",
     "README.md:1: broken link docs/design.md#9-nothing: no heading #9-nothing"),
    ("docs/extra.md", "[out](../../elsewhere.md)\n",
     "docs/extra.md:1: broken link ../../elsewhere.md: outside the repository"),
    ("framework/verdict.hpp", "// docs/design.md §3\n",
     "framework/verdict.hpp:1: dangling citation docs/design.md §3: no heading starts with §3"),
    ("sdk/plugin.h", "/* docs/design.md section 2.2 */\n",
     "sdk/plugin.h:1: dangling citation docs/design.md §2.2: no heading starts with §2.2"),
    ("tools/main.cpp", "// see docs/missing.md\n",
     "tools/main.cpp:1: dangling citation docs/missing.md: no such page"),
    ("cmake/x.cmake", "# " + OLD_DESIGN + " §5\n",
     f"cmake/x.cmake:1: dangling citation {OLD_DESIGN}: cite a docs/ page"),
]


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        good = os.path.join(tmp, "good")
        for rel, text in GOOD_TREE.items():
            write(good, rel, text)
        found = check(good)
        if found:
            failures.append(f"clean tree: expected no problems, got {found}")
        for i, (rel, text, expected) in enumerate(BROKEN_CASES):
            tree = os.path.join(tmp, f"case{i}")
            for r, t in GOOD_TREE.items():
                write(tree, r, t)
            write(tree, rel, text)
            found = check(tree)
            if found != [expected]:
                failures.append(f"case {i} ({rel}): expected [{expected!r}], got {found}")
    for line in failures:
        print(f"check_docs self-test: FAIL {line}")
    if failures:
        return 1
    print(f"check_docs self-test: clean tree passes, {len(BROKEN_CASES)} broken trees each caught")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--expect", help="pass only when the problems are exactly this file's lines")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    root = os.path.normpath(args.root)
    problems = check(root)
    for line in problems:
        print(line)
    if args.expect:
        with open(args.expect, encoding="utf-8") as f:
            expected = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
        if problems == expected:
            print(f"check_docs: the {len(expected)} expected problem(s) found, and no other")
            return 0
        print("check_docs: expected exactly:\n  " + "\n  ".join(expected))
        return 1
    if problems:
        print(f"check_docs: {len(problems)} problem(s)")
        return 1
    print(f"check_docs: {len(doc_pages(root))} page(s), links and citations resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main())
