// A fresh directory under the system temp dir for one test, removed with everything in it on
// destruction, and whole-file reading for checking what a test or a binary wrote there.
#pragma once

#include <string>

namespace bi::testing {

class ScratchDir {
public:
    ScratchDir();  // throws std::runtime_error when no directory can be made
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    // Writes `content` to file(name) and returns that path.
    std::string write(const std::string& name, const std::string& content) const;

private:
    std::string path_;
};

// The whole file as bytes; empty when it cannot be read (the caller's assertion then fails).
std::string read_text(const std::string& path);

}  // namespace bi::testing
