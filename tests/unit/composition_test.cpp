#include <catch2/catch.hpp>

#include "core/composition.hpp"
#include "core/verdict.hpp"
#include "trial_builders.hpp"

using namespace bi;
using bi::testing::arm;
using bi::testing::concurrent;

namespace {

// A pass of four ids in two waves of two: {w, x} then {y, z}, or the pairs given.
core::ArmResults waves(const std::vector<std::vector<std::string>>& groups) {
    core::ArmResults pass;
    std::int64_t t = 1000;
    for (const auto& group : groups) {
        for (const auto& id : group) {
            auto r = testing::scored(id);
            r.dispatch_ns = t;
            r.complete_ns = t + 100;
            pass.emplace(id, r);
        }
        t += 100;  // the next wave starts as this one ends: touching, not overlapping
    }
    return pass;
}

}  // namespace

TEST_CASE("a trial's composition is the ids it overlapped", "[composition]") {
    const auto c = core::pass_compositions(waves({{"w", "x"}, {"y", "z"}}));
    CHECK(c.at("w") == core::Composition{"x"});
    CHECK(c.at("z") == core::Composition{"y"});
    auto pass = waves({{"w", "x"}});
    pass["x"].complete_ns.reset();  // no interval: no composition, and no neighbour for w
    const auto d = core::pass_compositions(pass);
    CHECK(d.count("x") == 0);
    CHECK(d.at("w").empty());
}

TEST_CASE("a repeated composition does not count again", "[composition]") {
    const std::set<std::string> all{"w", "x", "y", "z"};
    const std::vector<core::ArmResults> passes{waves({{"w", "x"}, {"y", "z"}}),
                                               waves({{"x", "w"}, {"z", "y"}}),
                                               waves({{"w", "y"}, {"x", "z"}})};
    const auto count = core::count_compositions(passes, {all, all, all});
    CHECK(count.counted_ids[0].size() == 4);
    CHECK(count.counted_ids[1].empty());  // the same pairs, in another order
    CHECK(count.counted_ids[2].size() == 4);
    CHECK(count.n_counted == 8);
    CHECK(count.distinct_per_id.at("w") == 2);
}

TEST_CASE("only proven trials count", "[composition]") {
    const std::vector<core::ArmResults> passes{waves({{"w", "x"}, {"y", "z"}}),
                                               waves({{"w", "y"}, {"x", "z"}})};
    const auto count = core::count_compositions(passes, {{"w"}, {}});
    CHECK(count.n_counted == 1);
    CHECK(count.distinct_per_id == std::map<std::string, std::size_t>{{"w", 1}});
}

TEST_CASE("passes of one unchanging batch count each id once", "[composition][verdict]") {
    const auto v = core::decide_verdict(testing::clean_cell(10, 3));
    CHECK(v.sensitivity.n_hot_trials == 30);
    CHECK(v.sensitivity.per_trial.n == 10);
    CHECK(v.sensitivity.per_prompt.n == 10);
    CHECK(v.sensitivity.distinct_compositions.at("id0") == 1);
}
