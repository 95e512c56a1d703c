// SplitMix64 (Steele, Lea, Flood 2014) with the constants every implementation shares.
#include "prng.hpp"

#include <numeric>
#include <stdexcept>

namespace spark {

namespace {

std::uint64_t finalise(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace

std::uint64_t seed_from(std::string_view text) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 0x100000001b3ULL;
    }
    return finalise(hash);
}

std::uint64_t Prng::next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return finalise(state_);
}

std::uint64_t Prng::below(std::uint64_t n) {
    if (n == 0) throw std::logic_error("spark: Prng::below(0)");
    // 2^64 mod n, computed without 128-bit arithmetic; draws under it would favour small values.
    const std::uint64_t skew = (0 - n) % n;
    while (true) {
        const std::uint64_t x = next();
        if (x >= skew) return x % n;
    }
}

std::int64_t Prng::between(std::int64_t lo, std::int64_t hi) {
    if (hi < lo) throw std::logic_error("spark: Prng::between with hi < lo");
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(below(span));
}

std::vector<std::size_t> Prng::distinct(std::size_t count, std::size_t n) {
    if (count > n) throw std::logic_error("spark: Prng::distinct wants more than there are");
    std::vector<std::size_t> pool(n);
    std::iota(pool.begin(), pool.end(), std::size_t{0});
    for (std::size_t i = 0; i < count; ++i) {
        const auto j = i + static_cast<std::size_t>(below(n - i));
        std::swap(pool[i], pool[j]);
    }
    pool.resize(count);
    return pool;
}

}  // namespace spark
