#include "host_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/utf8.hpp"

namespace bi::driver {

namespace {

// The value after "key:" on the first line that starts with key, trimmed.
std::string field_from(const std::string& path, const std::string& key) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const auto start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
    }
    return "";
}

}  // namespace

core::HostRecord describe_host() {
    core::HostRecord host;
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0) host.hostname = core::replace_invalid_utf8(name);
    host.cpu = core::replace_invalid_utf8(field_from("/proc/cpuinfo", "model name"));
    host.n_cpus = static_cast<std::int64_t>(std::thread::hardware_concurrency());
    std::error_code ec;
    const std::filesystem::path nvidia("/proc/driver/nvidia/gpus");
    if (std::filesystem::is_directory(nvidia, ec))
        for (const auto& entry : std::filesystem::directory_iterator(nvidia, ec))
            host.gpus.push_back(core::replace_invalid_utf8(
                field_from((entry.path() / "information").string(), "Model")));
    struct utsname uts {};
    if (::uname(&uts) == 0)
        host.os = core::replace_invalid_utf8(std::string(uts.sysname) + " " + uts.release + " " +
                                             uts.machine);
    if (const char* devices = std::getenv("CUDA_VISIBLE_DEVICES"))
        host.cuda_visible_devices = core::replace_invalid_utf8(devices);
    return host;
}

}  // namespace bi::driver
