// The GPU half of the footprint guard: how much of the projected footprint lands on the GPU when
// the user's flags offload layers, and how much GPU memory nvidia-smi reports free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "guards.hpp"
#include "model_facts.hpp"

namespace bi::server {

// The layers -ngl / --n-gpu-layers / --gpu-layers offload (the last one given); nullopt when none
// is given or the count is 0. A value that is not a number ("all", "auto") offloads every layer.
std::optional<std::int64_t> offloaded_layers(const std::vector<std::string>& flags);

// The GPU part of `footprint`: the offloaded share of the model and KV cache, plus the overhead.
std::uint64_t gpu_part(const Footprint& footprint, const ModelFacts& model, std::int64_t layers);

struct GpuMemory {
    std::uint64_t free_bytes = 0;  // summed over the GPUs listed
    int gpus = 0;
};

// Free memory from `nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits` (MiB per
// GPU), found on PATH; nullopt when there is none or its output is not a list of numbers.
std::optional<GpuMemory> gpu_free_memory();

// Refuses (bi::Error(Guard)) a GPU part larger than the free GPU memory, saying which memory was
// checked.
void check_gpu_footprint(std::uint64_t gpu_bytes, std::int64_t layers, const GpuMemory& free);

}  // namespace bi::server
