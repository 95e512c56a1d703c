#include "files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
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

std::string file_kind(unsigned mode) {
    switch (mode & S_IFMT) {
        case S_IFREG:
            return "a regular file";
        case S_IFDIR:
            return "a directory";
        case S_IFIFO:
            return "a FIFO";
        case S_IFCHR:
            return "a character device";
        case S_IFBLK:
            return "a block device";
        case S_IFSOCK:
            return "a socket";
        default:
            return "not a regular file";
    }
}

std::uint64_t max_input_bytes() {
    static constexpr const char* kVariable = "BI_MAX_INPUT_BYTES";
    const char* text = std::getenv(kVariable);
    if (!text || !*text) return kDefaultMaxInputBytes;
    std::uint64_t value = 0;
    const char* end = text + std::strlen(text);
    const auto [stop, err] = std::from_chars(text, end, value);
    if (err != std::errc() || stop != end || value == 0)
        throw Error(ErrorCategory::Usage, std::string(kVariable) + "=" + text +
                                              ": expected a whole number of bytes, at least 1");
    return value;
}

std::string read_file(const std::string& path) {
    return read_file(path, max_input_bytes());
}

std::string read_file(const std::string& path, std::uint64_t max_bytes) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused just below.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) io_error("cannot read", path, errno);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) io_error("cannot read", path, errno);
    if (!S_ISREG(st.st_mode))
        throw Error(ErrorCategory::Io, "cannot read " + path + ": it is " + file_kind(st.st_mode) +
                                           "; only regular files are read");
    const auto too_large = [&] {
        throw Error(ErrorCategory::Io, "cannot read " + path + ": larger than the limit of " +
                                           std::to_string(max_bytes) +
                                           " bytes for an input file (BI_MAX_INPUT_BYTES)");
    };
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) too_large();
    std::string content;
    content.reserve(static_cast<std::size_t>(st.st_size));
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) io_error("cannot read", path, errno);
        if (n == 0) break;
        if (content.size() + static_cast<std::size_t>(n) > max_bytes) too_large();  // it grew
        content.append(buffer, static_cast<std::size_t>(n));
    }
    return content;
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

std::unique_ptr<FileLock> FileLock::try_lock(const std::string& path, std::string& holder) {
    for (;;) {
        const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) io_error("cannot create the lock file", path, errno);
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            char text[32] = {};
            const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
            ::close(fd);
            if (err != EWOULDBLOCK) io_error("cannot lock", path, err);
            holder.assign(text, n > 0 ? static_cast<std::size_t>(n) : 0);
            while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' '))
                holder.pop_back();
            return nullptr;
        }
        // The holder before us may have removed the file between our open and our flock: then
        // we hold a lock on a name nobody else sees, so start again on the current file.
        struct stat held {
        }, named{};
        if (::fstat(fd, &held) != 0 || ::stat(path.c_str(), &named) != 0 ||
            held.st_ino != named.st_ino || held.st_dev != named.st_dev) {
            ::close(fd);
            continue;
        }
        const std::string pid = std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
            const int err = errno;
            ::close(fd);
            io_error("cannot write", path, err);
        }
        return std::unique_ptr<FileLock>(new FileLock(path, fd));
    }
}

FileLock::~FileLock() {
    ::unlink(path_.c_str());  // while still locked, so no one else holds this name
    ::close(fd_);
}

}  // namespace bi::io
