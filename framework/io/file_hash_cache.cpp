#include "file_hash_cache.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "core/sha256.hpp"
#include "files.hpp"
#include "json_text.hpp"

namespace bi::io {

namespace {

constexpr std::uint64_t kProgressEvery = 256ULL << 20;

struct FileStamp {
    std::int64_t size = 0;
    std::int64_t mtime_ns = 0;
};

FileStamp stamp_of(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw Error(ErrorCategory::Io, path + ": " + std::strerror(errno));
    return {static_cast<std::int64_t>(st.st_size),
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

core::Json read_cache(const std::string& cache_path) {
    try {
        core::Json cache = parse_json(read_file(cache_path), cache_path);
        if (cache.is_object()) return cache;
    } catch (const Error&) {
        // missing or damaged: start again
    }
    return core::Json::object();
}

}  // namespace

std::string stream_file_sha256(const std::string& path, const HashProgress& progress) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCategory::Io, path + ": cannot be read for hashing");
    const auto total = static_cast<std::uint64_t>(stamp_of(path).size);
    core::Sha256 hash;
    std::vector<char> buffer(1 << 20);
    std::uint64_t done = 0;
    std::uint64_t next_report = kProgressEvery;
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
        hash.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
        done += static_cast<std::uint64_t>(in.gcount());
        if (progress && done >= next_report) {
            progress(done, total);
            next_report += kProgressEvery;
        }
    }
    if (in.bad()) throw Error(ErrorCategory::Io, path + ": read error while hashing");
    if (progress) progress(done, total);
    return hash.hex_digest();
}

CachedHash cached_file_sha256(const std::string& path, const std::string& cache_path,
                              const HashProgress& progress) {
    std::error_code ec;
    const std::string key = std::filesystem::absolute(path, ec).lexically_normal().string();
    const FileStamp stamp = stamp_of(path);
    core::Json cache = read_cache(cache_path);
    if (const core::Json* entry = cache.find(key); entry && entry->is_object()) {
        const core::Json* sha = entry->find("sha256");
        if (entry->int_or("size", -1) == stamp.size &&
            entry->int_or("mtime_ns", -1) == stamp.mtime_ns && sha && sha->is_string())
            return {sha->as_string(), true};
    }
    CachedHash hashed{stream_file_sha256(path, progress), false};
    // A file changed while it was hashed is not cached: the next run hashes it again.
    const FileStamp after = stamp_of(path);
    if (after.size != stamp.size || after.mtime_ns != stamp.mtime_ns) return hashed;
    cache.set(key,
              core::Json::Object{
                  {"size", stamp.size}, {"mtime_ns", stamp.mtime_ns}, {"sha256", hashed.sha256}});
    try {
        write_file_atomically(cache_path, to_json_text(cache, true) + "\n");
    } catch (const Error&) {
        // an unwritable cache costs the next run a re-hash, nothing more
    }
    return hashed;
}

}  // namespace bi::io
