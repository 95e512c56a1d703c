// Whole-file reads and crash-safe atomic writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace bi::io {

// Largest input document read whole (work-sets, certs, models.toml) unless BI_MAX_INPUT_BYTES
// says otherwise: hundreds of times any real one, and small enough to hold in memory.
inline constexpr std::uint64_t kDefaultMaxInputBytes = 64ull << 20;

// The limit in force: BI_MAX_INPUT_BYTES (a whole number of bytes, at least 1) when set, else
// kDefaultMaxInputBytes. A malformed value is bi::Error(Usage) naming the variable.
std::uint64_t max_input_bytes();

// Reads a whole regular file of at most `max_bytes` bytes. Directories, FIFOs, devices and
// sockets are refused without blocking or reading them ("cannot read PATH: it is a FIFO; only
// regular files are read"), and so is a larger file. Errors are bi::Error(Io) naming the path.
std::string read_file(const std::string& path, std::uint64_t max_bytes);
std::string read_file(const std::string& path);  // with max_input_bytes()

// What a non-regular file is, for messages: "a directory", "a FIFO", "a character device"...;
// "a regular file" for one.
std::string file_kind(unsigned mode);

// Writes through a temp file in the same directory: write, fsync, rename over `path`, fsync the
// directory. A reader sees the old file or the new one, never a partial one. Mode 0644.
void write_file_atomically(const std::string& path, std::string_view content);

// The same guarantee for content streamed in pieces (files too large to hold in memory): appends go
// to a temp file beside `path`; commit() publishes it as write_file_atomically does. Destroyed
// without commit() (an exception on the way), it removes the temp file and leaves `path` untouched.
class AtomicFileWriter {
public:
    explicit AtomicFileWriter(std::string path);
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    void write(const void* data, std::size_t size);
    void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
    void commit();  // chmod 0644, fsync, close, rename over the target, fsync the directory
    const std::string& target() const { return target_; }

private:
    std::string target_;
    std::string temp_path_;
    int fd_ = -1;
    bool committed_ = false;
};

// An exclusive lock on `path`, held for the object's life: the file is created, locked with
// flock() and holds the owner's PID; it is removed on release. try_lock() returns nullptr while
// another process holds it, with `holder` set to what that file says (its PID, or "").
// Failures to create the file are bi::Error(Io) naming it. A lock file left by a killed process
// is not held, so it never blocks a later run.
class FileLock {
public:
    static std::unique_ptr<FileLock> try_lock(const std::string& path, std::string& holder);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    const std::string& path() const { return path_; }

private:
    FileLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
    std::string path_;
    int fd_;
};

}  // namespace bi::io
