#include "files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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

std::chrono::milliseconds input_stream_deadline() {
    static constexpr const char* kVariable = "BI_INPUT_STREAM_SECONDS";
    const char* text = std::getenv(kVariable);
    if (!text || !*text) return std::chrono::seconds(60);
    std::uint64_t value = 0;
    const char* end = text + std::strlen(text);
    const auto [stop, err] = std::from_chars(text, end, value);
    if (err != std::errc() || stop != end || value == 0 || value > 86400)
        throw Error(ErrorCategory::Usage, std::string(kVariable) + "=" + text +
                                              ": expected a whole number of seconds, 1 to 86400");
    return std::chrono::seconds(value);
}

std::string read_file_or_stream(const std::string& path) {
    return read_file_or_stream(path, max_input_bytes(), input_stream_deadline());
}

std::string read_file_or_stream(const std::string& path, std::uint64_t max_bytes,
                                std::chrono::milliseconds deadline) {
    const bool standard_input = path == "-";
    const std::string name = standard_input ? "standard input" : path;
    struct stat st {};
    if (standard_input) {
        if (::fstat(STDIN_FILENO, &st) != 0) io_error("cannot read", name, errno);
        if (::isatty(STDIN_FILENO))
            throw Error(ErrorCategory::Io,
                        "cannot read standard input: it is a terminal; pipe or redirect the "
                        "work-set into it");
    } else if (::stat(path.c_str(), &st) != 0) {
        io_error("cannot read", path, errno);
    }
    if (S_ISREG(st.st_mode) && !standard_input) return read_file(path, max_bytes);
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
        throw Error(ErrorCategory::Io, "cannot read " + name + ": it is " + file_kind(st.st_mode) +
                                           "; only regular files and streams are read");
    // O_NONBLOCK: neither the open nor a read waits past the deadline; poll() does the waiting.
    int fd = STDIN_FILENO;
    if (!standard_input) {
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) io_error("cannot read", path, errno);
    }
    struct Closer {
        int fd;
        bool own;
        ~Closer() {
            if (own) ::close(fd);
        }
    } closer{fd, !standard_input};
    const int flags = ::fcntl(fd, F_GETFL);
    const bool was_blocking = flags >= 0 && !(flags & O_NONBLOCK);
    if (was_blocking) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    struct Restore {
        int fd, flags;
        bool restore;
        ~Restore() {
            if (restore) ::fcntl(fd, F_SETFL, flags);
        }
    } restore{fd, flags, was_blocking};

    const auto until = std::chrono::steady_clock::now() + deadline;
    std::ostringstream seconds_text;
    seconds_text << static_cast<double>(deadline.count()) / 1000.0;
    const std::string seconds = seconds_text.str();
    std::string content;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n > 0) {
            if (content.size() + static_cast<std::size_t>(n) > max_bytes)
                throw Error(ErrorCategory::Io, "cannot read " + name +
                                                   ": larger than the limit of " +
                                                   std::to_string(max_bytes) +
                                                   " bytes for an input file (BI_MAX_INPUT_BYTES)");
            content.append(buffer, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) io_error("cannot read", name, errno);
        // n == 0 is the end, except on a FIFO no writer has opened yet: poll() then reports
        // neither data nor a hang-up until one does.
        pollfd waiting{fd, POLLIN, 0};
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            until - std::chrono::steady_clock::now());
        if (n == 0 && (content.size() > 0 || !S_ISFIFO(st.st_mode))) break;
        if (left.count() <= 0)
            throw Error(ErrorCategory::Io, "cannot read " + name + ": no end within " + seconds +
                                               " s (BI_INPUT_STREAM_SECONDS)");
        const int ready =
            ::poll(&waiting, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) io_error("cannot read", name, errno);
        if (ready > 0 && n == 0 && (waiting.revents & POLLHUP) && !(waiting.revents & POLLIN))
            break;  // a writer came and went without a byte: empty
    }
    return content;
}

void check_output_file(const std::string& path, const std::string& option,
                       const std::string& created_dir) {
    const auto usage = [&](const std::string& what) {
        throw Error(ErrorCategory::Usage, option + " " + path + what);
    };
    if (path.empty()) throw Error(ErrorCategory::Usage, option + " is empty");
    std::error_code ec;
    if (path.back() == '/' || std::filesystem::is_directory(path, ec)) usage(" is a directory");
    const auto parent = std::filesystem::absolute(path, ec).parent_path().lexically_normal();
    const auto created = created_dir.empty()
                             ? std::filesystem::path()
                             : std::filesystem::absolute(created_dir, ec).lexically_normal();
    const auto bare = [](const std::filesystem::path& p) {  // "dir/" as "dir"
        return p.has_filename() ? p : p.parent_path();
    };
    if (!std::filesystem::is_directory(parent, ec) &&
        !(!created.empty() && bare(parent) == bare(created)))
        usage(": directory " + parent.string() + " does not exist");
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
        if (n < 0) io_error("cannot write", target_, errno);
        next += n;
        size -= static_cast<std::size_t>(n);
    }
}

void AtomicFileWriter::finish(mode_t mode) {
    if (fd_ < 0) throw Error(ErrorCategory::Internal, "second commit of " + target_);
    if (::fchmod(fd_, mode) != 0) io_error("cannot chmod", temp_path_, errno);
    if (::fsync(fd_) != 0) io_error("cannot fsync", temp_path_, errno);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) io_error("cannot close", temp_path_, errno);
}

void AtomicFileWriter::commit() {
    finish(0644);
    if (::rename(temp_path_.c_str(), target_.c_str()) != 0)
        io_error("cannot rename onto", target_, errno);
    committed_ = true;
    sync_directory();
}

bool AtomicFileWriter::commit_if_absent(mode_t mode) {
    finish(mode);
    if (::link(temp_path_.c_str(), target_.c_str()) != 0) {
        if (errno == EEXIST) return false;  // the destructor removes the temp file
        io_error("cannot create", target_, errno);
    }
    ::unlink(temp_path_.c_str());
    committed_ = true;
    sync_directory();
    return true;
}

bool create_file_atomically(const std::string& path, std::string_view content, mode_t mode) {
    AtomicFileWriter file(path);
    file.write(content);
    return file.commit_if_absent(mode);
}

void AtomicFileWriter::sync_directory() const {
    const std::string dir = parent_directory(target_);
    const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    if (dir_fd >= 0) {
        ::fsync(dir_fd);
        ::close(dir_fd);
    }
}

std::string lock_host_name() {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0) return "unknown-host";
    return name;
}

namespace {

// Field 22 of /proc/PID/stat: when the process started, in clock ticks after boot; "" if gone.
std::string process_start_ticks(long long pid) {
    std::string stat;
    try {
        stat = read_file("/proc/" + std::to_string(pid) + "/stat", 1 << 16);
    } catch (const Error&) {
        return "";
    }
    auto pos = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (pos == std::string::npos) return "";
    int field = 2;
    while (field < 22 && pos != std::string::npos) {
        pos = stat.find(' ', pos + 1);
        ++field;
    }
    if (pos == std::string::npos) return "";
    const auto end = stat.find(' ', pos + 1);
    return stat.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
}

bool process_exists(long long pid) {
    if (pid <= 0 || pid > 0x7fffffff) return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

long long unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string read_small(const std::string& path, bool& absent) {
    absent = false;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        absent = errno == ENOENT;
        return "";
    }
    char text[512] = {};
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    ::close(fd);
    return std::string(text, n > 0 ? static_cast<std::size_t>(n) : 0);
}

std::optional<LockHolder> parse_holder(const std::string& text) {
    LockHolder holder;
    bool has_pid = false;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        const auto equals = line.find('=');
        if (equals == std::string::npos) continue;
        const std::string key = line.substr(0, equals);
        const std::string value = line.substr(equals + 1);
        long long number = 0;
        const auto [stop, err] = std::from_chars(value.data(), value.data() + value.size(), number);
        const bool numeric = err == std::errc() && stop == value.data() + value.size();
        if (key == "host") holder.host = value;
        if (key == "pid_start") holder.pid_start = value;
        if (key == "pid" && numeric) {
            holder.pid = number;
            has_pid = true;
        }
        if (key == "start" && numeric) holder.start = number;
    }
    if (!has_pid || holder.host.empty()) return std::nullopt;
    return holder;
}

std::string describe_holder(const LockHolder& holder, const std::string& this_host) {
    if (holder.host == this_host) return std::to_string(holder.pid);
    return std::to_string(holder.pid) + " on " + holder.host + " since unix time " +
           std::to_string(holder.start);
}

// A file with no holder in it is either being written this instant or left half-written by a
// crash: it is stale once it has not changed for this long.
constexpr long long kUnnamedLockGraceSeconds = 30;

// Every look at, take-over and release of a lock in one directory happens while holding an
// exclusive flock(2) on this file beside it, so judging a lock stale and replacing it is one
// step that no other bi-run can interleave with (flock reaches NFS servers as a POSIX lock, and
// the kernel drops it with the process). The guard file is never removed: removing it would let
// two processes hold guards on two different files of one name.
class DirectoryGuard {
public:
    explicit DirectoryGuard(const std::string& lock_path)
        : path_(parent_directory(lock_path) + "/" + std::string(kLockGuardName)) {
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        // A directory that cannot hold the guard cannot hold the lock either.
        if (fd_ < 0) io_error("cannot create the lock file", lock_path, errno);
        while (::flock(fd_, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd_);
            io_error("cannot lock the lock guard", path_, err);
        }
    }
    ~DirectoryGuard() { ::close(fd_); }  // closing the last descriptor releases the flock
    DirectoryGuard(const DirectoryGuard&) = delete;
    DirectoryGuard& operator=(const DirectoryGuard&) = delete;

private:
    std::string path_;
    int fd_ = -1;
};

}  // namespace

std::optional<LockHolder> read_lock_holder(const std::string& path) {
    bool absent = false;
    return parse_holder(read_small(path, absent));
}

std::string lock_staleness(const LockHolder& holder, const std::string& this_host, long long now,
                           std::chrono::seconds stale_after) {
    if (holder.host == this_host) {
        if (!process_exists(holder.pid))
            return "pid " + std::to_string(holder.pid) + " is not running on " + this_host;
        const std::string ticks = process_start_ticks(holder.pid);
        if (!holder.pid_start.empty() && !ticks.empty() && ticks != holder.pid_start)
            return "pid " + std::to_string(holder.pid) + " now belongs to another process";
    }
    if (now - holder.start > stale_after.count())
        return "taken at unix time " + std::to_string(holder.start) + ", more than " +
               std::to_string(stale_after.count()) + " s ago";
    return "";
}

std::unique_ptr<FileLock> FileLock::try_lock(const std::string& path, std::string& holder,
                                             std::chrono::seconds stale_after,
                                             std::string* took_over) {
    const std::string host = lock_host_name();
    const DirectoryGuard guard(path);
    // Each round either takes the lock, finds a live holder, or removes one stale file; a
    // second round is enough unless a process outside the guard keeps writing the name.
    for (int round = 0; round < 16; ++round) {
        const int fd =
            ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd >= 0) {
            const std::string content = "host=" + host + "\npid=" + std::to_string(::getpid()) +
                                        "\npid_start=" + process_start_ticks(::getpid()) +
                                        "\nstart=" + std::to_string(unix_now()) + "\n";
            if (::pwrite(fd, content.data(), content.size(), 0) !=
                    static_cast<ssize_t>(content.size()) ||
                ::fsync(fd) != 0) {
                const int err = errno;
                ::unlink(path.c_str());
                ::close(fd);
                io_error("cannot write", path, err);
            }
            return std::unique_ptr<FileLock>(new FileLock(path, fd));
        }
        if (errno != EEXIST) io_error("cannot create the lock file", path, errno);

        bool absent = false;
        const std::string text = read_small(path, absent);
        if (absent) continue;  // released between our open and our read
        const auto named = parse_holder(text);
        std::string why;
        if (named) {
            why = lock_staleness(*named, host, unix_now(), stale_after);
        } else {
            struct stat st {};
            if (::stat(path.c_str(), &st) != 0) continue;
            if (unix_now() - st.st_mtime > kUnnamedLockGraceSeconds)
                why = "it names no holder and has not changed for " +
                      std::to_string(kUnnamedLockGraceSeconds) + " s";
        }
        if (why.empty()) {
            holder = named ? describe_holder(*named, host) : std::string();
            return nullptr;
        }
        // Under the guard nobody else judges or replaces it meanwhile: remove it and lock anew.
        if (::unlink(path.c_str()) != 0 && errno != ENOENT)
            io_error("cannot take over the stale lock", path, errno);
        if (took_over)
            *took_over = "took over the stale lock " + path + " (" +
                         (named ? "held by pid " + describe_holder(*named, host) + ": " : "") +
                         why + ")";
    }
    throw Error(ErrorCategory::Io,
                "cannot lock " + path + ": the lock file keeps changing under its guard");
}

FileLock::~FileLock() {
    // Only the file this object created is removed: a holder that judged it stale and took it
    // over owns the name now. The guard makes the check and the removal one step.
    std::optional<DirectoryGuard> guard;
    try {
        guard.emplace(path_);
    } catch (const Error&) {
        // no guard (the directory went away): the inode check below still applies
    }
    struct stat held {
    }, named{};
    if (::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev)
        ::unlink(path_.c_str());
    ::close(fd_);
}

}  // namespace bi::io
