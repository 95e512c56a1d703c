// Runs a program to completion for CLI tests, capturing its exit status, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace bi::testing {

struct CommandResult {
    int exit_code = -1;  // 128 + signal when killed by a signal
    std::string out;
    std::string err;
};

// argv[0] is the program path. `stdin_text` is fed on standard input.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_text = "");

// A fresh directory under the system temp dir, removed with everything in it on destruction.
class ScratchDir {
public:
    ScratchDir();
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

}  // namespace bi::testing
