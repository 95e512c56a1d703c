// Random draws for synthetic weights from core's SplitMix64: the same seed gives the same numbers
// on every platform and standard library (std::*_distribution gives no such promise).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/splitmix64.hpp"

namespace bi::gguf {

// Approximately standard normal: the Irwin-Hall sum of twelve uniforms minus six (mean 0,
// variance exactly 1, tails cut at +-6). Integer sums and exact double arithmetic only, so the
// value is bit-identical everywhere.
double next_normal(core::SplitMix64& rng);

// A stream seed for one named tensor: independent of the order tensors are generated in.
std::uint64_t stream_seed(std::uint64_t seed, std::string_view name);

}  // namespace bi::gguf
