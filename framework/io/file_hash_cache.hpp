// Whole-file sha256, streamed, with a cache file keyed by (path, size, mtime) so that a model of
// tens of GB is hashed once per output directory rather than once per run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace bi::io {

// Called while hashing with the bytes done so far and the file's size.
using HashProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

// sha256 hex of the whole file; throws bi::Error(Io) naming the file when it cannot be read.
// `progress` is called about every 256 MiB and once at the end.
std::string stream_file_sha256(const std::string& path, const HashProgress& progress = {});

struct CachedHash {
    std::string sha256;
    bool from_cache = false;  // for a directory: every file's hash came from the cache
};

// The hash from `cache_path` (a JSON file of entries by absolute path) when its size and mtime
// still match the file, else streamed and stored there (atomically; a cache that cannot be read
// or written is ignored, never an error).
CachedHash cached_file_sha256(const std::string& path, const std::string& cache_path,
                              const HashProgress& progress = {});

// sha256 hex of a directory's manifest: one line "SHA256  RELATIVE/PATH\n" per regular file
// below it (symbolic links followed), sorted by path; each file's hash is cached in
// `cache_path` as cached_file_sha256() does ("": no cache). `progress` counts the bytes of
// every file hashed. Throws bi::Error(Io) naming what cannot be listed or read.
CachedHash directory_manifest_sha256(const std::string& directory,
                                     const std::string& cache_path = "",
                                     const HashProgress& progress = {});

}  // namespace bi::io
