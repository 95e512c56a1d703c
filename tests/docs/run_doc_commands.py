#!/usr/bin/env python3
"""Runs every bi-run command shown in README.md and docs/*.md that can run against the mock, and
fails when one exits otherwise than its page says.

A command is a line of a fenced code block that starts with `bi-run` or `build/bin/bi-run`
(continued over lines ending in a backslash). The commands of one page run in order, in one
scratch directory of their own, through bash (globs and redirections work as a reader's shell
does them), with `bi-run`, `build/bin/bi-run` and `build/bin/bi-mock-server` the binaries under
test. A command exits 0 unless its comment says "exit N". A block whose info string has the word
`live` (```sh live) needs a real server or the reader's own files: its commands are counted, not
run.

  run_doc_commands.py --bin-dir DIR [--root DIR]   run the commands (DIR holds bi-run)
  run_doc_commands.py --self-test                  prove the extraction and the failure path
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from markdown_pages import doc_pages, fenced_blocks

COMMAND = re.compile(r"^\s*(?:build/bin/)?bi-run(?:\s|$)")
EXPECTED_EXIT = re.compile(r"\bexit (\d+)\b")
SHELL_LANGUAGES = ("", "sh", "bash", "shell", "console")


def split_comment(line):
    """(command, comment): the comment starts at a '#' outside quotes that follows a space."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def commands_of(text):
    """[(line number, command, comment, live)] for every bi-run command in a shell block."""
    found = []
    for info, lines in fenced_blocks(text):
        words = info.split()
        if (words[0] if words else "") not in SHELL_LANGUAGES:
            continue
        live = "live" in words[1:]
        pending = None  # a command continued over lines ending in a backslash
        for number, line in lines:
            if pending is None and not COMMAND.match(line):
                continue
            part, comment = split_comment(line)
            if pending is None:
                pending = [number, "", "", live]
            pending[1] += part.rstrip("\\").strip() + " "
            if comment:
                pending[2] += comment + " "
            if part.endswith("\\"):
                continue
            found.append((pending[0], pending[1].strip(), pending[2].strip(), pending[3]))
            pending = None
    return found


def expected_exit(comment):
    m = EXPECTED_EXIT.search(comment)
    return int(m.group(1)) if m else 0


def run_page(page, commands, bin_dir, scratch):
    """Runs a page's commands that are not live; returns its failures."""
    failures = []
    os.makedirs(os.path.join(scratch, "build"), exist_ok=True)
    link = os.path.join(scratch, "build", "bin")
    if not os.path.exists(link):
        os.symlink(bin_dir, link)
    # HOME is the scratch directory too, so a `~/...` of a page stays in it.
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), HOME=scratch)
    env.pop("BI_SIGN_KEY", None)
    for number, command, comment, live in commands:
        if live:
            continue
        want = expected_exit(comment)
        start = time.monotonic()
        done = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, capture_output=True,
                              text=True, timeout=300)
        took = time.monotonic() - start
        where = f"{page}:{number}"
        if done.returncode != want:
            tail = "\n    ".join((done.stdout + done.stderr).strip().splitlines()[-8:])
            failures.append(f"{where}: `{command}` exited {done.returncode}, the page says "
                            f"{want}\n    {tail}")
        else:
            print(f"ok   {where} ({took:.1f} s, exit {want}): {command}")
    return failures


def run_all(root, bin_dir):
    failures, ran, live = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for page in doc_pages(root):
            with open(os.path.join(root, page), encoding="utf-8") as f:
                commands = commands_of(f.read())
            live += sum(1 for c in commands if c[3])
            ran += sum(1 for c in commands if not c[3])
            if not commands:
                continue
            scratch = os.path.join(tmp, page.replace("/", "_"))
            os.makedirs(scratch)
            failures += run_page(page, commands, bin_dir, scratch)
    for line in failures:
        print(f"FAIL {line}")
    print(f"run_doc_commands: {ran} command(s) run, {len(failures)} failed; {live} live-only "
          "command(s) not run")
    if ran == 0:
        print("run_doc_commands: no command found to run")
        return 1
    return 1 if failures else 0


SELF_TEST_PAGE = """# Page

```sh
bi-run first --a \\
    --b 'x # y'     # exit 3
echo not a command
build/bin/bi-run second   # fine
```

```sh live
bi-run third --server-bin ~/llama-server
```

```json
{"bi-run": 1}
```
"""


def self_test():
    problems = []
    got = commands_of(SELF_TEST_PAGE)
    want = [(4, "bi-run first --a --b 'x # y'", "exit 3", False),
            (7, "build/bin/bi-run second", "fine", False),
            (11, "bi-run third --server-bin ~/llama-server", "", True)]
    if got != want:
        problems.append(f"extraction: expected {want}, got {got}")
    if expected_exit("CHANGED, exit 3") != 3 or expected_exit("green") != 0:
        problems.append("expected exit statuses misread")
    # A command that exits otherwise than its page says is a failure; one that matches is not.
    with tempfile.TemporaryDirectory() as tmp:
        bin_dir = os.path.join(tmp, "bin")
        os.makedirs(bin_dir)
        fake = os.path.join(bin_dir, "bi-run")
        with open(fake, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\nexit \"${1:-0}\"\n")
        os.chmod(fake, 0o755)
        scratch = os.path.join(tmp, "page")
        os.makedirs(scratch)
        commands = [(1, "bi-run 3", "exit 3", False), (2, "build/bin/bi-run 0", "", False),
                    (3, "bi-run 2", "", False), (4, "bi-run 5", "", True)]
        failures = run_page("page.md", commands, bin_dir, scratch)
        if len(failures) != 1 or not failures[0].startswith("page.md:3:"):
            problems.append(f"failure path: expected one failure at page.md:3, got {failures}")
    for line in problems:
        print(f"run_doc_commands self-test: FAIL {line}")
    if not problems:
        print("run_doc_commands self-test: extraction, exit statuses and failures as expected")
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--bin-dir", help="the directory holding bi-run and bi-mock-server")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.bin_dir or not shutil.which("bi-run", path=args.bin_dir):
        parser.error("--bin-dir must name the directory holding bi-run")
    return run_all(os.path.normpath(args.root), os.path.abspath(args.bin_dir))


if __name__ == "__main__":
    sys.exit(main())
