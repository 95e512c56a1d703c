#!/usr/bin/env bash
# Remakes docs/report.png: a small sweep against the built-in mock (two model aliases, ctx x N,
# the mock's divergence knobs standing in for what real servers do), its HTML report, and a
# headless Chromium screenshot of the page; and docs/report-red-cell.png, one RED cell's detail.
# Needs a build in ./build (bi-run, bi_report_fixtures) and chromium-headless-shell.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bi="${BI_RUN:-$root/build/bin/bi-run}"
browser="$(command -v chromium-headless-shell || command -v chromium)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# cell ALIAS CTX N [DIVERGENCE|--empty]: one run-mock cell; a verdict that is not GREEN exits 3.
cell() {
  local extra=()
  case "${4:-}" in
    "") ;;
    --empty) extra=(--empty) ;;
    *) extra=(--divergence "$4") ;;
  esac
  "$bi" run-mock --out-dir "$work/certs" --quiet --passes 3 --n-predict 40 --model-alias "$1" \
    --ctx "$2" --parallel "$3" "${extra[@]}" >/dev/null || [ $? -eq 3 ]
}

for ctx in 1024 2048 4096; do
  cell llama-1b-q8 "$ctx" 2
done
cell llama-1b-q8 1024 4
cell llama-1b-q8 2048 4
cell llama-1b-q8 4096 4 token
cell llama-1b-q8 1024 8
cell llama-1b-q8 2048 8 --empty
cell llama-1b-q8 4096 8 score
cell qwen-0.5b-f16 2048 2
cell qwen-0.5b-f16 2048 4
cell qwen-0.5b-f16 2048 8 score

"$bi" report --html "$work/report.html" "$work/certs" >/dev/null
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$work/profile" --window-size=1280,1500 \
  --screenshot="$root/docs/report.png" "file://$work/report.html" 2>/dev/null
echo "docs/report.png from $(ls "$work/certs" | wc -l) mock certs"

# One RED cell up close, from the report tests' fixed certs: the texts of the cert's excerpt side by side,
# the first difference marked, completion markup shown as text.
mkdir "$work/fixtures"
"$root/build/bin/bi_report_fixtures" "$work/fixtures"
"$bi" report --html "$work/red.html" "$work/fixtures/tiny~2Frand-256__ctx512__N4.json" >/dev/null
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$work/profile" --window-size=1280,1900 \
  --screenshot="$root/docs/report-red-cell.png" "file://$work/red.html" 2>/dev/null
echo "docs/report-red-cell.png from the report tests' RED fixture"
