// Where the build put what a test runs: bi-run, the mock server, plugins and fixtures, found
// from the running test's own place (the build's bin/), not compiled in. A test's compile
// command then names no build directory, so one object file serves every build tree (the
// sanitized build reuses the normal build's through ccache).
#pragma once

namespace bi::testing {

// The absolute path of `name` in the directory of the running executable (the build's bin/).
// The text lives as long as the process.
const char* built_file(const char* name);

// The absolute path of `relative` under the build directory (the parent of bin/).
const char* build_path(const char* relative);

}  // namespace bi::testing
