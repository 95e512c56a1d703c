#include "built_paths.hpp"

#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

namespace bi::testing {

namespace {

std::filesystem::path bin_dir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
    return exe.parent_path();
}

// Interned paths: a std::set node never moves, so its c_str() stays valid.
const char* interned(const std::string& path) {
    static std::mutex mutex;
    static std::set<std::string> paths;
    const std::lock_guard<std::mutex> lock(mutex);
    return paths.insert(path).first->c_str();
}

}  // namespace

const char* built_file(const char* name) {
    return interned((bin_dir() / name).string());
}

const char* build_path(const char* relative) {
    return interned((bin_dir().parent_path() / relative).lexically_normal().string());
}

}  // namespace bi::testing
