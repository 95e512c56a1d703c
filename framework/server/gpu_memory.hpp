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
    std::uint64_t free_bytes = 0;  // summed over the GPUs listed (of the field queried)
    int gpus = 0;
};

// Free memory from `nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits` (MiB per
// GPU), found on PATH; nullopt when there is none or its output is not a list of numbers.
std::optional<GpuMemory> gpu_free_memory();

// The same for another nvidia-smi memory field ("memory.total"), in free_bytes.
std::optional<GpuMemory> gpu_memory_query(const std::string& field);

// A kind that preallocates GPU memory by a fraction (vLLM's --gpu-memory-utilization): the last
// value of `flag` in the user's flags, else `fallback` (the server's default; <= 0: none).
// nullopt when the kind has no such flag. bi::Error(Usage) for a value outside (0, 1].
std::optional<double> memory_fraction(const std::vector<std::string>& flags,
                                      const std::string& flag, double fallback);

// Refuses (bi::Error(Guard)) a fraction of the GPUs' total memory larger than what is free: such
// a server fails at start-up, or takes memory other processes hold.
void check_memory_fraction(double fraction, const std::string& flag, const GpuMemory& total,
                           const GpuMemory& free);

// Refuses (bi::Error(Guard)) a GPU part larger than the free GPU memory, saying which memory was
// checked.
void check_gpu_footprint(std::uint64_t gpu_bytes, std::int64_t layers, const GpuMemory& free);

}  // namespace bi::server
