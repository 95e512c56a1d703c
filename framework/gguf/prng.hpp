// A fully specified random source for synthetic weights: the same seed gives the same numbers on
// every platform and standard library (std::*_distribution gives no such promise).
#pragma once

#include <cstdint>
#include <string_view>

namespace bi::gguf {

// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit counter through a fixed mixing function.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next();

private:
    std::uint64_t state_;
};

// Approximately standard normal: the Irwin-Hall sum of twelve uniforms minus six (mean 0,
// variance exactly 1, tails cut at +-6). Integer sums and exact double arithmetic only, so the
// value is bit-identical everywhere.
double next_normal(SplitMix64& rng);

// A stream seed for one named tensor: independent of the order tensors are generated in.
std::uint64_t stream_seed(std::uint64_t seed, std::string_view name);

}  // namespace bi::gguf
