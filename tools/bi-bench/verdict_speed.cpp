#include "verdict_speed.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "bench_items.hpp"
#include "core/sha256.hpp"
#include "core/verdict.hpp"
#include "process_usage.hpp"

namespace bi::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kGroup = 4;               // ids that share a batch in a C pass
constexpr std::int64_t kStepNs = 1000;  // one request's place on the synthetic clock
constexpr int kTokens = 8;
const char* const kFamilies[] = {"recall", "arith", "code", "facts"};

std::string id_of(int i) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "bench|%07d", i);
    return buffer;
}

// The same invariant answer in every arm, so the verdict walks every comparison to the end.
core::TrialRecord synthetic_record(int i, const std::string& arm, int pass) {
    core::TrialRecord r;
    r.test_id = id_of(i);
    r.family = kFamilies[i % 4];
    r.fill = 0.1 * static_cast<double>(i % 9 + 1);
    r.arm = arm;
    r.pass = pass;
    r.score = 1.0;
    r.passed = true;
    r.extracted_answer = std::to_string(i % 97);
    r.expected_answer = std::to_string(i % 97);
    r.prompt_tokens_measured = 20 + i % 50;
    r.failure_mode = core::FailureMode::Ok;
    r.content = "the answer is " + std::to_string(i % 97);
    r.content_sha = core::content_sha(r.content);
    r.token_ids = std::vector<std::int64_t>(kTokens, i % 1000);
    if (pass == 0) {
        // Serial: back-to-back intervals that never overlap.
        r.dispatch_ns = static_cast<std::int64_t>(i) * kStepNs;
        r.complete_ns = *r.dispatch_ns + kStepNs - 1;
    } else {
        // Concurrent: ids of one group share an interval.
        r.dispatch_ns = static_cast<std::int64_t>(i / kGroup) * kStepNs;
        r.complete_ns = *r.dispatch_ns + kStepNs - 1;
    }
    r.id_slot = pass == 0 ? 0 : i % kGroup;
    return r;
}

core::ArmResults synthetic_arm(int ids, const std::string& arm, int pass) {
    core::ArmResults results;
    for (int i = 0; i < ids; ++i) results.emplace(id_of(i), synthetic_record(i, arm, pass));
    return results;
}

}  // namespace

Measurement measure_verdict_speed(const BenchLimits& limits) {
    const int ids = limits.verdict_ids;
    const int passes = limits.verdict_passes;
    const Clock::time_point b0 = Clock::now();
    core::CellEvidence evidence;
    evidence.arm_a = synthetic_arm(ids, "A", 0);
    evidence.arm_a_prime = synthetic_arm(ids, "A'", 0);
    evidence.arm_b = synthetic_arm(ids, "B", 0);
    for (int p = 1; p <= passes; ++p) evidence.arm_c.push_back(synthetic_arm(ids, "C", p));
    state_overlap(evidence, kGroup);
    const double build_s = std::chrono::duration<double>(Clock::now() - b0).count();

    const double load = load_average()[0];
    const Clock::time_point t0 = Clock::now();
    const core::Verdict verdict = core::decide_verdict(evidence);
    const double decide_s = std::chrono::duration<double>(Clock::now() - t0).count();

    Measurement m;
    m.key = "verdict_speed";
    m.title = "decide_verdict (core, synthetic)";
    m.value = decide_s * 1000.0;
    m.unit = "ms";
    m.setup = std::to_string(ids) + " ids x (A, A', B and " + std::to_string(passes) +
              " C passes), all invariant fields equal, every C id co-batched";
    m.load_1m = load;
    const double records = static_cast<double>(ids) * (3 + passes);
    m.add("records", records);
    m.add("records_per_second", decide_s > 0 ? records / decide_s : 0.0);
    m.add("build_records", build_s * 1000.0, "ms");
    m.add("verdict_green", verdict.status == core::Status::Green ? 1.0 : 0.0);
    return m;
}

}  // namespace bi::bench
