// The seeded pass permutation: SplitMix64 against its reference, bounded draws, and golden,
// valid and distinct pass orders.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <set>

#include "core/permutation.hpp"

using bi::core::pass_order;
using bi::core::pass_orders;
using bi::core::SplitMix64;

namespace {

bool is_permutation_of_n(std::vector<std::size_t> order, std::size_t n) {
    if (order.size() != n) return false;
    std::sort(order.begin(), order.end());
    for (std::size_t i = 0; i < n; ++i)
        if (order[i] != i) return false;
    return true;
}

}  // namespace

TEST_CASE("splitmix64 matches the published reference sequence", "[permutation]") {
    SplitMix64 rng(1234567);
    CHECK(rng.next() == 6457827717110365317ULL);
    CHECK(rng.next() == 3203168211198807973ULL);
    CHECK(rng.next() == 9817491932198370423ULL);
    CHECK(rng.next() == 4593380528125082431ULL);
    CHECK(rng.next() == 16408922859458223821ULL);
}

TEST_CASE("bounded draws stay in range and reach every value", "[permutation]") {
    SplitMix64 rng(7);
    std::set<std::uint64_t> seen;
    for (int i = 0; i < 2000; ++i) {
        const auto v = rng.below(6);
        REQUIRE(v < 6);
        seen.insert(v);
    }
    CHECK(seen.size() == 6);
    CHECK(rng.below(1) == 0);
}

TEST_CASE("pass orders have golden values for a fixed seed", "[permutation]") {
    using V = std::vector<std::size_t>;
    CHECK(pass_order(10, 42, 0) == V{9, 4, 2, 8, 1, 3, 0, 6, 5, 7});
    CHECK(pass_order(10, 42, 1) == V{0, 9, 1, 6, 2, 8, 3, 4, 7, 5});
    CHECK(pass_order(10, 42, 2) == V{5, 3, 8, 6, 4, 0, 7, 1, 2, 9});
    CHECK(pass_order(10, 42, 3) == V{4, 5, 9, 8, 1, 7, 6, 3, 2, 0});
}

TEST_CASE("pass orders are deterministic and valid permutations", "[permutation]") {
    for (std::size_t n : {0u, 1u, 2u, 5u, 33u, 200u}) {
        for (int pass = 0; pass < 5; ++pass) {
            const auto a = pass_order(n, 0xC0FFEEULL, pass);
            CHECK(a == pass_order(n, 0xC0FFEEULL, pass));
            CHECK(is_permutation_of_n(a, n));
        }
    }
    const auto all = pass_orders(33, 99, 6);
    REQUIRE(all.size() == 6);
    for (int pass = 0; pass < 6; ++pass)
        CHECK(all[static_cast<std::size_t>(pass)] == pass_order(33, 99, pass));
}

TEST_CASE("each pass gets a different order and seeds differ", "[permutation]") {
    const auto orders = pass_orders(32, 2024, 20);
    std::set<std::vector<std::size_t>> distinct(orders.begin(), orders.end());
    CHECK(distinct.size() == orders.size());
    CHECK(pass_order(32, 2024, 1) != pass_order(32, 2025, 1));
}

TEST_CASE("small item counts still get distinct passes until permutations run out",
          "[permutation]") {
    // 3 items have 6 orders: passes 0..5 are all of them, once each.
    const auto three = pass_orders(3, 7, 6);
    std::set<std::vector<std::size_t>> distinct(three.begin(), three.end());
    CHECK(distinct.size() == 6);
    // 2 items have 2 orders: passes 0 and 1 differ; pass 2 must repeat one.
    const auto two = pass_orders(2, 7, 3);
    CHECK(two[0] != two[1]);
    CHECK(is_permutation_of_n(two[2], 2));
}
