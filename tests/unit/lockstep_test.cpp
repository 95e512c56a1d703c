// The stream statistic that tells batched decoding from one-at-a-time and from time-slicing, on
// synthetic timelines: every schedule a server can run is built here step by step, with noise.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "core/arrivals.hpp"
#include "core/lockstep.hpp"

using namespace bi::core;

namespace {

constexpr double kStep = 20.0;  // ms per decode step

std::string id(int r) {
    return "r" + std::to_string(r);
}

// N requests decoded in one batch: each step makes one token for every request, at the same
// moment up to `noise` ms (uniform); request r joins `start[r]` steps late.
std::vector<StreamTimeline> batched(int n, int tokens, double noise, std::vector<int> start = {}) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> jitter(0.0, noise);
    std::vector<StreamTimeline> pass;
    for (int r = 0; r < n; ++r) {
        StreamTimeline t{id(r), {}};
        const int first = start.empty() ? 0 : start[static_cast<std::size_t>(r)];
        for (int k = 0; k < tokens; ++k) t.steps_ms.push_back((first + k) * kStep + jitter(rng));
        pass.push_back(std::move(t));
    }
    return pass;
}

// One request at a time, each to its end before the next starts.
std::vector<StreamTimeline> serial(int n, int tokens) {
    std::vector<StreamTimeline> pass;
    for (int r = 0; r < n; ++r) {
        StreamTimeline t{id(r), {}};
        for (int k = 0; k < tokens; ++k) t.steps_ms.push_back((r * tokens + k) * kStep / n);
        pass.push_back(std::move(t));
    }
    return pass;
}

// Time-slicing: one token per step for one request, rotating over the N in progress.
std::vector<StreamTimeline> round_robin(int n, int tokens) {
    std::vector<StreamTimeline> pass;
    for (int r = 0; r < n; ++r) {
        StreamTimeline t{id(r), {}};
        for (int k = 0; k < tokens; ++k) t.steps_ms.push_back((k * n + r) * kStep / n);
        pass.push_back(std::move(t));
    }
    return pass;
}

}  // namespace

TEST_CASE("lockstep: a batch of N is co-batched and in lockstep at N", "[unit][lockstep]") {
    for (const int n : {2, 4, 8, 16}) {
        INFO("N " << n);
        const auto e = judge_lockstep(batched(n, 32, kStep / (8.0 * n)), n);
        CHECK(e.cobatched_ids.size() == static_cast<std::size_t>(n));
        CHECK(e.not_cobatched_ids.empty());
        CHECK(e.lockstep_at_n());
        CHECK(e.peak == n);
        CHECK(e.margin() == Approx(1.0 - kLockstepShare));
        CHECK(e.phase < 1.0 / (2.0 * n));
    }
}

TEST_CASE("lockstep: one request at a time is never co-batched", "[unit][lockstep]") {
    const auto e = judge_lockstep(serial(4, 32), 4);
    CHECK(e.cobatched_ids.empty());
    CHECK(e.not_cobatched_ids.size() == 4);
    CHECK(e.full_steps == 0);
    CHECK_FALSE(e.lockstep_at_n());
    CHECK(e.margin() == -1.0);
    CHECK(e.phase == -1.0);
    CHECK(e.peak == 1);
}

TEST_CASE("lockstep: time-slicing over N is told from batching at every N", "[unit][lockstep]") {
    for (const int n : {2, 3, 4, 8, 16}) {
        INFO("N " << n);
        const auto e = judge_lockstep(round_robin(n, 32), n);
        CHECK(e.cobatched_ids.empty());
        CHECK_FALSE(e.lockstep_at_n());
        CHECK(e.full_steps > 0);  // the windows do overlap: the gauges would show N
        CHECK(e.lockstep_full_steps == 0);
        CHECK(e.phase >= 1.0 / n - 1e-9);
        CHECK(e.peak == 1);
    }
}

TEST_CASE("lockstep: batches of two out of four are co-batched but not at N", "[unit][lockstep]") {
    // Requests 0 and 1 share the even steps, 2 and 3 the odd ones.
    std::vector<StreamTimeline> pass;
    for (int r = 0; r < 4; ++r) {
        StreamTimeline t{id(r), {}};
        for (int k = 0; k < 32; ++k) t.steps_ms.push_back((2 * k + r / 2) * kStep / 2);
        pass.push_back(std::move(t));
    }
    const auto e = judge_lockstep(pass, 4);
    CHECK(e.cobatched_ids.size() == 4);
    CHECK(e.peak == 2);
    CHECK(e.full_steps > 0);
    CHECK(e.lockstep_full_steps == 0);
    CHECK_FALSE(e.lockstep_at_n());
}

TEST_CASE("lockstep: late joiners still share the steps they decode in", "[unit][lockstep]") {
    // Prefills end at different steps (prompts of other lengths); the decode grid is one.
    const auto e = judge_lockstep(batched(4, 24, 0.5, {0, 2, 5, 9}), 4);
    CHECK(e.cobatched_ids.size() == 4);
    CHECK(e.lockstep_at_n());
    CHECK(e.full_steps > 0);
    CHECK(e.full_steps < 4 * 23);  // only while all four were decoding
}

TEST_CASE("lockstep: timing noise beyond g/(2N) fails closed, and short streams are named",
          "[unit][lockstep]") {
    const auto noisy = judge_lockstep(batched(8, 32, kStep), 8);
    CHECK_FALSE(noisy.lockstep_at_n());
    // A one-token answer is judged by the step that made it: shared when it came with the
    // decoding requests' tokens, not between them; an answer without a token is too short.
    auto pass = batched(4, 32, 0.1);
    pass.push_back({"in-step", {10 * kStep + 0.05}});
    pass.push_back({"between", {10 * kStep + kStep / 2}});
    pass.push_back({"empty", {}});
    const auto e = judge_lockstep(pass, 4);
    CHECK(e.too_short_ids == std::vector<std::string>{"empty"});
    CHECK(e.cobatched_ids.size() == 5);
    CHECK(e.not_cobatched_ids == std::vector<std::string>{"between"});
    REQUIRE(e.ids.size() == 6);
    CHECK(e.ids[4].steps == 1);
    CHECK(e.ids[4].shared == 1);
    CHECK(e.ids[5].shared == 0);
}

TEST_CASE("lockstep: a batch whose tokens are stamped one answer after another is still batched",
          "[unit][lockstep]") {
    // The server writes the four answers of a step one after another, 0, 0.05, 0.1 and 0.2 of
    // a step late: most steps miss the g / (2N) tolerance, but the median phase stays under
    // 1 / (2N), where time-slicing over four can never go (its tokens are g / 4 apart).
    const double late[] = {0.0, 0.05, 0.10, 0.20};
    std::vector<StreamTimeline> pass;
    for (int r = 0; r < 4; ++r) {
        StreamTimeline t{id(r), {}};
        for (int k = 0; k < 32; ++k) t.steps_ms.push_back((k + late[r]) * kStep);
        pass.push_back(std::move(t));
    }
    const auto stamped = judge_lockstep(pass, 4);
    CHECK(stamped.lockstep_multi_steps * 2 < stamped.multi_steps);  // the share alone fails
    CHECK(stamped.phase <= 1.0 / 8.0);
    CHECK(stamped.batched());
    CHECK(stamped.batched_margin() >= 0.0);
    const auto sliced = judge_lockstep(round_robin(4, 32), 4);
    CHECK(sliced.phase > 1.0 / 8.0);
    CHECK_FALSE(sliced.batched());
    CHECK(sliced.batched_margin() < 0.0);
}

TEST_CASE("arrivals: a staggered batch shows each later prefill inside an earlier decode",
          "[unit][lockstep][arrivals]") {
    // Request r joins r steps late, while the ones before it decode: three of four prefills
    // came inside another request's decode window.
    const auto staggered = judge_lockstep(batched(4, 16, 1.0, {0, 1, 2, 3}), 4);
    CHECK(staggered.prefills_in_decode() == 3);
    CHECK(staggered.batched());
    // Sent together, every prefill is in the same step: none inside another's decode.
    CHECK(judge_lockstep(batched(4, 16, 1.0), 4).prefills_in_decode() == 0);
    // One at a time: each starts after the one before has ended.
    CHECK(judge_lockstep(serial(4, 16), 4).prefills_in_decode() == 0);
}

TEST_CASE("arrivals: mixed passes alternate from the seed, and the words read back",
          "[unit][arrivals]") {
    for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, 7777ULL}) {
        const auto first = pass_schedule(Arrivals::Mixed, seed, 1, 32, 4);
        CHECK(first != Arrivals::Mixed);
        for (int pass = 2; pass <= 6; ++pass)
            CHECK(pass_schedule(Arrivals::Mixed, seed, pass, 32, 4) !=
                  pass_schedule(Arrivals::Mixed, seed, pass - 1, 32, 4));
        CHECK(pass_schedule(Arrivals::Together, seed, 2, 32, 4) == Arrivals::Together);
        CHECK(pass_schedule(Arrivals::Staggered, seed, 3, 3, 4) == Arrivals::Staggered);
    }
    // Answers too short for N to decode together after the ramp: Mixed sends every pass together.
    CHECK(pass_schedule(Arrivals::Mixed, 42, 1, 15, 4) == Arrivals::Together);
    CHECK(pass_schedule(Arrivals::Mixed, 42, 2, 15, 4) == Arrivals::Together);
    // Both starts occur over a handful of seeds.
    bool staggered_first = false, together_first = false;
    for (std::uint64_t seed = 0; seed < 16; ++seed) {
        const bool s = pass_schedule(Arrivals::Mixed, seed, 1, 32, 4) == Arrivals::Staggered;
        staggered_first = staggered_first || s;
        together_first = together_first || !s;
    }
    CHECK(staggered_first);
    CHECK(together_first);
    for (auto a : {Arrivals::Mixed, Arrivals::Together, Arrivals::Staggered})
        CHECK(parse_arrivals(arrivals_name(a)) == a);
    CHECK_FALSE(parse_arrivals("sometimes").has_value());
}
