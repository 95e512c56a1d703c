#include <catch2/catch.hpp>

#include "core/union.hpp"
#include "trial_builders.hpp"

using namespace bi;
using bi::testing::arm;

TEST_CASE("divergence on only one of several passes is divergent", "[union]") {
    auto a = arm(4);
    std::vector<core::ArmResults> passes(3, a);
    passes[1]["id2"].extracted_answer = "something else";
    auto u = core::union_over_passes(a, passes, "A", "C");
    CHECK(u.divergent_ids == std::vector<std::string>{"id2"});
    CHECK(u.per_pass_divergent == std::vector<std::size_t>{0, 1, 0});
    CHECK(u.per_pass[1].right_arm == "C2");
    CHECK(u.n_comparisons == 12);
}

TEST_CASE("an id missing from any pass is divergent", "[union]") {
    auto a = arm(4);
    std::vector<core::ArmResults> passes(2, a);
    passes[0].erase("id3");
    auto u = core::union_over_passes(a, passes, "A", "C");
    CHECK(u.divergent_ids == std::vector<std::string>{"id3"});
}

TEST_CASE("invariant divergence on one pass outranks token drift on another", "[union]") {
    auto a = arm(3);
    std::vector<core::ArmResults> passes(2, a);
    passes[0]["id1"].content = "moved";
    passes[1]["id1"].score = 0.0;
    passes[1]["id0"].content = "moved too";
    auto u = core::union_over_passes(a, passes, "A", "C");
    CHECK(u.divergent_ids == std::vector<std::string>{"id1"});
    CHECK(u.token_only_ids == std::vector<std::string>{"id0"});
    CHECK(u.per_pass_token_only == std::vector<std::size_t>{1, 1});
}

TEST_CASE("scored comparisons count ok-in-both over all passes", "[union]") {
    auto a = arm(5);
    std::vector<core::ArmResults> passes(2, a);
    passes[0]["id0"].failure_mode = core::FailureMode::Empty;
    a["id4"].failure_mode = core::FailureMode::Empty;
    for (auto& p : passes) p["id4"].failure_mode = core::FailureMode::Empty;
    auto u = core::union_over_passes(a, passes, "A", "C");
    CHECK(u.n_scored_comparisons == 4 + 3);
}
