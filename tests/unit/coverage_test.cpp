#include <catch2/catch.hpp>

#include "core/coverage.hpp"
#include "trial_builders.hpp"

using namespace bi;
using core::Interval;

TEST_CASE("overlap depth by sweep line, where touching intervals do not overlap", "[coverage]") {
    CHECK(core::max_overlap_depth({}) == 0);
    CHECK(core::max_overlap_depth({{0, 10}, {10, 20}, {20, 30}}) == 1);
    CHECK(core::max_overlap_depth({{0, 10}, {9, 20}}) == 2);
    CHECK(core::max_overlap_depth({{0, 100}, {10, 20}, {15, 30}, {25, 40}}) == 3);
    CHECK(core::max_overlap_depth({{5, 5}, {5, 5}}) == 0);  // empty intervals never count
}

TEST_CASE("a fully concurrent pass is covered", "[coverage]") {
    auto pass = bi::testing::concurrent(bi::testing::arm(10));
    auto c = core::pass_coverage(pass, 1);
    CHECK(c.ok);
    CHECK(c.n_cobatched == 10);
    CHECK(c.required == 8);
    CHECK(c.client_depth == 10);
    CHECK(c.attribution_certain);
}

TEST_CASE("a serial pass has no co-batched ids", "[coverage]") {
    auto c = core::pass_coverage(bi::testing::serial(bi::testing::arm(6)), 2);
    CHECK_FALSE(c.ok);
    CHECK(c.n_cobatched == 0);
    CHECK(c.not_cobatched_ids.size() == 6);
    CHECK(c.client_depth == 1);
}

TEST_CASE("required co-batched ids is max(2, ceil(0.8 n))", "[coverage]") {
    CHECK(core::pass_coverage(bi::testing::concurrent(bi::testing::arm(1)), 1).required == 2);
    CHECK(core::pass_coverage(bi::testing::concurrent(bi::testing::arm(5)), 1).required == 4);
    CHECK(core::pass_coverage(bi::testing::concurrent(bi::testing::arm(11)), 1).required == 9);
    // One id alone can never be co-batched: a single-item pass fails closed.
    CHECK_FALSE(core::pass_coverage(bi::testing::concurrent(bi::testing::arm(1)), 1).ok);
}

TEST_CASE("just under the coverage threshold fails", "[coverage]") {
    auto pass = bi::testing::concurrent(bi::testing::arm(10));
    // Three ids run alone, after everyone else: 7 of 10 co-batched, 8 required.
    std::int64_t t = 5000;
    for (const char* id : {"id7", "id8", "id9"}) {
        pass[id].dispatch_ns = t;
        pass[id].complete_ns = t + 100;
        t += 100;
    }
    auto c = core::pass_coverage(pass, 1);
    CHECK(c.n_cobatched == 7);
    CHECK_FALSE(c.ok);
    CHECK(c.not_cobatched_ids == std::vector<std::string>{"id7", "id8", "id9"});
}

TEST_CASE("a missing interval makes attribution uncertain and fails closed", "[coverage]") {
    auto pass = bi::testing::concurrent(bi::testing::arm(10));
    pass["id4"].complete_ns.reset();
    auto c = core::pass_coverage(pass, 1);
    CHECK_FALSE(c.attribution_certain);
    CHECK_FALSE(c.ok);
    CHECK(c.missing_interval_ids == std::vector<std::string>{"id4"});
    CHECK(c.n_cobatched == 9);  // enough by count, still refused
}

TEST_CASE("co-batching is detected against later and earlier neighbours", "[coverage]") {
    core::ArmResults pass = bi::testing::arm(3);
    pass["id0"].dispatch_ns = 0;
    pass["id0"].complete_ns = 100;
    pass["id1"].dispatch_ns = 50;
    pass["id1"].complete_ns = 60;  // inside id0
    pass["id2"].dispatch_ns = 100;
    pass["id2"].complete_ns = 200;  // touches id0 only
    auto c = core::pass_coverage(pass, 1);
    CHECK(c.n_cobatched == 2);
    CHECK(c.not_cobatched_ids == std::vector<std::string>{"id2"});
}

TEST_CASE("a task resident on another slot before and after a request confirms it", "[coverage]") {
    using core::BusySample;
    using core::BusySlot;
    // The request ran on slot 1 in [1000, 1100]: no answer fell inside it.
    const std::vector<BusySample> samples{
        {800, 900, 2, {{0, 41}, {1, 40}}},
        {1200, 1300, 1, {{0, 41}}},
    };
    CHECK(core::server_concurrent_during(samples, 1000, 1100, 1));
    CHECK_FALSE(core::server_concurrent_during(samples, 1000, 1100));  // its slot unknown
    // Its own slot's task proves nothing: the request may have been that task.
    CHECK_FALSE(core::server_concurrent_during(samples, 1000, 1100, 0));
    // Another task on slot 0 afterwards: slot 0 may have been idle in between.
    const std::vector<BusySample> replaced{{800, 900, 1, {{0, 41}}}, {1200, 1300, 1, {{0, 42}}}};
    CHECK_FALSE(core::server_concurrent_during(replaced, 1000, 1100, 1));
    // An answer overlapping the request's start is not wholly before it.
    const std::vector<BusySample> straddling{{950, 1050, 1, {{0, 41}}}, {1200, 1300, 1, {{0, 41}}}};
    CHECK_FALSE(core::server_concurrent_during(straddling, 1000, 1100, 1));
    // Only the nearest answers count: slot 0 went idle and came back with the same number.
    const std::vector<BusySample> gap{
        {700, 800, 1, {{0, 41}}}, {850, 900, 0, {}}, {1200, 1300, 1, {{0, 41}}}};
    CHECK_FALSE(core::server_concurrent_during(gap, 1000, 1100, 1));
    // Through pass_coverage: the slot the server named for each request is used.
    core::ArmResults pass = bi::testing::arm(2);
    pass["id0"].dispatch_ns = 1000;
    pass["id0"].complete_ns = 1100;
    pass["id0"].id_slot = 1;
    pass["id1"].dispatch_ns = 850;
    pass["id1"].complete_ns = 1150;
    pass["id1"].id_slot = 0;
    core::ServerOverlapEvidence server;
    server.busy_samples = samples;
    const auto c = core::pass_coverage(pass, 1, &server);
    CHECK(c.cobatched_ids == std::vector<std::string>{"id0"});
}

TEST_CASE("completion census counts modes", "[coverage]") {
    auto a = bi::testing::arm(5);
    a["id0"].failure_mode = core::FailureMode::Empty;
    a["id1"].failure_mode = core::FailureMode::HttpTimeout;
    auto census = core::completion_census(a, "A");
    CHECK(census.n == 5);
    CHECK(census.n_ok == 3);
    CHECK(census.by_mode.at("empty") == 1);
    CHECK_FALSE(census.meets(0.8));
    a["id1"].failure_mode = core::FailureMode::Ok;
    CHECK(core::completion_census(a, "A").meets(0.8));
    CHECK_FALSE(core::completion_census({}, "A").meets(0.8));
}

TEST_CASE("server evidence needs two busy slots or two processing requests", "[coverage]") {
    core::ServerOverlapEvidence s;
    CHECK_FALSE(s.shows_overlap());
    s.peak_busy_slots = 1;
    s.peak_requests_processing = 1;
    CHECK_FALSE(s.shows_overlap());
    s.peak_requests_processing = 2;
    CHECK(s.shows_overlap());
}

TEST_CASE("busy slots per step between two times: the readings answered wholly inside",
          "[coverage]") {
    using core::DecodeSample;
    // Steps 0..100 at one busy slot (a ramp), 100..300 at four, 300..340 at one (a tail).
    const std::vector<DecodeSample> samples{{0, 1, 0.0, 0.0},
                                            {10, 11, 100.0, 100.0},
                                            {20, 21, 500.0, 200.0},
                                            {30, 31, 900.0, 300.0},
                                            {40, 41, 940.0, 340.0}};
    CHECK(*core::busy_per_decode_between(samples, 0, 41) == Approx(940.0 / 340.0));
    CHECK(*core::busy_per_decode_between(samples, 10, 31) == Approx(4.0));
    CHECK(*core::busy_per_decode_between(samples, 9, 32) == Approx(4.0));
    // A reading that straddles a bound is left out; one reading alone gives no mean.
    CHECK_FALSE(core::busy_per_decode_between(samples, 11, 30));
    CHECK_FALSE(core::busy_per_decode_between(samples, 50, 60));
    CHECK_FALSE(core::busy_per_decode_between({}, 0, 100));
    // No step between the two readings: no mean, not a division by zero.
    CHECK_FALSE(core::busy_per_decode_between({{0, 1, 5.0, 5.0}, {2, 3, 5.0, 5.0}}, 0, 10));
}

TEST_CASE("the span a pass kept N in flight runs from the N-th request sent to the last",
          "[coverage]") {
    std::vector<core::TrialRecord> records(6);
    const std::int64_t sent[] = {40, 0, 5, 30, 10, 20};
    for (std::size_t i = 0; i < records.size(); ++i) {
        records[i].dispatch_ns = sent[i];
        records[i].complete_ns = sent[i] + 15;
    }
    const auto span = core::full_concurrency_span(records, 3);
    REQUIRE(span);
    CHECK(span->start_ns == 10);
    CHECK(span->end_ns == 40);
    CHECK_FALSE(core::full_concurrency_span(records, 7));  // never N in flight
    records.resize(3);  // the third request sent is the last: no span
    CHECK_FALSE(core::full_concurrency_span(records, 3));
    records[0].dispatch_ns.reset();  // a request never sent does not count
    CHECK_FALSE(core::full_concurrency_span(records, 3));
}
