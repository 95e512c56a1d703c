#include "guards.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/run_request.hpp"
#include "core/text.hpp"

namespace bi::server {

namespace {

[[noreturn]] void refuse(const std::string& message) {
    throw Error(ErrorCategory::Guard, message);
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Binds 127.0.0.1:port (0 = any); returns the bound port or 0 on failure.
std::uint16_t try_bind(std::uint16_t port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::uint16_t bound = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        socklen_t size = sizeof address;
        if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0)
            bound = ntohs(address.sin_port);
    }
    ::close(fd);
    return bound;
}

}  // namespace

std::string format_gib(std::uint64_t bytes) {
    return core::format_fixed(static_cast<double>(bytes) / kGiB, 2) + " GiB";
}

std::string format_size(std::uint64_t bytes) {
    if (bytes < 1000) return std::to_string(bytes) + " bytes";
    constexpr const char* kUnits[] = {"kB", "MB", "GB", "TB", "PB"};
    double value = static_cast<double>(bytes) / 1000.0;
    std::size_t unit = 0;
    // 999.96 kB would print as "1000.0 kB": it is 1.0 MB.
    while (value >= 999.95 && unit + 1 < std::size(kUnits)) {
        value /= 1000.0;
        ++unit;
    }
    return core::format_fixed(value, 1) + " " + kUnits[unit];
}

namespace {

// Bytes per K element and per V element of a label ("q8_0", or "q8_0/f16" for K/V).
std::optional<std::pair<double, double>> kv_element_sizes(const std::string& kv_label) {
    const auto slash = kv_label.find('/');
    if (slash == std::string::npos) {
        const auto size = kv_bytes_per_element(kv_label);
        if (!size) return std::nullopt;
        return std::pair{*size, *size};
    }
    const auto k = kv_bytes_per_element(kv_label.substr(0, slash));
    const auto v = kv_bytes_per_element(kv_label.substr(slash + 1));
    if (!k || !v) return std::nullopt;
    return std::pair{*k, *v};
}

}  // namespace

std::optional<double> kv_bytes_per_element(const std::string& kv_label) {
    if (kv_label.find('/') != std::string::npos) {
        const auto sizes = kv_element_sizes(kv_label);
        if (!sizes) return std::nullopt;
        return (sizes->first + sizes->second) / 2.0;
    }
    static const std::pair<const char*, double> kSizes[] = {
        {"f32", 4.0},        {"f16", 2.0},        {"bf16", 2.0},
        {"q8_0", 34.0 / 32}, {"q5_1", 24.0 / 32}, {"q5_0", 22.0 / 32},
        {"q4_1", 20.0 / 32}, {"q4_0", 18.0 / 32}, {"iq4_nl", 18.0 / 32}};
    for (const auto& [name, size] : kSizes)
        if (kv_label == name) return size;
    return std::nullopt;
}

std::optional<KvCache> kv_cache_from_flags(const core::KindFlags& names,
                                           const std::vector<std::string>& flags) {
    const auto named = [](const std::vector<std::string>& list, const std::string& name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    std::optional<std::string> k, v;
    for (std::size_t i = 0; i < flags.size(); ++i) {
        const std::string& token = flags[i];
        const auto eq = token.find('=');
        const std::string name = token.substr(0, eq);
        const bool is_k = named(names.kv_cache_type_k, name);
        const bool is_v = named(names.kv_cache_type_v, name);
        if (!is_k && !is_v) continue;
        std::string value;
        if (eq != std::string::npos)
            value = token.substr(eq + 1);
        else if (i + 1 < flags.size())
            value = flags[++i];
        if (!kv_bytes_per_element(value))
            throw Error(ErrorCategory::Usage,
                        "--server-flag " + name + " " + value + ": unknown KV cache type");
        (is_k ? k : v) = value;
    }
    if (!k && !v) return std::nullopt;
    const std::string key = k.value_or(std::string(core::kDefaultKvLabel));
    const std::string value = v.value_or(std::string(core::kDefaultKvLabel));
    KvCache cache;
    cache.types = key == value ? key : key + "/" + value;
    cache.label = !v || key == value ? key : key + "/" + value;
    return cache;
}

std::optional<std::string> kv_cache_type_from_flag(const core::KindFlags& names,
                                                   const std::vector<std::string>& flags) {
    std::optional<std::string> value;
    for (std::size_t i = 0; i < flags.size(); ++i) {
        const auto eq = flags[i].find('=');
        const std::string name = flags[i].substr(0, eq);
        if (std::find(names.kv_cache_type.begin(), names.kv_cache_type.end(), name) ==
            names.kv_cache_type.end())
            continue;
        if (eq != std::string::npos)
            value = flags[i].substr(eq + 1);
        else if (i + 1 < flags.size())
            value = flags[++i];
        else
            value = "";
    }
    return value;
}

Footprint project_footprint(const ModelFacts& model, std::int64_t ctx_total,
                            const std::string& kv_label) {
    Footprint f;
    f.model_bytes = model.file_bytes;
    f.overhead_bytes = (256ull << 20) + model.file_bytes / 20;
    const auto [k_element, v_element] = kv_element_sizes(kv_label).value_or(std::pair{2.0, 2.0});
    if (model.has_shape()) {
        const double head_dim =
            static_cast<double>(*model.n_embd) / static_cast<double>(*model.n_head);
        const double n_head_kv = static_cast<double>(model.n_head_kv.value_or(*model.n_head));
        const double k_width = static_cast<double>(model.key_length.value_or(0)) > 0
                                   ? static_cast<double>(*model.key_length) * n_head_kv
                                   : head_dim * n_head_kv;
        const double v_width = static_cast<double>(model.value_length.value_or(0)) > 0
                                   ? static_cast<double>(*model.value_length) * n_head_kv
                                   : head_dim * n_head_kv;
        f.kv_bytes = static_cast<std::uint64_t>(static_cast<double>(*model.n_layer) *
                                                static_cast<double>(ctx_total) *
                                                (k_width * k_element + v_width * v_element));
        f.kv_estimated_from_shape = true;
    } else {
        f.kv_bytes = static_cast<std::uint64_t>(static_cast<double>(model.file_bytes) *
                                                static_cast<double>(ctx_total) / 8192.0 *
                                                (k_element + v_element) / 4.0);
    }
    return f;
}

std::optional<std::uint64_t> mem_available_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    return std::nullopt;
}

void check_footprint(const Footprint& footprint, const GuardLimits& limits,
                     std::optional<std::uint64_t> mem_available) {
    const auto total = footprint.total();
    if (limits.max_footprint_gb && static_cast<double>(total) > *limits.max_footprint_gb * kGiB)
        refuse("projected footprint " + format_gib(total) + " exceeds --max-footprint-gb " +
               std::to_string(*limits.max_footprint_gb).substr(0, 6));
    if (mem_available && total > *mem_available)
        refuse("projected footprint " + format_gib(total) + " exceeds MemAvailable " +
               format_gib(*mem_available) + " (/proc/meminfo)");
}

void check_context_without_shape(const ModelFacts& model, std::int64_t ctx_total) {
    if (model.has_shape() || ctx_total <= kMaxContextWithoutShape) return;
    refuse("model " + model.path +
           ": its GGUF shape (layers, heads) is unreadable, so the KV "
           "cache of ctx x N = " +
           std::to_string(ctx_total) + " tokens cannot be projected; without a shape at most " +
           std::to_string(kMaxContextWithoutShape) + " tokens are allowed");
}

void check_binary(const std::string& path) {
    struct stat st {};
    if (path.empty()) refuse("no server binary given (--server-bin or the profile's server_bin)");
    if (::stat(path.c_str(), &st) != 0) refuse("server binary " + path + ": not found");
    if (!S_ISREG(st.st_mode)) refuse("server binary " + path + ": not a regular file");
    if (::access(path.c_str(), X_OK) != 0) refuse("server binary " + path + ": not executable");
}

void check_model(const std::string& path) {
    struct stat st {};
    if (path.empty()) refuse("no model given (--model or the profile's gguf)");
    if (::stat(path.c_str(), &st) != 0) refuse("model " + path + ": not found");
    if (!S_ISREG(st.st_mode)) refuse("model " + path + ": not a regular file");
    if (::access(path.c_str(), R_OK) != 0) refuse("model " + path + ": not readable");
}

void check_model_directory(const std::string& model) {
    if (model.empty()) refuse("no model given (--model or the profile's gguf)");
    struct stat st {};
    if (::stat(model.c_str(), &st) != 0) refuse("model " + model + ": not found");
    if (!S_ISDIR(st.st_mode)) refuse("model " + model + ": not a directory (this kind takes one)");
    if (::access(model.c_str(), R_OK | X_OK) != 0) refuse("model " + model + ": not readable");
}

bool is_reserved(std::uint16_t port, const GuardLimits& limits) {
    return std::find(limits.reserved_ports.begin(), limits.reserved_ports.end(), port) !=
           limits.reserved_ports.end();
}

bool port_is_free(std::uint16_t port) {
    return try_bind(port) == port;
}

std::pair<std::uint16_t, std::uint16_t> ephemeral_port_range(const std::string& path) {
    std::ifstream in(path);
    long low = 0;
    long high = 0;
    if (in >> low >> high && 0 < low && low <= high && high <= 65535)
        return {static_cast<std::uint16_t>(low), static_cast<std::uint16_t>(high)};
    return {32768, 60999};  // Linux's default
}

std::vector<std::uint16_t> server_port_candidates(
    std::pair<std::uint16_t, std::uint16_t> ephemeral) {
    constexpr std::uint32_t kFirst = 20000;
    constexpr std::uint32_t kMinimum = 2000;  // fewer than this outside the range: use it all
    std::vector<std::uint16_t> ports;
    for (std::uint32_t port = kFirst; port <= 65535; ++port)
        if (port < ephemeral.first || port > ephemeral.second)
            ports.push_back(static_cast<std::uint16_t>(port));
    if (ports.size() >= kMinimum) return ports;
    ports.clear();
    for (std::uint32_t port = kFirst; port <= 65535; ++port)
        ports.push_back(static_cast<std::uint16_t>(port));
    return ports;
}

std::uint16_t pick_free_port(const GuardLimits& limits) {
    // Candidates are chosen here rather than by the kernel (port 0), so a reserved port is never
    // bound, not even for the instant of a probe. They lie outside the kernel's ephemeral range:
    // a port found free there can be handed to some other process's outgoing connection before
    // the server binds it, and the server then dies at start for no fault of its own.
    static const std::vector<std::uint16_t> candidates =
        server_port_candidates(ephemeral_port_range("/proc/sys/net/ipv4/ip_local_port_range"));
    const auto count = static_cast<std::uint32_t>(candidates.size());
    // The pid is mixed in 32 bits on purpose (Knuth's multiplicative hash wraps).
    const std::uint32_t pid_mix = static_cast<std::uint32_t>(::getpid()) * 2654435761u;
    const auto start = static_cast<std::uint32_t>(
        std::chrono::steady_clock::now().time_since_epoch().count() ^ pid_mix);
    for (std::uint32_t attempt = 0; attempt < 512; ++attempt) {
        const std::uint16_t port = candidates[(start + attempt * 7919u) % count];
        if (!is_reserved(port, limits) && try_bind(port) == port) return port;
    }
    refuse("could not find a free loopback port");
}

void check_port(std::uint16_t port, const GuardLimits& limits) {
    if (port == 0) refuse("--port 0 is not a port; leave --port out to pick a free one");
    if (is_reserved(port, limits)) refuse("--port " + std::to_string(port) + " is reserved");
    if (!port_is_free(port))
        refuse("--port " + std::to_string(port) +
               " is busy on 127.0.0.1 (something listens there)");
}

}  // namespace bi::server
