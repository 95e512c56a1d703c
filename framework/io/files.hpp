// Whole-file reads and crash-safe atomic writes.
#pragma once

#include <string>
#include <string_view>

namespace bi::io {

// Reads a whole file; bi::Error(Io) "cannot read PATH: reason" on failure.
std::string read_file(const std::string& path);

// Writes through a temp file in the same directory: write, fsync, rename over `path`, fsync the
// directory. A reader sees the old file or the new one, never a partial one. Mode 0644.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace bi::io
