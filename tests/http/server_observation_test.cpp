#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "http/server_observation.hpp"
#include "io/files.hpp"
#include "io/server_kind_io.hpp"

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
    CHECK(after.busy_tasks.empty());  // its stale id_task names no busy slot
}

TEST_CASE("busy slots name their tasks by slot id", "[slots]") {
    const SlotsSample busy = parse_slots(fixture("slots_busy.json"));
    REQUIRE(busy.busy_tasks.size() == 4);
    CHECK(busy.busy_tasks[0].slot == 0);
    CHECK(busy.busy_tasks[0].task == 4);
    CHECK(busy.busy_tasks[1].slot == 1);
    CHECK(busy.busy_tasks[1].task == 2);
    CHECK(parse_slots(fixture("slots_busy.json"), "is_processing", "").busy_tasks.empty());
    // An entry without an integer id is named by its place; a negative or absent task is none.
    const SlotsSample mixed = parse_slots(
        R"([{"is_processing":true,"id_task":7},{"id":5,"is_processing":true,"id_task":-1},)"
        R"({"id":6,"is_processing":true}])");
    CHECK(mixed.busy == 3);
    REQUIRE(mixed.busy_tasks.size() == 1);
    CHECK(mixed.busy_tasks[0].slot == 0);
    CHECK(mixed.busy_tasks[0].task == 7);
    // Two busy entries claiming one slot: no entry's task is believed.
    CHECK(parse_slots(R"([{"id":1,"is_processing":true,"id_task":3},)"
                      R"({"id":1,"is_processing":true,"id_task":4}])")
              .busy_tasks.empty());
}

TEST_CASE("answers whose entries all lack the kind's busy field are told from idle ones",
          "[slots][server-kind]") {
    // Mainline llama-server's entries read as ik_llama.cpp's, whose busy field is `state`.
    const std::string mainline = fixture("slots_busy.json");
    OverlapAccumulator wrong_kind;
    wrong_kind.add_slots(parse_slots(mainline, "state", "id_task"));
    CHECK(wrong_kind.evidence().slot_busy_field_absent);
    CHECK(wrong_kind.evidence().peak_busy_slots == 0);
    OverlapAccumulator idle;
    idle.add_slots(parse_slots(fixture("slots_idle.json")));
    CHECK_FALSE(idle.evidence().slot_busy_field_absent);
    // No entries at all say nothing about the field.
    OverlapAccumulator empty;
    empty.add_slots(parse_slots("[]"));
    CHECK_FALSE(empty.evidence().slot_busy_field_absent);
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
    none.add_slots(SlotsSample{4, 2, {}, 4});
    none.count_sample();
    const auto e = none.evidence();
    CHECK_FALSE(e.mean_busy_slots_per_decode);
    CHECK(e.peak_busy_slots == 2);
    CHECK(e.n_samples == 1);
    CHECK(e.shows_overlap());
}

namespace {

const bi::core::KindEvidence& evidence_of(const std::string& name) {
    for (const auto& kind : bi::io::builtin_server_kinds())
        if (kind.name == name) return kind.evidence;
    FAIL("no shipped kind " << name);
    throw;  // unreachable: FAIL throws
}

}  // namespace

// The shapes below are the documented ones, with metric names as each server's source spells
// them (docs/servers.md gives the files): vLLM vllm/v1/metrics/loggers.py, SGLang
// python/sglang/srt/metrics/collector.py, TGI router/src (metrics crate gauges), trtllm-serve's
// /metrics (a JSON list of iteration statistics), ik_llama.cpp examples/server
// (server-context.h: slot state 0 idle, 1 processing).
TEST_CASE("each kind's metrics are read under its own names", "[metrics][server-kind]") {
    const std::string vllm =
        "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
        "# TYPE vllm:num_requests_running gauge\n"
        "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0\n"
        "# TYPE vllm:iteration_tokens_total histogram\n"
        "vllm:iteration_tokens_total_bucket{engine=\"0\",le=\"1.0\",model_name=\"m\"} 5.0\n"
        "vllm:iteration_tokens_total_count{engine=\"0\",model_name=\"m\"} 40.0\n"
        "vllm:iteration_tokens_total_sum{engine=\"0\",model_name=\"m\"} 120.0\n";
    const MetricsSample v = parse_metrics(vllm, evidence_of("vllm"));
    CHECK(v.running == 3.0);
    CHECK(v.step_sum == 120.0);
    CHECK(v.step_count == 40.0);
    CHECK_FALSE(v.step_mean);
    // Read as llama-server's, the same text has no evidence at all.
    CHECK_FALSE(parse_metrics(vllm).running);

    CHECK(parse_metrics("sglang:num_running_reqs{model_name=\"m\"} 2.0\n", evidence_of("sglang"))
              .running == 2.0);
    CHECK(parse_metrics("# TYPE tgi_batch_current_size gauge\ntgi_batch_current_size 4\n",
                        evidence_of("tgi"))
              .running == 4.0);

    // trtllm-serve: the steps since the previous answer; the peak is the largest listed.
    const std::string steps =
        R"([{"iter": 10, "numActiveRequests": 2, "maxBatchSizeStatic": 4,
             "inflightBatchingStats": {"numScheduledRequests": 2}},
            {"iter": 11, "numActiveRequests": 4}, {"iter": 12, "numActiveRequests": 1}])";
    const auto& trt = evidence_of("trtllm-serve");
    CHECK(parse_metrics(steps, trt).running == 4.0);
    CHECK_FALSE(parse_metrics("[]", trt).running);
    CHECK_FALSE(parse_metrics("not json", trt).running);
    CHECK_FALSE(parse_metrics(R"({"numActiveRequests": 3})", trt).running);  // not a list
    bi::core::KindEvidence nested = trt;
    nested.running_gauge = "inflightBatchingStats.numScheduledRequests";
    CHECK(parse_metrics(steps, nested).running == 2.0);

    // ik_llama.cpp's /slots: an integer state, no is_processing.
    const std::string ik = R"([{"id": 0, "id_task": 7, "state": 1}, {"id": 1, "id_task": -1,
                               "state": 0}, {"id": 2, "id_task": 9, "state": 1}])";
    CHECK(parse_slots(ik, evidence_of("ik_llama.cpp").slot_busy).busy == 2);
    CHECK(parse_slots(ik).busy == 0);  // read as llama-server's
}

TEST_CASE("a running-sum step counter gives the window's mean per step", "[metrics]") {
    const auto& spec = evidence_of("vllm");
    const auto sample = [&](double sum, double count, double running) {
        return parse_metrics("vllm:num_requests_running " + std::to_string(running) +
                                 "\nvllm:iteration_tokens_total_sum " + std::to_string(sum) +
                                 "\nvllm:iteration_tokens_total_count " + std::to_string(count) +
                                 "\n",
                             spec);
    };
    OverlapAccumulator acc(spec);
    acc.add_metrics(sample(100, 50, 0), 0, 10);
    acc.add_metrics(sample(160, 70, 4), 20, 30);  // 60 tokens over 20 steps
    const auto e = acc.evidence();
    REQUIRE(e.mean_busy_slots_per_decode);
    CHECK(*e.mean_busy_slots_per_decode == Approx(3.0));
    CHECK(e.peak_requests_processing == 4);
    CHECK_FALSE(e.slots_available);
    // Without a per-slot endpoint the gauge's timed readings are the busy samples.
    REQUIRE(e.busy_samples.size() == 2);
    CHECK(e.busy_samples[1].busy == 4);
    CHECK(e.busy_samples[1].start_ns == 20);
}
