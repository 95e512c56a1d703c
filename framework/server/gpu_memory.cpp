#include "gpu_memory.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "command_output.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

namespace bi::server {

namespace {

// nvidia-smi answers in well under a second; a wedged driver must not hold the run.
constexpr std::chrono::seconds kNvidiaSmiTimeout{10};

// The last value of any of `names` in the user's flags ("-sm none" or "-sm=none"); nullopt when
// none is given or the kind has no such flag (no names).
std::optional<std::string> last_flag(const std::vector<std::string>& flags,
                                     const std::vector<std::string>& names) {
    std::optional<std::string> value;
    for (std::size_t i = 0; i < flags.size(); ++i)
        for (const auto& name : names) {
            if (flags[i] == name && i + 1 < flags.size()) value = flags[i + 1];
            if (flags[i].rfind(name + "=", 0) == 0) value = flags[i].substr(name.size() + 1);
        }
    return value;
}

}  // namespace

std::optional<std::int64_t> offloaded_layers(const core::KindFlags& names,
                                             const std::vector<std::string>& flags) {
    const auto value = last_flag(flags, names.gpu_layers);
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

std::optional<std::vector<GpuInfo>> parse_gpu_list(const std::string& text) {
    std::vector<GpuInfo> gpus;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        line.erase(
            std::remove_if(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\r'; }),
            line.end());
        if (line.empty()) continue;
        std::vector<std::string> fields;
        std::istringstream cells(line);
        std::string cell;
        while (std::getline(cells, cell, ',')) fields.push_back(cell);
        if (fields.size() != 4) return std::nullopt;
        GpuInfo gpu;
        char* end = nullptr;
        const long index = std::strtol(fields[0].c_str(), &end, 10);
        if (fields[0].empty() || *end != '\0' || index < 0) return std::nullopt;
        gpu.index = static_cast<int>(index);
        gpu.uuid = fields[1];
        for (const auto& [text_mib, out] :
             {std::pair<const std::string&, std::uint64_t*>{fields[2], &gpu.free_bytes},
              {fields[3], &gpu.total_bytes}}) {
            const double mib = std::strtod(text_mib.c_str(), &end);
            if (text_mib.empty() || *end != '\0' || !(mib >= 0)) return std::nullopt;
            *out = static_cast<std::uint64_t>(mib * 1024.0 * 1024.0);
        }
        gpus.push_back(gpu);
    }
    if (gpus.empty()) return std::nullopt;
    return gpus;
}

std::optional<std::vector<GpuInfo>> list_gpus() {
    const auto text =
        command_output({"nvidia-smi", "--query-gpu=index,uuid,memory.free,memory.total",
                        "--format=csv,noheader,nounits"},
                       kNvidiaSmiTimeout);
    if (!text) return std::nullopt;
    return parse_gpu_list(*text);
}

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, separator)) parts.push_back(part);
    if (!text.empty() && text.back() == separator) parts.emplace_back();
    return parts;
}

std::optional<long> whole_number(const std::string& text) {
    char* end = nullptr;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value < 0) return std::nullopt;
    return value;
}

std::string gpu_names(const std::vector<GpuInfo>& gpus) {
    std::string names;
    for (const auto& gpu : gpus) names += (names.empty() ? "" : ", ") + std::to_string(gpu.index);
    return names;
}

}  // namespace

namespace {

// The GPUs CUDA_VISIBLE_DEVICES lets the server see, in the order it numbers them: indices (in
// PCI bus order, or else read as the fullest GPUs, least free first: CUDA numbers the fastest
// first, which nvidia-smi does not say) or UUID prefixes; CUDA stops at the first entry it cannot
// use or has seen.
std::vector<GpuInfo> visible_gpus(const std::vector<GpuInfo>& all, const std::string& value,
                                  bool bus_order) {
    std::vector<GpuInfo> fullest = all;
    std::stable_sort(fullest.begin(), fullest.end(), [](const GpuInfo& a, const GpuInfo& b) {
        return a.free_bytes < b.free_bytes;
    });
    std::size_t assumed = 0;
    std::vector<GpuInfo> seen;
    const auto was_seen = [&seen](const GpuInfo& gpu) {
        return std::any_of(seen.begin(), seen.end(), [&](const GpuInfo& g) {
            return g.uuid == gpu.uuid && g.index == gpu.index;
        });
    };
    for (const auto& entry : split(value, ',')) {
        const GpuInfo* found = nullptr;
        if (const auto index = whole_number(entry)) {
            if (bus_order) {
                for (const auto& gpu : all)
                    if (gpu.index == *index) found = &gpu;
            } else if (static_cast<std::size_t>(*index) < all.size()) {
                while (assumed < fullest.size() &&
                       std::any_of(seen.begin(), seen.end(), [&](const GpuInfo& g) {
                           return g.index == fullest[assumed].index;
                       }))
                    ++assumed;
                if (assumed < fullest.size()) found = &fullest[assumed++];
            }
        } else if (!entry.empty()) {
            for (const auto& gpu : all)
                if (gpu.uuid.rfind(entry, 0) == 0) found = &gpu;
        }
        if (!found || was_seen(*found)) break;
        seen.push_back(*found);
    }
    return seen;
}

// --device CUDA0,CUDA2 (or none): devices among the visible ones.
std::vector<GpuInfo> named_devices(const std::vector<GpuInfo>& seen, const std::string& devices) {
    std::vector<GpuInfo> chosen;
    if (devices == "none") return chosen;
    for (const auto& name : split(devices, ',')) {
        const auto index = name.rfind("CUDA", 0) == 0 ? whole_number(name.substr(4)) : std::nullopt;
        if (index && static_cast<std::size_t>(*index) < seen.size())
            chosen.push_back(seen[static_cast<std::size_t>(*index)]);
    }
    return chosen;
}

// --tensor-split's shares, one per GPU (0 for one it gives nothing or cannot be read).
std::vector<double> tensor_shares(const std::string& text, std::size_t gpus) {
    const auto parts = split(text, text.find('/') != std::string::npos ? '/' : ',');
    std::vector<double> shares(gpus, 0.0);
    for (std::size_t i = 0; i < gpus && i < parts.size(); ++i) {
        char* end = nullptr;
        const double share = std::strtod(parts[i].c_str(), &end);
        if (!parts[i].empty() && *end == '\0' && share > 0) shares[i] = share;
    }
    return shares;
}

}  // namespace

GpuSelection select_gpus(const std::vector<GpuInfo>& all, const char* visible,
                         const char* device_order, const core::KindFlags& names,
                         const std::vector<std::string>& flags) {
    GpuSelection selection;
    std::vector<GpuInfo> seen = all;
    std::vector<std::string> why;
    if (visible) {
        const bool bus_order = device_order && std::string(device_order) == "PCI_BUS_ID";
        why.push_back(
            std::string("CUDA_VISIBLE_DEVICES=") + visible +
            (bus_order ? "" : " (no CUDA_DEVICE_ORDER=PCI_BUS_ID: the fullest GPUs assumed)"));
        seen = visible_gpus(all, visible, bus_order);
    }
    if (const auto devices = last_flag(flags, names.devices)) {
        why.push_back(names.devices.front() + " " + *devices);
        seen = named_devices(seen, *devices);
    }
    const auto split_mode = last_flag(flags, names.split_mode);
    if (split_mode && *split_mode == "none" && !seen.empty()) {
        const auto main = last_flag(flags, names.main_gpu);
        const auto index = main ? whole_number(*main) : std::optional<long>(0);
        why.push_back(names.split_mode.front() + " none, " +
                      (names.main_gpu.empty() ? std::string("main GPU") : names.main_gpu.front()) +
                      " " + std::to_string(index.value_or(0)));
        if (index && static_cast<std::size_t>(*index) < seen.size())
            seen = {seen[static_cast<std::size_t>(*index)]};
        else
            seen.clear();
    }
    std::vector<double> shares(seen.size(), 1.0);
    if (const auto split_text = last_flag(flags, names.tensor_split);
        split_text && seen.size() > 1) {
        why.push_back(names.tensor_split.front() + " " + *split_text);
        shares = tensor_shares(*split_text, seen.size());
        selection.per_gpu = true;
    }
    double total = 0.0;
    for (const double share : shares) total += share;
    for (std::size_t i = 0; i < seen.size(); ++i) {
        if (shares[i] <= 0.0) continue;
        selection.gpus.push_back(seen[i]);
        selection.shares.push_back(shares[i] / total);
    }
    if (selection.gpus.size() == 1) selection.per_gpu = true;
    for (const auto& part : why) selection.why += (selection.why.empty() ? "" : ", ") + part;
    return selection;
}

GpuMemory selected_free(const GpuSelection& selection) {
    GpuMemory memory;
    for (const auto& gpu : selection.gpus) {
        memory.free_bytes += gpu.free_bytes;
        ++memory.gpus;
    }
    return memory;
}

void check_gpu_footprint(std::uint64_t gpu_bytes, std::int64_t layers,
                         const GpuSelection& selection) {
    const std::string offload =
        layers >= (std::int64_t{1} << 30) ? "all layers" : std::to_string(layers) + " layers";
    const std::string chosen = selection.why.empty() ? "" : "; " + selection.why;
    if (selection.gpus.empty())
        throw Error(ErrorCategory::Guard, "projected GPU part " + format_gib(gpu_bytes) + " (" +
                                              offload + " offloaded), but the server sees no GPU" +
                                              chosen);
    if (selection.per_gpu) {
        for (std::size_t i = 0; i < selection.gpus.size(); ++i) {
            const auto& gpu = selection.gpus[i];
            const auto share =
                static_cast<std::uint64_t>(selection.shares[i] * static_cast<double>(gpu_bytes));
            if (share <= gpu.free_bytes) continue;
            throw Error(ErrorCategory::Guard,
                        "projected GPU part " + format_gib(share) + " on GPU " +
                            std::to_string(gpu.index) + " (" + offload + " offloaded" +
                            (selection.gpus.size() > 1 ? ", its tensor-split share" : "") +
                            ") exceeds its free memory " + format_gib(gpu.free_bytes) +
                            " (nvidia-smi" + chosen + ")");
        }
        return;
    }
    const GpuMemory free = selected_free(selection);
    if (gpu_bytes <= free.free_bytes) return;
    throw Error(ErrorCategory::Guard, "projected GPU part " + format_gib(gpu_bytes) + " (" +
                                          offload + " offloaded) exceeds free GPU memory " +
                                          format_gib(free.free_bytes) + " (nvidia-smi, GPU" +
                                          (free.gpus == 1 ? " " : "s ") +
                                          gpu_names(selection.gpus) + chosen + ")");
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

}  // namespace bi::server
