#include "permutation.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace bi::core {

namespace {

std::vector<std::size_t> shuffled(std::size_t n, SplitMix64& rng) {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    for (std::size_t i = n; i > 1; --i) {
        const auto j = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(i)));
        std::swap(order[i - 1], order[j]);
    }
    return order;
}

// True when n! > count, i.e. `count` earlier passes cannot exhaust the permutations of n.
bool more_permutations_than(std::size_t n, std::uint64_t count) {
    std::uint64_t factorial = 1;
    for (std::uint64_t k = 2; k <= n; ++k) {
        factorial *= k;
        if (factorial > count) return true;
    }
    return factorial > count;
}

std::uint64_t pass_stream_seed(std::uint64_t seed, int pass) {
    // Conversion to unsigned is modular, so a negative pass is still well defined.
    const auto p = static_cast<std::uint64_t>(static_cast<std::int64_t>(pass));
    return seed ^ mix64(p + kSplitMix64Gamma);
}

}  // namespace

std::vector<std::vector<std::size_t>> pass_orders(std::size_t n, std::uint64_t seed, int passes) {
    std::vector<std::vector<std::size_t>> orders;
    for (int p = 0; p < passes; ++p) {
        SplitMix64 rng(pass_stream_seed(seed, p));
        auto order = shuffled(n, rng);
        if (more_permutations_than(n, static_cast<std::uint64_t>(p))) {
            while (std::find(orders.begin(), orders.end(), order) != orders.end())
                order = shuffled(n, rng);
        }
        orders.push_back(std::move(order));
    }
    return orders;
}

std::vector<std::size_t> pass_order(std::size_t n, std::uint64_t seed, int pass) {
    if (pass < 0) {
        // No earlier passes to differ from: the first draw of the pass's own stream.
        SplitMix64 rng(pass_stream_seed(seed, pass));
        return shuffled(n, rng);
    }
    return pass_orders(n, seed, pass + 1).back();
}

}  // namespace bi::core
