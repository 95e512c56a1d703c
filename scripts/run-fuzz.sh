#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang 14, ASan + UBSan) in a build dir of their own and
# runs each for a bounded time on its checked-in seeds, as many at once as there are cores,
# printing runs and coverage per target.
# Any crash, leak, UB report, timeout or out-of-memory is a finding: the input is kept in the
# artifact dir and the script fails.
#   BI_FUZZ_SECONDS    seconds per target (default 60)
#   BI_FUZZ_BUILD_DIR  build dir (default ./build-fuzz)
#   BI_FUZZ_OUT_DIR    findings and grown corpora (default BUILD_DIR/fuzz-out, emptied per run)
# Arguments name targets to run (default: all of them), e.g. scripts/run-fuzz.sh fuzz_cert
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BI_FUZZ_BUILD_DIR:-$root/build-fuzz}"
out_dir="${BI_FUZZ_OUT_DIR:-$build_dir/fuzz-out}"
seconds="${BI_FUZZ_SECONDS:-60}"
jobs="$(nproc 2>/dev/null || echo 2)"

die() { echo "run-fuzz: $*" >&2; exit 1; }
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || die "BI_FUZZ_SECONDS must be a positive whole number, got '$seconds'"
for tool in clang-14 clang++-14; do
  command -v "$tool" >/dev/null 2>&1 ||
    die "$tool not found (Debian: apt-get install clang-14 libclang-rt-14-dev llvm-14)"
done

# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBI_WERROR=ON \
      -DBI_FUZZ=ON -DBI_BUILD_TESTS=OFF -DCMAKE_C_COMPILER=clang-14 \
      -DCMAKE_CXX_COMPILER=clang++-14 "${ccache_launcher[@]}" >/dev/null || die "configure failed"
cmake --build "$build_dir" --parallel "$jobs" --target bi_fuzzers || die "build failed"

targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  for dir in "$root"/fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

# Symbolized stacks in reports; a leak or UB report ends the run like a crash does.
symbolizer="$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=1${symbolizer:+:external_symbolizer_path=$symbolizer}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${symbolizer:+:external_symbolizer_path=$symbolizer}"

rm -rf "$out_dir"
# run_target NAME: one target for $seconds on its seeds; its exit status in $out_dir/NAME/rc.
run_target() {
  local target="$1" binary="$build_dir/bin/$1" seeds="$root/fuzz/corpus/$1"
  local work="$out_dir/$1"
  mkdir -p "$work/corpus" "$work/findings"
  # New inputs go to the work corpus; the checked-in seeds are only read.
  "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$work/findings/" "$work/corpus" "$seeds" >"$work/log.txt" 2>&1
  echo "$?" > "$work/rc"
}

for target in "${targets[@]}"; do
  [ -x "$build_dir/bin/$target" ] || die "$target: no such fuzz target ($build_dir/bin/$target)"
  [ -d "$root/fuzz/corpus/$target" ] || die "$target: no seed corpus ($root/fuzz/corpus/$target)"
done
# A libFuzzer run uses one core: as many targets run at once as there are cores, each for the
# same time as alone, so the whole takes 1/jobs of the time with the same runs per target.
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$target" &
done
wait

failed=()
for target in "${targets[@]}"; do
  work="$out_dir/$target"
  log="$work/log.txt"
  rc="$(cat "$work/rc" 2>/dev/null || echo 1)"
  # libFuzzer's last status line: "#RUNS DONE cov: C ft: F corp: N/SIZE ..."
  status="$(grep -E '^#[0-9]+' "$log" | tail -n 1)"
  runs="$(sed -n -E 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)"
  cov="$(sed -n -E 's/.* cov: ([0-9]+).*/\1/p' <<<"$status")"
  ft="$(sed -n -E 's/.* ft: ([0-9]+).*/\1/p' <<<"$status")"
  corp="$(sed -n -E 's/.* corp: ([0-9]+).*/\1/p' <<<"$status")"
  echo "fuzz $target: ${runs:-?} runs in ${seconds} s, cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
  if [ "$rc" -ne 0 ]; then
    failed+=("$target")
    echo "fuzz $target: FINDING (exit $rc); input(s) in $work/findings/, log $log:" >&2
    grep -E -A 30 '^==[0-9]+==ERROR|runtime error|^fuzz: ' "$log" | head -n 60 >&2
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  die "findings in: ${failed[*]}"
fi
echo "run-fuzz: ${#targets[@]} target(s), ${seconds} s each, no findings"
