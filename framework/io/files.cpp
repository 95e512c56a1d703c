#include "files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
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
    AtomicFileWriter file(path);
    file.write(content);
    file.commit();
}

AtomicFileWriter::AtomicFileWriter(std::string path)
    : target_(std::move(path)), temp_path_(target_ + ".tmp.XXXXXX") {
    std::vector<char> name(temp_path_.begin(), temp_path_.end());
    name.push_back('\0');
    fd_ = ::mkstemp(name.data());
    if (fd_ < 0) io_error("cannot create a temp file for", target_, errno);
    temp_path_.assign(name.data());
}

AtomicFileWriter::~AtomicFileWriter() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(temp_path_.c_str());
}

void AtomicFileWriter::write(const void* data, std::size_t size) {
    if (fd_ < 0) throw Error(ErrorCategory::Internal, "write after commit to " + target_);
    const char* next = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(fd_, next, size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) io_error("cannot write", temp_path_, errno);
        next += n;
        size -= static_cast<std::size_t>(n);
    }
}

void AtomicFileWriter::commit() {
    if (fd_ < 0) throw Error(ErrorCategory::Internal, "second commit of " + target_);
    if (::fchmod(fd_, 0644) != 0) io_error("cannot chmod", temp_path_, errno);
    if (::fsync(fd_) != 0) io_error("cannot fsync", temp_path_, errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) io_error("cannot close", temp_path_, errno);
    if (::rename(temp_path_.c_str(), target_.c_str()) != 0)
        io_error("cannot rename onto", target_, errno);
    committed_ = true;
    const std::string dir = parent_directory(target_);
    const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dir_fd >= 0) {
        ::fsync(dir_fd);
        ::close(dir_fd);
    }
}

}  // namespace bi::io
