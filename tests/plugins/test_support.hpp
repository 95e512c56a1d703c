// Helpers for the plugin tests: fixture paths, a self-removing temp directory, and running a
// real binary with its output captured.
#pragma once

#include <string>
#include <vector>

namespace bi::test {

// lib<name>.so in the fixture directory the build put them in.
std::string fixture(const std::string& name);

class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    std::string write(const std::string& name, const std::string& content) const;

private:
    std::string path_;
};

struct ProcessResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

// Runs argv[0] with argv (no shell), stdin from /dev/null, stdout and stderr captured.
ProcessResult run_process(const std::vector<std::string>& argv);

std::string read_text(const std::string& path);

}  // namespace bi::test
