#!/usr/bin/env bash
# clang-tidy-14 with the checked-in .clang-tidy over every framework and tool source (the set
# BI_CLANG_TIDY=ON checks while compiling), any warning an error. It reads the compile commands
# of a build that is already configured and built (default ./build, which the test step made, so
# generated headers exist) and compiles nothing itself.
#   BI_BUILD_DIR  the build whose compile_commands.json is used (default ./build)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BI_BUILD_DIR:-$root/build}"
jobs="$(nproc 2>/dev/null || echo 2)"
tidy="$(command -v clang-tidy-14 || command -v clang-tidy || true)"
[ -n "$tidy" ] || { echo "run-clang-tidy: clang-tidy-14 is not installed" >&2; exit 2; }
commands="$build_dir/compile_commands.json"
[ -f "$commands" ] || { echo "run-clang-tidy: $commands is missing (configure the build first)" >&2; exit 2; }

# Sources under framework/ and tools/ of this tree, NUL-separated, once each.
python3 - "$commands" "$root" <<'PY' > "$build_dir/tidy-sources.list"
import json, os, sys
commands, root = sys.argv[1], os.path.realpath(sys.argv[2])
seen = set()
for entry in json.load(open(commands)):
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    rel = os.path.relpath(path, root)
    if rel.split(os.sep)[0] in ("framework", "tools") and path not in seen:
        seen.add(path)
        sys.stdout.write(path + "\0")
PY
count="$(tr -cd '\0' < "$build_dir/tidy-sources.list" | wc -c)"
echo "run-clang-tidy: $count sources, $jobs at a time"
xargs -0 -P "$jobs" -n 2 "$tidy" -p "$build_dir" --quiet --config-file="$root/.clang-tidy" \
  --warnings-as-errors='*' < "$build_dir/tidy-sources.list" 2> >(grep -v ' warnings\? generated\.$' >&2)
