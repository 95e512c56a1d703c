#include "throughput.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace bi::core {

namespace {

// Tokens an answered trial generated: the server's count, else what it streamed or returned.
std::int64_t generated(const TrialRecord& r) {
    if (r.completion_tokens) return *r.completion_tokens;
    if (r.token_ms) return static_cast<std::int64_t>(r.token_ms->size());
    if (r.token_ids) return static_cast<std::int64_t>(r.token_ids->size());
    return 0;
}

// The value at `share` of the sorted values (nearest rank).
double at_rank(const std::vector<double>& sorted, double share) {
    const auto rank =
        static_cast<std::size_t>(std::ceil(share * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// Adds one arm or pass: its answered tokens, its span and its streams' gaps.
void add(const ArmResults& results, ArmThroughput& into, std::vector<double>& gaps) {
    std::int64_t first = INT64_MAX;
    std::int64_t last = INT64_MIN;
    for (const auto& [id, r] : results) {
        if (r.has_interval()) {
            first = std::min(first, *r.dispatch_ns);
            last = std::max(last, *r.complete_ns);
        }
        if (!r.ok()) continue;
        into.tokens += generated(r);
        if (!r.token_ms) continue;
        for (std::size_t k = 1; k < r.token_ms->size(); ++k)
            gaps.push_back((*r.token_ms)[k] - (*r.token_ms)[k - 1]);
    }
    if (last > first) into.seconds += static_cast<double>(last - first) / 1e9;
}

ArmThroughput measure(std::string arm, const std::vector<const ArmResults*>& parts) {
    ArmThroughput t;
    t.arm = std::move(arm);
    std::vector<double> gaps;
    for (const ArmResults* part : parts) add(*part, t, gaps);
    if (!gaps.empty()) {
        std::sort(gaps.begin(), gaps.end());
        // Rounded to the microsecond, as the cert keeps times.
        const auto us = [](double ms) { return std::round(ms * 1000.0) / 1000.0; };
        t.itl_ms_median = us(at_rank(gaps, 0.5));
        t.itl_ms_p95 = us(at_rank(gaps, 0.95));
    }
    t.seconds = std::round(t.seconds * 1e6) / 1e6;
    return t;
}

}  // namespace

std::optional<double> ArmThroughput::tokens_per_s() const {
    if (!(seconds > 0.0)) return std::nullopt;
    return static_cast<double>(tokens) / seconds;
}

const ArmThroughput* Throughput::arm(std::string_view name) const {
    for (const auto& a : arms)
        if (a.arm == name) return &a;
    return nullptr;
}

std::optional<double> Throughput::speedup() const {
    const ArmThroughput* a = arm("A");
    const ArmThroughput* c = arm("C");
    if (!a || !c) return std::nullopt;
    const auto serial = a->tokens_per_s();
    const auto batched = c->tokens_per_s();
    if (!serial || !batched || !(*serial > 0.0) || c->tokens == 0) return std::nullopt;
    return *batched / *serial;
}

Throughput measure_throughput(const ArmResults& arm_a, const std::optional<ArmResults>& arm_b,
                              const std::vector<ArmResults>& arm_c) {
    Throughput t;
    t.arms.push_back(measure("A", {&arm_a}));
    if (arm_b) t.arms.push_back(measure("B", {&*arm_b}));
    std::vector<const ArmResults*> passes;
    passes.reserve(arm_c.size());
    for (const auto& pass : arm_c) passes.push_back(&pass);
    if (!passes.empty()) t.arms.push_back(measure("C", passes));
    return t;
}

}  // namespace bi::core
