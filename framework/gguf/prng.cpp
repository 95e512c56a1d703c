// A sum-of-uniforms normal and per-tensor stream seeds, both over core::SplitMix64.
#include "prng.hpp"

namespace bi::gguf {

double next_normal(core::SplitMix64& rng) {
    // Twelve 32-bit uniforms u_i = (k_i + 0.5) / 2^32, two per draw. Their sum is (K + 6) / 2^32
    // with K < 12 * 2^32 < 2^36: exact in a double, as is subtracting 6.
    std::uint64_t sum = 0;
    for (int i = 0; i < 6; ++i) {
        const std::uint64_t draw = rng.next();
        sum += (draw >> 32) + (draw & 0xffffffffULL);
    }
    return (static_cast<double>(sum) + 6.0) * 0x1p-32 - 6.0;
}

std::uint64_t stream_seed(std::uint64_t seed, std::string_view name) {
    // FNV-1a over the name, then mixed with the seed through one SplitMix64 step.
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : name) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return core::SplitMix64(seed ^ hash).next();
}

}  // namespace bi::gguf
