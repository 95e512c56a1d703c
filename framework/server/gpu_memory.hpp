// The GPU half of the footprint guard: how much of the projected footprint lands on the GPU when
// the user's flags offload layers, and how much GPU memory nvidia-smi reports free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/server_kind.hpp"
#include "guards.hpp"
#include "model_facts.hpp"

namespace bi::server {

// The layers the kind's gpu_layers flag offloads (llama-server: -ngl / --n-gpu-layers /
// --gpu-layers; the last one given); nullopt when none is given, the count is 0 or the kind has
// no such flag. A value that is not a number ("all", "auto") offloads every layer.
std::optional<std::int64_t> offloaded_layers(const core::KindFlags& names,
                                             const std::vector<std::string>& flags);

// The GPU part of `footprint`: the offloaded share of the model and KV cache, plus the overhead.
std::uint64_t gpu_part(const Footprint& footprint, const ModelFacts& model, std::int64_t layers);

struct GpuMemory {
    std::uint64_t free_bytes = 0;  // summed over the GPUs counted (or their total memory)
    int gpus = 0;
};

// One GPU as nvidia-smi lists it.
struct GpuInfo {
    int index = 0;  // nvidia-smi's (PCI bus) order
    std::string uuid;
    std::uint64_t free_bytes = 0;
    std::uint64_t total_bytes = 0;
};

// `nvidia-smi --query-gpu=index,uuid,memory.free,memory.total --format=csv,noheader,nounits`;
// nullopt when nvidia-smi is missing or an answer line is not those four fields.
std::optional<std::vector<GpuInfo>> list_gpus();
std::optional<std::vector<GpuInfo>> parse_gpu_list(const std::string& text);

// The GPUs the server will use and the share of the offloaded part each is to hold.
struct GpuSelection {
    std::vector<GpuInfo> gpus;
    std::vector<double> shares;  // per entry of gpus; they sum to 1
    bool per_gpu = false;        // true: each must hold its share; false: the sum holds it all
    std::string why;             // how they were chosen, for messages ("CUDA_VISIBLE_DEVICES=1")
};

// Narrows `all` to what the server sees and uses: CUDA_VISIBLE_DEVICES (`visible`, null when
// unset; indices follow nvidia-smi's order only under CUDA_DEVICE_ORDER=PCI_BUS_ID, otherwise the
// fullest GPUs are assumed, the cautious reading; UUIDs and their prefixes match exactly; an
// entry that names no GPU hides it and every later one, as CUDA does), then the kind's flags
// (llama-server's shown): devices, --device / -dev (CUDAi among the visible; none: no GPU);
// split_mode, --split-mode / -sm none with main_gpu, --main-gpu / -mg (one GPU); and
// tensor_split, --tensor-split / -ts (each GPU its proportion, a 0 share unused).
GpuSelection select_gpus(const std::vector<GpuInfo>& all, const char* visible,
                         const char* device_order, const core::KindFlags& names,
                         const std::vector<std::string>& flags);

// Refuses (bi::Error(Guard)) a GPU part that the selected GPUs cannot hold: with per-GPU shares,
// a GPU whose share exceeds its free memory; otherwise more than their free memory together.
// A selection without GPUs (--device none, nothing visible) is refused when layers are
// offloaded.
void check_gpu_footprint(std::uint64_t gpu_bytes, std::int64_t layers,
                         const GpuSelection& selection);

// The selection's free memory summed, for the plan's description.
GpuMemory selected_free(const GpuSelection& selection);

// A kind that preallocates GPU memory by a fraction (vLLM's --gpu-memory-utilization): the last
// value of `flag` in the user's flags, else `fallback` (the server's default; <= 0: none).
// nullopt when the kind has no such flag. bi::Error(Usage) for a value outside (0, 1].
std::optional<double> memory_fraction(const std::vector<std::string>& flags,
                                      const std::string& flag, double fallback);

// Refuses (bi::Error(Guard)) a fraction of the GPUs' total memory larger than what is free: such
// a server fails at start-up, or takes memory other processes hold.
void check_memory_fraction(double fraction, const std::string& flag, const GpuMemory& total,
                           const GpuMemory& free);

}  // namespace bi::server
