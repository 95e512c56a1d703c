// Small builders for arms and passes in the core tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/cert.hpp"
#include "core/sha256.hpp"
#include "core/trial.hpp"
#include "core/verdict.hpp"

namespace bi::testing {

// A genuinely scored trial whose answer is "answer-<id>" and whose text is "text-<id>" (4 tokens,
// stopped by the length limit, no reasoning, no tool calls).
inline core::TrialRecord scored(const std::string& id, std::string family = "A2",
                                double fill = 0.35) {
    core::TrialRecord r;
    r.test_id = id;
    r.family = std::move(family);
    r.fill = fill;
    r.score = 1.0;
    r.passed = true;
    r.extracted_answer = "answer-" + id;
    r.expected_answer = "answer-" + id;
    r.prompt_tokens_measured = 100;
    r.failure_mode = core::FailureMode::Ok;
    r.content = "text-" + id;
    r.content_sha = core::content_sha(r.content);
    r.token_ids = std::vector<std::int64_t>{1, 2, 3, 4};
    r.token_logprobs = std::vector<double>{-0.5, -0.25, -1.0, -2.0};
    r.completion_tokens = 4;
    r.finish_reason = "length";
    return r;
}

inline core::ArmResults arm(int n_ids, const std::string& prefix = "id") {
    core::ArmResults results;
    for (int i = 0; i < n_ids; ++i) {
        auto r = scored(prefix + std::to_string(i));
        results.emplace(r.test_id, r);
    }
    return results;
}

// Gives every id of a pass the same interval, so all of them overlap (a fully co-batched pass).
inline core::ArmResults concurrent(core::ArmResults pass, std::int64_t start = 1000,
                                   std::int64_t end = 2000) {
    for (auto& [id, r] : pass) {
        r.dispatch_ns = start;
        r.complete_ns = end;
    }
    return pass;
}

// One id after another, no overlap at all.
inline core::ArmResults serial(core::ArmResults pass) {
    std::int64_t t = 0;
    for (auto& [id, r] : pass) {
        r.dispatch_ns = t;
        r.complete_ns = t + 10;
        t += 10;
    }
    return pass;
}

// A pass window in which the server showed `slots` requests computing, sampled inside the
// interval concurrent() gives every id.
inline core::ServerOverlapEvidence busy_server(std::int64_t slots = 4) {
    core::ServerOverlapEvidence s;
    s.peak_busy_slots = slots;
    s.peak_requests_processing = slots;
    s.mean_busy_slots_per_decode = static_cast<double>(slots);
    s.mean_busy_slots = static_cast<double>(slots);
    s.n_samples = 50;
    s.busy_samples = {{1200, 1300, slots, {}}};
    return s;
}

// A clean cell: A, A', B and T fully co-batched passes that all agree; the verdict is green.
inline core::CellEvidence clean_cell(int n_ids = 10, int passes = 3) {
    core::CellEvidence e;
    e.arm_a = serial(arm(n_ids));
    e.arm_a_prime = serial(arm(n_ids));
    e.arm_b = serial(arm(n_ids));
    for (int t = 0; t < passes; ++t) {
        e.arm_c.push_back(concurrent(arm(n_ids)));
        e.server_c_passes.push_back(busy_server());
    }
    e.dispatch_n = 4;
    e.reported_total_slots = 4;
    core::ServerOverlapEvidence b;
    b.peak_busy_slots = 1;
    b.peak_requests_processing = 1;
    b.n_samples = 30;
    e.server_b = b;
    return e;
}

// The fixed context of the cert tests: timestamp and run settings pinned so renders are stable.
inline core::CertContext fixed_cert_context() {
    core::CertContext c;
    c.cell = {"tiny/rand-256", 512, 4, "f16", 1};
    c.source = core::Source::Live;
    c.ts_utc = "2026-01-01T00:00:00Z";
    c.run = core::RunRecord{};
    c.run->seed = 42;
    c.run->n_predict = 16;
    return c;
}

}  // namespace bi::testing
