#include "temporary_directory.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace bi::io {

std::string make_temporary_directory(const std::string& prefix) {
    std::error_code ec;
    const auto base = std::filesystem::temp_directory_path(ec);
    if (ec) throw Error(ErrorCategory::Io, "no temporary directory: " + ec.message());
    std::string pattern = (base / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
        throw Error(ErrorCategory::Io, pattern + ": cannot be created: " + std::strerror(errno));
    return pattern;
}

TemporaryDirectory::TemporaryDirectory(const std::string& prefix)
    : path_(make_temporary_directory(prefix)) {}

TemporaryDirectory::~TemporaryDirectory() {
    if (kept_) return;
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace bi::io
