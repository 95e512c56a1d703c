#!/usr/bin/env bash
# The `format` CTest test: clang-format --dry-run -Werror over every tracked C/C++ file of the
# checkout in $1 (default: this repository); fails listing each file clang-format would change.
# Exits 77, which CTest reports as skipped, when clang-format 14 or git is not there to ask.
set -uo pipefail

root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
skip() { echo "format: $1; skipped" >&2; exit 77; }

command -v git >/dev/null 2>&1 || skip "git not found"
clang_format=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null 2>&1; then clang_format="$candidate"; break; fi
done
[ -n "$clang_format" ] || skip "clang-format not found"
# Another major version lays code out differently from the 14 the tree is formatted with, so
# its verdict would be noise rather than a finding.
version="$("$clang_format" --version)"
[[ "$version" =~ version\ 14\. ]] || skip "$clang_format is not version 14 ($version)"

cd "$root" || exit 1
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || skip "$root is not a git checkout"

files=()
while IFS= read -r file; do
  [ -f "$file" ] && files+=("$file")  # skip files deleted in the work tree, not yet committed
done < <(git ls-files -- '*.cpp' '*.hpp' '*.h' '*.c')
[ "${#files[@]}" -gt 0 ] || skip "no C/C++ files tracked in $root"

# One clang-format run over all files (hundreds of processes would take longer than the check);
# each violation is reported as "path:line:col: error: ...", reduced here to the paths.
report="$("$clang_format" --dry-run -Werror "${files[@]}" 2>&1)"
status=$?
mapfile -t offending < <(sed -n -E 's/^(.+):[0-9]+:[0-9]+: (error|warning): .*/\1/p' <<<"$report" |
                         sort -u)
if [ "$status" -ne 0 ] && [ "${#offending[@]}" -eq 0 ]; then
  echo "format: $clang_format failed:" >&2
  echo "$report" >&2
  exit 1
fi

if [ "${#offending[@]}" -gt 0 ]; then
  echo "format: ${#offending[@]} of ${#files[@]} files are not clang-formatted:" >&2
  printf '  %s\n' "${offending[@]}" >&2
  echo "format: fix with: $clang_format -i <file>..." >&2
  exit 1
fi
echo "format: ${#files[@]} files clang-formatted"
