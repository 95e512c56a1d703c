// Seeded, platform-independent item orders for the concurrent passes (docs/design.md §9.4): a fully
// specified PRNG and an unbiased Fisher–Yates shuffle, so one seed gives one order everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "splitmix64.hpp"

namespace bi::core {

// The order of n items for one pass: a permutation of 0..n-1.
// Pass p draws from SplitMix64(seed ^ mix64(uint64(p) + 0x9E3779B97F4A7C15)) with Fisher–Yates
// from the identity (for i = n-1 down to 1: swap a[i] with a[below(i+1)]). While fewer than n!
// passes precede it, a pass whose order equals that of an earlier pass (0..p-1) draws again
// from its own stream, so passes 0..p are pairwise distinct whenever p < n!. Pass 0 is an
// ordinary shuffled pass, not the identity. Same (n, seed, pass) -> same order on any machine.
std::vector<std::size_t> pass_order(std::size_t n, std::uint64_t seed, int pass);

// pass_order(n, seed, p) for p = 0..passes-1, computed together (cheaper than one call each).
std::vector<std::vector<std::size_t>> pass_orders(std::size_t n, std::uint64_t seed, int passes);

}  // namespace bi::core
