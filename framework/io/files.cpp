#include "files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace bi::io {

namespace {

[[noreturn]] void io_error(const std::string& what, const std::string& path, int err) {
    throw Error(ErrorCategory::Io, what + " " + path + ": " + std::strerror(err));
}

std::string parent_directory(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

// Closes the descriptor and removes the temp file unless released: no debris on failure.
class TempFile {
public:
    explicit TempFile(const std::string& target) : path_(target + ".tmp.XXXXXX") {
        std::vector<char> name(path_.begin(), path_.end());
        name.push_back('\0');
        fd_ = ::mkstemp(name.data());
        if (fd_ < 0) io_error("cannot create a temp file for", target, errno);
        path_.assign(name.data());
    }
    ~TempFile() {
        if (fd_ >= 0) ::close(fd_);
        if (!committed_) ::unlink(path_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    int fd() const { return fd_; }
    const std::string& path() const { return path_; }
    void close_checked() {
        const int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) io_error("cannot close", path_, errno);
    }
    void commit() { committed_ = true; }

private:
    std::string path_;
    int fd_ = -1;
    bool committed_ = false;
};

}  // namespace

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) io_error("cannot read", path, errno ? errno : ENOENT);
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad()) io_error("cannot read", path, errno);
    return content.str();
}

void write_file_atomically(const std::string& path, std::string_view content) {
    TempFile temp(path);
    const char* data = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        const ssize_t n = ::write(temp.fd(), data, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) io_error("cannot write", temp.path(), errno);
        data += n;
        left -= static_cast<std::size_t>(n);
    }
    if (::fchmod(temp.fd(), 0644) != 0) io_error("cannot chmod", temp.path(), errno);
    if (::fsync(temp.fd()) != 0) io_error("cannot fsync", temp.path(), errno);
    temp.close_checked();
    if (::rename(temp.path().c_str(), path.c_str()) != 0) io_error("cannot rename onto", path, errno);
    temp.commit();
    const std::string dir = parent_directory(path);
    const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dir_fd >= 0) {
        ::fsync(dir_fd);
        ::close(dir_fd);
    }
}

}  // namespace bi::io
