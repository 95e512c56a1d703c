#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer (-DBI_SANITIZE=ON,
# the default g++), in a build dir of its own so the normal build stays untouched. Any ASan,
# LeakSanitizer or UBSan report ends the process that hit it, and so fails its test.
#   BI_SANITIZE_BUILD_DIR  build dir (default ./build-sanitize)
# Arguments go to ctest, e.g. scripts/run-sanitized-tests.sh -R 'unit:'
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BI_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
jobs="$(nproc 2>/dev/null || echo 2)"

# shellcheck source=scripts/ccache-env.sh
. "$root/scripts/ccache-env.sh"
# -O1 -g1: the optimisation ASan is meant for, and line tables enough for its stacks; a third
# less compile time than the normal build's -O2 -g. The live tests, which this run leaves out,
# are not built.
start=$SECONDS
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBI_WERROR=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DBI_SANITIZE=ON -DBI_LIVE_TESTS=OFF "${ccache_launcher[@]}" >/dev/null
cmake --build "$build_dir" --parallel "$jobs"
echo "run-sanitized-tests: build $((SECONDS - start)) s"

# halt_on_error / -fno-sanitize-recover: the first report ends the process. handle_segv=0 and
# friends leave SIGSEGV, SIGBUS and SIGFPE to the default action: tests crash stand-in servers
# and plugins on purpose and assert the signal they died of, which ASan's handler would turn
# into exit 1. A real crash still fails its test; it is only reported without ASan's stack.
# log_path: every report, from any process a test starts (bi-run, a server, a plugin host), is
# written to a file of its own in $reports as well as ending that process, so a report is found
# even where a test shows only its exit status; the files are printed at the end.
reports="$build_dir/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:detect_stack_use_after_return=1:strict_init_order=1:log_path=$reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan"
# The adversarial fake's ticks, twice as long: under ASan each of bi-run's reader threads, woken
# by a token, holds the CPU many times its usual while, and the fake's next writer waits behind
# it, so one tick's tokens leave up to a millisecond apart. The lockstep gate judges a step
# against its own length; a longer tick gives the honest controls the margin an unsanitized run
# has, and changes nothing a dishonest fake can get past (its tokens stay apart by design).
export BI_FAKE_TICK_SCALE="${BI_FAKE_TICK_SCALE:-2}"

# Labels left out: `live` needs a real llama-server (it skips without one anyway); `format` and
# `docs` check the source tree, not the build, and the normal test run has them; `cluster` and
# `browser` test what Slurm and Chromium make of bi-run's output (the same bi-run code runs
# sanitized in `integration:sharded-sweep` and the report tests); `busy` tests load every core
# on purpose to show that the timing evidence of an honest server holds up there: under ASan,
# beside a second CTest job, they would measure the sanitizer's slowdown (several times the
# client's and the mock's CPU time) rather than the evidence, and the normal run has them;
# `no-sanitize` marks tests that cannot hold under ASan (each says why where it is labelled).
cd "$build_dir"
start=$SECONDS
rc=0
ctest --output-on-failure --parallel "$jobs" --timeout 600 \
      -LE '^(live|format|docs|cluster|browser|package|busy|no-sanitize)$' "$@" || rc=$?
# This run's subject is memory and undefined behaviour; the timing evidence is the normal run's
# (and its `busy` tests'). Under ASan, two jobs on a slow 2-core machine can starve an honest
# mock or fake of the CPU until its batch no longer shows; detect_stack_use_after_return, which
# gives every call a heap frame, costs most of it (an in-process run-mock cell at 5 ms ticks was
# UNVERIFIED 3 times in 3 with it and GREEN 3 times in 3 without, beside a loaded machine). A
# test that failed so, with no sanitizer report anywhere, runs once more alone and without fake
# frames (its first run already checked every stack use it made), and the step fails if it
# fails again. Any report fails the step, whatever the reruns do.
if [ "$rc" -ne 0 ] && [ -z "$(ls -A "$reports")" ] && [ -s Testing/Temporary/LastTestsFailed.log ]; then
  echo "run-sanitized-tests: $(wc -l < Testing/Temporary/LastTestsFailed.log) test(s) failed" \
       "beside a second job with no sanitizer report; each runs again, alone:"
  sed 's/^/  /' Testing/Temporary/LastTestsFailed.log
  rc=0
  ASAN_OPTIONS="${ASAN_OPTIONS/detect_stack_use_after_return=1/detect_stack_use_after_return=0}" \
    ctest --output-on-failure --parallel 1 --timeout 600 --rerun-failed || rc=$?
fi
if [ -n "$(ls -A "$reports")" ]; then
  echo "run-sanitized-tests: sanitizer reports:" >&2
  cat "$reports"/* >&2
  rc=1
fi
echo "run-sanitized-tests: tests $((SECONDS - start)) s"
exit "$rc"
