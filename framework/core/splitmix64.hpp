// The framework's one PRNG, SplitMix64 (Steele, Lea, Flood 2014), written out step by step so a
// seed gives the same stream on every platform and standard library (std::*_distribution and
// the standard engines make no such promise across implementations).
#pragma once

#include <cstdint>

namespace bi::core {

// The golden-ratio increment the state advances by on every draw.
inline constexpr std::uint64_t kSplitMix64Gamma = 0x9E3779B97F4A7C15ULL;

// The SplitMix64 output function: (z ^ z>>30) * 0xBF58476D1CE4E5B9, (z ^ z>>27) *
// 0x94D049BB133111EB, z ^ z>>31.
constexpr std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// Each output is the state, advanced by kSplitMix64Gamma, run through mix64.
class SplitMix64 {
public:
    explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}

    constexpr std::uint64_t next() {
        state_ += kSplitMix64Gamma;
        return mix64(state_);
    }

    // Uniform in [0, bound) without modulo bias: draws below 2^64 mod bound are rejected.
    // bound must be > 0.
    constexpr std::uint64_t below(std::uint64_t bound) {
        // 2^64 mod bound, computed in 64 bits: the lowest draws, which would over-represent
        // small results, are thrown away.
        const std::uint64_t threshold = (0 - bound) % bound;
        for (;;) {
            const std::uint64_t r = next();
            if (r >= threshold) return r % bound;
        }
    }

private:
    std::uint64_t state_;
};

}  // namespace bi::core
