#!/usr/bin/env bash
# The main job: installs and builds what it needs (bi-run, the mock server and the bundled
# plugins; the test command builds the rest), then runs bi-run with the given arguments
# (default: a GREEN-or-not verdict for one cell against the built-in mock server).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BI_BUILD_TARGETS="${BI_BUILD_TARGETS:-bi-run bi-mock-server exact spark}" "$root/scripts/bootstrap.sh"
build_dir="${BI_BUILD_DIR:-$root/build}"
if [ "$#" -eq 0 ]; then
  set -- run-mock --out-dir "$root/certs"
fi
exec "$build_dir/bin/bi-run" "$@"
