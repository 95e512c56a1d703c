#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "http/server_observation.hpp"
#include "io/files.hpp"

using namespace bi::http;

namespace {

std::string fixture(const std::string& name) {
    return bi::io::read_file(std::string(BI_FIXTURES_DIR) + "/" + name);
}

std::string metrics_text(double decodes, double busy_per_decode, double processing) {
    return "# TYPE llamacpp:n_decode_total counter\nllamacpp:n_decode_total " +
           std::to_string(decodes) + "\nllamacpp:n_busy_slots_per_decode " +
           std::to_string(busy_per_decode) + "\nllamacpp:requests_processing " +
           std::to_string(processing) + "\n";
}

}  // namespace

TEST_CASE("busy slots count is_processing only", "[slots]") {
    const SlotsSample idle = parse_slots(fixture("slots_idle.json"));
    CHECK(idle.n_slots == 4);
    CHECK(idle.busy == 0);
    const SlotsSample busy = parse_slots(fixture("slots_busy.json"));
    CHECK(busy.n_slots == 4);
    CHECK(busy.busy == 4);
    // Slot 3 still carries id_task after finishing: not evidence of a busy slot.
    const SlotsSample after = parse_slots(fixture("slots_after.json"));
    CHECK(after.n_slots == 4);
    CHECK(after.busy == 0);
}

TEST_CASE("a /slots answer that is not an array of objects is an error", "[slots]") {
    CHECK_THROWS_AS(parse_slots("{}"), bi::Error);
    CHECK_THROWS_AS(parse_slots("[1]"), bi::Error);
    CHECK_THROWS_AS(parse_slots("nope"), bi::Error);
}

TEST_CASE("metrics are read from real Prometheus text", "[metrics]") {
    const MetricsSample idle = parse_metrics(fixture("metrics.txt"));
    CHECK(idle.running == 0.0);
    CHECK(idle.step_mean == 0.0);
    CHECK(idle.step_count == 0.0);
    const MetricsSample busy = parse_metrics(fixture("metrics_busy.txt"));
    CHECK(busy.running == 4.0);
    CHECK(busy.step_mean == 3.99631);
    CHECK(busy.step_count == 271.0);
    CHECK(busy.values.at("llamacpp:prompt_tokens_total") == 114.0);
}

TEST_CASE("metric lines with labels and timestamps parse and junk is skipped", "[metrics]") {
    const MetricsSample m =
        parse_metrics("x{a=\"1\",b=\"2\"} 3.5 1700000000\r\ny 2\ngarbage\nz notanumber\n");
    CHECK(m.values.at("x") == 3.5);
    CHECK(m.values.at("y") == 2.0);
    CHECK(m.values.count("garbage") == 0);
    CHECK(m.values.count("z") == 0);
    CHECK_FALSE(m.running);
}

TEST_CASE("the window mean of busy slots per decode comes from counter deltas", "[metrics]") {
    OverlapAccumulator acc;
    acc.add_metrics(parse_metrics(metrics_text(100, 1.0, 0)));  // S = 100
    acc.add_metrics(parse_metrics(metrics_text(150, 1.5, 3)));
    acc.add_metrics(parse_metrics(metrics_text(200, 2.0, 2)));  // S = 400
    const auto e = acc.evidence();
    REQUIRE(e.mean_busy_slots_per_decode);
    CHECK(*e.mean_busy_slots_per_decode == Approx(3.0));  // (400 - 100) / (200 - 100)
    CHECK(e.peak_requests_processing == 3);
}

TEST_CASE("no decode in the window or no metrics leaves the mean absent", "[metrics]") {
    OverlapAccumulator still;
    still.add_metrics(parse_metrics(metrics_text(100, 1.0, 0)));
    still.add_metrics(parse_metrics(metrics_text(100, 1.0, 0)));
    CHECK_FALSE(still.evidence().mean_busy_slots_per_decode);
    OverlapAccumulator none;
    none.add_slots(SlotsSample{4, 2});
    none.count_sample();
    const auto e = none.evidence();
    CHECK_FALSE(e.mean_busy_slots_per_decode);
    CHECK(e.peak_busy_slots == 2);
    CHECK(e.n_samples == 1);
    CHECK(e.shows_overlap());
}
