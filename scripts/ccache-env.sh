# Sourced by the build scripts: compile through ccache when it is installed, with paths taken
# relative to the source tree and the build directory left out of the hash, so that build trees
# (./build, ./build-sanitize, a second clone) share every object compiled alike — the tests' own
# code above all (tests/CMakeLists.txt). Sets `ccache_launcher` to the cmake arguments (empty
# without ccache). CCACHE_DIR is left to the caller: .ci/run points it into its own clone.
#   needs: $root, the source tree
ccache_launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
  ccache_launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
