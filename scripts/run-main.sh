#!/usr/bin/env bash
# The main job: installs and builds what is missing, then runs bi-run with the given arguments
# (default: a GREEN-or-not verdict for one cell against the built-in mock server).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/bootstrap.sh"
build_dir="${BI_BUILD_DIR:-$root/build}"
if [ "$#" -eq 0 ]; then
  set -- run-mock --out-dir "$root/certs"
fi
exec "$build_dir/bin/bi-run" "$@"
