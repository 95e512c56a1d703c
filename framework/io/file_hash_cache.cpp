#include "file_hash_cache.hpp"

#include <sys/stat.h>

#include <openssl/evp.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
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

// The entries of one cache file, read once and written back once (atomically) when changed. A
// cache that cannot be read or written is ignored: it costs a re-hash, nothing more.
class HashCache {
public:
    explicit HashCache(std::string path) : path_(std::move(path)) {
        if (!path_.empty()) entries_ = read_cache(path_);
    }

    CachedHash hash(const std::string& file, const HashProgress& progress) {
        std::error_code ec;
        const std::string key = std::filesystem::absolute(file, ec).lexically_normal().string();
        const FileStamp stamp = stamp_of(file);
        if (const core::Json* entry = entries_.find(key); entry && entry->is_object()) {
            const core::Json* sha = entry->find("sha256");
            if (entry->int_or("size", -1) == stamp.size &&
                entry->int_or("mtime_ns", -1) == stamp.mtime_ns && sha && sha->is_string())
                return {sha->as_string(), true};
        }
        CachedHash hashed{stream_file_sha256(file, progress), false};
        // A file changed while it was hashed is not cached: the next run hashes it again.
        const FileStamp after = stamp_of(file);
        if (after.size != stamp.size || after.mtime_ns != stamp.mtime_ns) return hashed;
        entries_.set(key, core::Json::Object{{"size", stamp.size},
                                             {"mtime_ns", stamp.mtime_ns},
                                             {"sha256", hashed.sha256}});
        changed_ = true;
        return hashed;
    }

    void save() {
        if (path_.empty() || !changed_) return;
        try {
            write_file_atomically(path_, to_json_text(entries_, true) + "\n");
        } catch (const Error&) {
            // an unwritable cache costs the next run a re-hash, nothing more
        }
        changed_ = false;
    }

private:
    std::string path_;
    core::Json entries_ = core::Json::object();
    bool changed_ = false;
};

}  // namespace

std::string stream_file_sha256(const std::string& path, const HashProgress& progress) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorCategory::Io, path + ": cannot be read for hashing");
    const auto total = static_cast<std::uint64_t>(stamp_of(path).size);
    // OpenSSL's SHA-256 (the CPU's SHA extensions where present): a 40 GB model in minutes.
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> hash(EVP_MD_CTX_new(),
                                                                 &EVP_MD_CTX_free);
    if (!hash || EVP_DigestInit_ex(hash.get(), EVP_sha256(), nullptr) != 1)
        throw Error(ErrorCategory::Internal, "sha256: OpenSSL could not start a digest");
    std::vector<char> buffer(1 << 20);
    std::uint64_t done = 0;
    std::uint64_t next_report = kProgressEvery;
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
        EVP_DigestUpdate(hash.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
        done += static_cast<std::uint64_t>(in.gcount());
        if (progress && done >= next_report) {
            progress(done, total);
            next_report += kProgressEvery;
        }
    }
    if (in.bad()) throw Error(ErrorCategory::Io, path + ": read error while hashing");
    if (progress) progress(done, total);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(hash.get(), digest, &size);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < size; ++i) {
        hex += kHex[digest[i] >> 4];
        hex += kHex[digest[i] & 15];
    }
    return hex;
}

CachedHash cached_file_sha256(const std::string& path, const std::string& cache_path,
                              const HashProgress& progress) {
    HashCache cache(cache_path);
    CachedHash hashed = cache.hash(path, progress);
    cache.save();
    return hashed;
}

CachedHash directory_manifest_sha256(const std::string& directory, const std::string& cache_path,
                                     const HashProgress& progress) {
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, std::uint64_t>> files;  // relative path, size
    std::error_code ec;
    fs::recursive_directory_iterator it(directory, fs::directory_options::follow_directory_symlink,
                                        ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->is_regular_file(ec))
            files.emplace_back(fs::relative(it->path(), directory).string(), it->file_size(ec));
    if (ec) throw Error(ErrorCategory::Io, directory + ": cannot be listed: " + ec.message());
    std::sort(files.begin(), files.end());
    std::uint64_t total = 0;
    for (const auto& file : files) total += file.second;
    HashCache cache(cache_path);
    std::uint64_t before = 0;  // bytes of the files already hashed
    const HashProgress per_file = [&](std::uint64_t done, std::uint64_t) {
        if (progress) progress(before + done, total);
    };
    std::string manifest;
    bool all_cached = true;
    for (const auto& [file, size] : files) {
        const CachedHash hashed = cache.hash((fs::path(directory) / file).string(), per_file);
        all_cached = all_cached && hashed.from_cache;
        manifest += hashed.sha256 + "  " + file + "\n";
        before += size;
    }
    cache.save();
    return {core::sha256_hex(manifest), all_cached && !files.empty()};
}

}  // namespace bi::io
