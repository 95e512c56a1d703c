// The generator's only source of randomness, specified down to the bit so a work-set is the same
// on every machine: SplitMix64 streams, seeded by FNV-1a over labelled inputs, with unbiased
// bounded draws by rejection (never a std:: distribution, whose output varies by library).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spark {

// FNV-1a 64 over `text`, then the SplitMix64 finaliser: a well-mixed seed from any label.
std::uint64_t seed_from(std::string_view text);

// A copy of the framework's core::SplitMix64, kept here because a plugin sees only the SDK.
class Prng {
public:
    explicit Prng(std::uint64_t seed) : state_(seed) {}

    // SplitMix64: state += golden gamma, then the finaliser of the new state.
    std::uint64_t next();
    // Uniform in [0, n) for n >= 1: only draws at or above 2^64 mod n are kept, so every residue
    // is equally likely.
    std::uint64_t below(std::uint64_t n);
    // Uniform in [lo, hi], both inclusive.
    std::int64_t between(std::int64_t lo, std::int64_t hi);
    bool coin() { return (next() >> 63) != 0; }

    template <typename T>
    const T& pick(const std::vector<T>& items) {
        return items[static_cast<std::size_t>(below(items.size()))];
    }
    // `count` distinct indices below n, in draw order (partial Fisher-Yates over 0..n-1).
    std::vector<std::size_t> distinct(std::size_t count, std::size_t n);

private:
    std::uint64_t state_;
};

}  // namespace spark
