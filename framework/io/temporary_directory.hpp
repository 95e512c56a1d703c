// A fresh directory for output nobody named: the upstream tool's run-mock (and selftest) write
// into one when no --out-dir is given. It goes, with what it holds, unless kept, so a run that
// ends before its verdict leaves nothing behind.
#pragma once

#include <string>

namespace bi::io {

// $TMPDIR/PREFIX-XXXXXX (std::filesystem::temp_directory_path), created mode 0700 by mkdtemp;
// bi::Error(Io) with the system's reason when it cannot be.
std::string make_temporary_directory(const std::string& prefix);

class TemporaryDirectory {
public:
    explicit TemporaryDirectory(const std::string& prefix);
    ~TemporaryDirectory();
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

    const std::string& path() const { return path_; }
    void keep() { kept_ = true; }

private:
    std::string path_;
    bool kept_ = false;
};

}  // namespace bi::io
