#include "gpu_memory.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "command_output.hpp"
#include "core/error.hpp"
#include "core/fixed_text.hpp"

namespace bi::server {

namespace {

// nvidia-smi answers in well under a second; a wedged driver must not hold the run.
constexpr std::chrono::seconds kNvidiaSmiTimeout{10};

}  // namespace

std::optional<std::int64_t> offloaded_layers(const std::vector<std::string>& flags) {
    std::optional<std::string> value;
    for (std::size_t i = 0; i < flags.size(); ++i)
        for (const std::string name : {"-ngl", "--n-gpu-layers", "--gpu-layers"}) {
            if (flags[i] == name && i + 1 < flags.size()) value = flags[i + 1];
            if (flags[i].rfind(name + "=", 0) == 0) value = flags[i].substr(name.size() + 1);
        }
    if (!value) return std::nullopt;
    char* end = nullptr;
    const long long layers = std::strtoll(value->c_str(), &end, 10);
    if (value->empty() || *end != '\0') return std::int64_t{1} << 30;  // "all", "auto": every one
    if (layers <= 0) return std::nullopt;
    return layers;
}

std::uint64_t gpu_part(const Footprint& footprint, const ModelFacts& model, std::int64_t layers) {
    double share = 1.0;
    if (model.n_layer && *model.n_layer > 0)
        share = static_cast<double>(std::min(layers, *model.n_layer)) /
                static_cast<double>(*model.n_layer);
    return static_cast<std::uint64_t>(
               share * static_cast<double>(footprint.model_bytes + footprint.kv_bytes)) +
           footprint.overhead_bytes;
}

std::optional<GpuMemory> gpu_free_memory() {
    return gpu_memory_query("memory.free");
}

std::optional<GpuMemory> gpu_memory_query(const std::string& field) {
    const auto text = command_output(
        {"nvidia-smi", "--query-gpu=" + field, "--format=csv,noheader,nounits"}, kNvidiaSmiTimeout);
    if (!text) return std::nullopt;
    GpuMemory memory;
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
        line.erase(
            std::remove_if(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\r'; }),
            line.end());
        if (line.empty()) continue;
        char* end = nullptr;
        const double mib = std::strtod(line.c_str(), &end);
        if (*end != '\0' || !(mib >= 0)) return std::nullopt;
        memory.free_bytes += static_cast<std::uint64_t>(mib * 1024.0 * 1024.0);
        ++memory.gpus;
    }
    if (memory.gpus == 0) return std::nullopt;
    return memory;
}

std::optional<double> memory_fraction(const std::vector<std::string>& flags,
                                      const std::string& flag, double fallback) {
    if (flag.empty()) return std::nullopt;
    std::optional<std::string> given;
    for (std::size_t i = 0; i < flags.size(); ++i) {
        if (flags[i] == flag && i + 1 < flags.size())
            given = flags[i + 1];
        else if (flags[i].rfind(flag + "=", 0) == 0)
            given = flags[i].substr(flag.size() + 1);
    }
    if (!given) return fallback > 0.0 ? std::optional<double>(fallback) : std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(given->c_str(), &end);
    if (given->empty() || *end != '\0' || !(value > 0.0 && value <= 1.0))
        throw Error(ErrorCategory::Usage,
                    "--server-flag " + flag + " " + *given + ": not a fraction in (0, 1]");
    return value;
}

void check_memory_fraction(double fraction, const std::string& flag, const GpuMemory& total,
                           const GpuMemory& free) {
    const auto wanted =
        static_cast<std::uint64_t>(fraction * static_cast<double>(total.free_bytes));
    if (wanted <= free.free_bytes) return;
    throw Error(ErrorCategory::Guard,
                flag + " " + core::format_fixed(fraction, 2) + " preallocates " +
                    format_gib(wanted) + " of " + format_gib(total.free_bytes) +
                    " GPU memory, but only " + format_gib(free.free_bytes) +
                    " is free (nvidia-smi): lower it with " + "--server-flag=" + flag +
                    " --server-flag=F or free the GPU");
}

void check_gpu_footprint(std::uint64_t gpu_bytes, std::int64_t layers, const GpuMemory& free) {
    if (gpu_bytes <= free.free_bytes) return;
    const std::string offload =
        layers >= (std::int64_t{1} << 30) ? "all layers" : std::to_string(layers) + " layers";
    throw Error(ErrorCategory::Guard, "projected GPU part " + format_gib(gpu_bytes) + " (" +
                                          offload + " offloaded) exceeds free GPU memory " +
                                          format_gib(free.free_bytes) + " (nvidia-smi, " +
                                          std::to_string(free.gpus) + " GPU" +
                                          (free.gpus == 1 ? "" : "s") + ")");
}

}  // namespace bi::server
