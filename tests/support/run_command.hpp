// Runs a program to completion (no shell), capturing its exit status, stdout and stderr: how the
// CLI, integration and plugin tests drive the real binaries.
#pragma once

#include <string>
#include <vector>

namespace bi::testing {

struct CommandResult {
    int exit_code = -1;  // 128 + signal when killed by a signal
    std::string out;
    std::string err;
};

// argv[0] is the program path. `stdin_text` is fed on standard input (empty: immediate EOF).
// Throws std::runtime_error when the program cannot be started.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_text = "");

}  // namespace bi::testing
