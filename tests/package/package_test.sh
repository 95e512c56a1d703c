#!/usr/bin/env bash
# The Debian packages, tested as a user gets them: cpack builds bi-run and bi-run-dev from the
# build directory, lintian reports no error, both are extracted into a scratch root (dpkg -x,
# nothing installed on the machine), and the extracted bi-run runs with no build tree around:
# the mock's GREEN and RED, its plugins found relative to itself, a third-party scorer built
# with find_package against the extracted bi-run-dev, bash completion, and every man page
# rendered without a warning.
#   package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"
source_dir="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() {
  echo "package test: $*" >&2
  exit 1
}
for tool in cpack lintian dpkg-deb dpkg-shlibdeps man gzip bash; do
  command -v "$tool" >/dev/null || fail "needs $tool (scripts/run-tests.sh installs it)"
done
[ -f /usr/share/bash-completion/bash_completion ] ||
  fail "needs bash-completion (scripts/run-tests.sh installs it)"
# expect NAME EXPECTED-EXIT COMMAND...: runs it with stdout and stderr in $work/NAME.out.
expect() {
  local name="$1" want="$2" rc=0
  shift 2
  "$@" >"$work/$name.out" 2>&1 || rc=$?
  [ "$rc" -eq "$want" ] || { cat "$work/$name.out" >&2; fail "$name: exit $rc, expected $want"; }
}
contains() {
  grep -q -- "$2" "$work/$1.out" || { cat "$work/$1.out" >&2; fail "$1: no '$2' in its output"; }
}

start=$SECONDS
expect cpack 0 cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/packages"
runtime=("$work"/packages/bi-run_*.deb)
dev=("$work"/packages/bi-run-dev_*.deb)
[ -f "${runtime[0]}" ] && [ -f "${dev[0]}" ] || { ls -l "$work/packages" >&2; fail "missing a package"; }
echo "package test: built $(basename "${runtime[0]}") ($(stat -c %s "${runtime[0]}") bytes)," \
     "$(basename "${dev[0]}") ($(stat -c %s "${dev[0]}") bytes) in $((SECONDS - start)) s"

# Dependencies come from dpkg-shlibdeps: Poco's and OpenSSL's libraries, the C++ runtime.
expect control 0 dpkg-deb --field "${runtime[0]}" Depends
for library in libpoco libssl3 libstdc++6 libc6; do contains control "$library"; done
expect dev-control 0 dpkg-deb --field "${dev[0]}" Depends
contains dev-control "bi-run"

start=$SECONDS
lintian_rc=0
lintian --fail-on error --display-level '>=warning' "${runtime[0]}" "${dev[0]}" \
  >"$work/lintian.out" 2>&1 || lintian_rc=$?
grep -v 'running with root privileges' "$work/lintian.out" | sed 's/^/package test: lintian: /' || true
[ "$lintian_rc" -eq 0 ] || fail "lintian reported errors (exit $lintian_rc)"
echo "package test: lintian $((SECONDS - start)) s"

root="$work/root"
dpkg -x "${runtime[0]}" "$root"
dpkg -x "${dev[0]}" "$root"
bi="$root/usr/bin/bi-run"
[ -x "$bi" ] || fail "no usr/bin/bi-run in the package"
# A clean environment in a directory of its own: nothing of the build tree is reachable.
mkdir "$work/run"
cd "$work/run"
run_clean() { env -i PATH=/usr/bin:/bin HOME="$work/run" LANG=C.UTF-8 "$@"; }

expect version 0 run_clean "$bi" --version
contains version "^bi-run "
contains version "plugin ABI:"
expect green 0 run_clean "$bi" run-mock --out-dir "$work/run/certs"
contains green "GREEN"
expect red 3 run_clean "$bi" run-mock --batch-divergence --out-dir "$work/run/certs-red"
contains red "RED"
expect plugins 0 run_clean "$bi" plugins
contains plugins "$root/usr/lib/.*/bi-run/plugins/libexact.so"
contains plugins "$root/usr/lib/.*/bi-run/plugins/libspark.so"
mkdir "$work/run/model"  # vLLM's model form: a directory
expect kinds 0 run_clean "$bi" run-live --server-kind vllm --server-bin /bin/false \
  --model "$work/run/model" --dry-run --out-dir "$work/run/dry"
contains kinds "server kind    vllm (built-in:vllm.toml)"

# A third party's scorer, built against the extracted SDK and loaded by the extracted bi-run.
expect consumer-configure 0 cmake -S "$source_dir/examples/scorer-c" -B "$work/consumer" \
  "-DCMAKE_PREFIX_PATH=$root/usr" -DCMAKE_C_FLAGS="-Wall -Wextra -Werror"
grep -q "$root/usr/share/cmake/BatchInvariance" "$work/consumer/CMakeCache.txt" ||
  fail "find_package did not take the extracted bi-run-dev"
expect consumer-build 0 cmake --build "$work/consumer"
expect consumer-load 0 run_clean "$bi" plugins --plugin "$work/consumer/libneedle_c.so"
contains consumer-load "scorer needle-c"

# bash, interactive, with bash-completion loaded: the function the package installs completes
# command names and options.
completion="$root/usr/share/bash-completion/completions/bi-run"
[ -f "$completion" ] || fail "no bash completion in the package"
complete_line() {
  env -i PATH=/usr/bin:/bin HOME="$work/run" TERM=dumb bash --norc --noprofile -i -c '
    source /usr/share/bash-completion/bash_completion
    source "$1"
    shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    function=$(complete -p bi-run | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
    "$function" bi-run "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' completion "$completion" "$@" 2>/dev/null
}
complete_line bi-run ru >"$work/complete-ru.out"
[ "$(sort "$work/complete-ru.out" | tr '\n' ' ')" = "run-live run-mock " ] ||
  { cat "$work/complete-ru.out" >&2; fail "bi-run ru<TAB> did not offer run-live and run-mock"; }
complete_line bi-run run-live --ser >"$work/complete-ser.out"
for option in --server-bin --server-flag --server-kind --server-kind-dir; do
  contains complete-ser "^$option\$"
done
complete_line bi-run run-live --server-kind '' >"$work/complete-kind.out"
contains complete-kind "^vllm$"
contains complete-kind "^llama-server$"

# Every man page renders without a warning, as lintian's own check runs man.
pages=("$root"/usr/share/man/man*/*.gz)
[ "${#pages[@]}" -ge 15 ] || fail "only ${#pages[@]} man pages"
for page in "${pages[@]}"; do
  warnings="$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)"
  [ -z "$warnings" ] || fail "$(basename "$page"): $warnings"
done
for name in bi-run.1 bi-run-run-live.1 bi-run-completion.1 bi-run-cert.5 bi-mock-server.1; do
  ls "$root"/usr/share/man/man*/"$name.gz" >/dev/null 2>&1 || fail "no man page $name"
done
# The manual the README links to is beside it, so every link of the installed README resolves.
doc="$root/usr/share/doc/bi-run"
[ -f "$doc/README.md" ] || fail "no README.md in $doc"
for target in $(grep -o '](docs/[^)#]*' "$doc/README.md" | sed 's/^](//' | sort -u); do
  [ -f "$doc/$target" ] || fail "the installed README links to $target, which the package lacks"
done
echo "package test: ${#pages[@]} man pages render, completion and the installed bi-run work"
