// Whole-file reads, crash-safe atomic writes and lock files that work on a shared (NFS) directory.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

// As read_file, and also a stream: "-" (standard input) or a FIFO (a named pipe, or a shell's
// `<(command)`), read to its end within `deadline` in all and under the same size bound.
// Standard input that is a terminal, directories and devices are still refused. A stream that
// sends nothing, or does not end, by the deadline is bi::Error(Io) naming the path and the
// seconds. `path` "-" is named "standard input" in messages.
std::string read_file_or_stream(const std::string& path, std::uint64_t max_bytes,
                                std::chrono::milliseconds deadline);
// With max_input_bytes() and input_stream_deadline().
std::string read_file_or_stream(const std::string& path);

// How long a stream input may take: BI_INPUT_STREAM_SECONDS (a whole number, at least 1) when
// set, else 60 s. A malformed value is bi::Error(Usage) naming the variable.
std::chrono::milliseconds input_stream_deadline();

// What a non-regular file is, for messages: "a directory", "a FIFO", "a character device"...;
// "a regular file" for one.
std::string file_kind(unsigned mode);

// Refuses, before anything is computed, an output file that could not be written: an empty path,
// a directory, or a path whose directory does not exist. bi::Error(Usage) starting with
// `option` and the path: "--out m.gguf: directory x does not exist". `created_dir`, when set, is
// a directory the command creates before it writes the file (run-live's --out-dir), so it counts
// as existing.
void check_output_file(const std::string& path, const std::string& option,
                       const std::string& created_dir = "");

// Writes through a temp file in the same directory: write, fsync, rename over `path`, fsync the
// directory. A reader sees the old file or the new one, never a partial one. Mode 0644.
void write_file_atomically(const std::string& path, std::string_view content);

// Creates `path` holding `content` (mode `mode`) only if no file of that name exists: false when
// one does; never a partial file. bi::Error(Io) naming the path and the system's reason ("No
// space left on device") when it cannot be written.
bool create_file_atomically(const std::string& path, std::string_view content, mode_t mode = 0644);

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
    // As commit(), with `mode`, but only when the target does not exist yet (a hard link, which
    // the kernel refuses atomically over an existing name): false, and nothing written, if it
    // does.
    bool commit_if_absent(mode_t mode);
    const std::string& target() const { return target_; }

private:
    void finish(mode_t mode);  // chmod, fsync, close the temp file
    void sync_directory() const;

    std::string target_;
    std::string temp_path_;
    int fd_ = -1;
    bool committed_ = false;
};

// How old a lock whose holder cannot be checked (another host, or no readable holder) may get
// before it is taken over: longer than any one cell runs.
inline constexpr std::chrono::seconds kDefaultStaleLockAfter{24 * 3600};

// What a lock file says about its holder: "host=H\npid=P\npid_start=T\nstart=S\n", where
// pid_start is the holder's start time in clock ticks after boot (/proc/PID/stat, so a reused PID
// is told apart) and start the Unix time the lock was taken.
struct LockHolder {
    std::string host;
    long long pid = 0;
    std::string pid_start;
    long long start = 0;
};

// The holder a lock file names; nullopt when the file is absent or does not name one.
std::optional<LockHolder> read_lock_holder(const std::string& path);

// Why a lock is stale, or "" while its holder may still run: a holder on this host whose PID is
// gone or now belongs to another process, or a lock older than `stale_after` (the only test
// for a holder on another host). `now` is Unix seconds.
std::string lock_staleness(const LockHolder& holder, const std::string& this_host, long long now,
                           std::chrono::seconds stale_after);

// The file beside every lock whose flock serialises the locks of its directory (FileLock).
inline constexpr std::string_view kLockGuardName = ".bi-lock-guard";

// An exclusive lock on `path`, held for the object's life, that works on NFS: the file is
// created with O_CREAT|O_EXCL and names its holder (LockHolder); it is removed on release.
// try_lock() returns nullptr while another live holder has it, with `holder` set to its PID (on
// this host) or "PID on HOST since TIME". A stale lock (lock_staleness) is taken over: removed
// and taken anew; `took_over`, when given, then says whose it was. Looking, taking over and
// releasing all happen under an flock on kLockGuardName in the same directory, so two takers of
// one stale lock never both hold it. Failures to create the file are bi::Error(Io) naming it.
class FileLock {
public:
    static std::unique_ptr<FileLock> try_lock(
        const std::string& path, std::string& holder,
        std::chrono::seconds stale_after = kDefaultStaleLockAfter,
        std::string* took_over = nullptr);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    const std::string& path() const { return path_; }

private:
    FileLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
    std::string path_;
    int fd_;
};

// This host's name as lock files record it.
std::string lock_host_name();

}  // namespace bi::io
