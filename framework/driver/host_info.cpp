#include "host_info.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "core/utf8.hpp"
#include "server/command_output.hpp"

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

std::string trimmed(const std::string& text) {
    const auto start = text.find_first_not_of(" \t\r\n");
    if (start == std::string::npos) return "";
    return text.substr(start, text.find_last_not_of(" \t\r\n") - start + 1);
}

// "NAME, DRIVER" lines of nvidia-smi's CSV query; false when it is absent or says nothing.
bool gpus_from_nvidia_smi(core::HostRecord& host) {
    const auto output = server::command_output(
        {"nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"},
        std::chrono::seconds(10));
    if (!output) return false;
    std::size_t start = 0;
    while (start < output->size()) {
        auto end = output->find('\n', start);
        if (end == std::string::npos) end = output->size();
        const std::string line = output->substr(start, end - start);
        start = end + 1;
        const auto comma = line.rfind(',');
        const std::string name = trimmed(comma == std::string::npos ? line : line.substr(0, comma));
        if (name.empty()) continue;
        host.gpus.push_back(name);
        if (comma != std::string::npos) host.gpu_driver = trimmed(line.substr(comma + 1));
    }
    if (host.gpus.empty()) return false;
    host.gpu_source = "nvidia-smi";
    return true;
}

// The kernel driver's own files, for hosts without nvidia-smi.
void gpus_from_proc(core::HostRecord& host) {
    std::error_code ec;
    const std::filesystem::path nvidia("/proc/driver/nvidia/gpus");
    if (!std::filesystem::is_directory(nvidia, ec)) return;
    for (const auto& entry : std::filesystem::directory_iterator(nvidia, ec))
        host.gpus.push_back(core::replace_invalid_utf8(
            field_from((entry.path() / "information").string(), "Model")));
    std::ifstream version("/proc/driver/nvidia/version");
    std::string line;
    if (std::getline(version, line)) host.gpu_driver = core::replace_invalid_utf8(trimmed(line));
    host.gpu_source = "/proc/driver/nvidia";
}

}  // namespace

core::HostRecord describe_host() {
    core::HostRecord host;
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0) host.hostname = core::replace_invalid_utf8(name);
    host.cpu = core::replace_invalid_utf8(field_from("/proc/cpuinfo", "model name"));
    host.n_cpus = static_cast<std::int64_t>(std::thread::hardware_concurrency());
    if (!gpus_from_nvidia_smi(host)) gpus_from_proc(host);
    if (const char* devices = std::getenv("CUDA_VISIBLE_DEVICES"))
        host.cuda_visible_devices = core::replace_invalid_utf8(devices);
    struct utsname uts {};
    if (::uname(&uts) == 0)
        host.os = core::replace_invalid_utf8(std::string(uts.sysname) + " " + uts.release + " " +
                                             uts.machine);
    return host;
}

}  // namespace bi::driver
