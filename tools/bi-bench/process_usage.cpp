#include "process_usage.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace bi::bench {

namespace {

double seconds_of(const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

long status_field_kib(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::string prefix = std::string(field) + ":";
    while (std::getline(in, line)) {
        if (line.rfind(prefix, 0) != 0) continue;
        return std::strtol(line.c_str() + prefix.size(), nullptr, 10);
    }
    return 0;
}

}  // namespace

double process_cpu_seconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
}

std::optional<double> other_process_cpu_seconds(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(in, text)) return std::nullopt;
    // The command name (field 2) may hold spaces; fields are counted after its closing ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    unsigned long long utime = 0;
    unsigned long long stime = 0;
    // After ')' come field 3 (state) onwards; utime and stime are fields 14 and 15.
    for (int index = 3; index <= 15 && fields >> field; ++index) {
        if (index == 14) utime = std::stoull(field);
        if (index == 15) stime = std::stoull(field);
    }
    const long ticks = ::sysconf(_SC_CLK_TCK);
    if (ticks <= 0) return std::nullopt;
    return static_cast<double>(utime + stime) / static_cast<double>(ticks);
}

long peak_rss_kib() {
    return status_field_kib("VmHWM");
}

long current_rss_kib() {
    return status_field_kib("VmRSS");
}

std::array<double, 3> load_average() {
    std::array<double, 3> load{0.0, 0.0, 0.0};
    if (::getloadavg(load.data(), 3) != 3) load = {0.0, 0.0, 0.0};
    return load;
}

int online_cpus() {
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? static_cast<int>(n) : 1;
}

}  // namespace bi::bench
