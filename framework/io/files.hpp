// Whole-file reads and crash-safe atomic writes.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bi::io {

// Reads a whole file; bi::Error(Io) "cannot read PATH: reason" on failure.
std::string read_file(const std::string& path);

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

}  // namespace bi::io
