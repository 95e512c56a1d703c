// Overlap at N per pass and over the cell, and the C passes' server evidence merged into one.
#include "overlap.hpp"

#include <algorithm>

#include "text.hpp"

namespace bi::core {

namespace {

std::string cell_overlap_problem(std::int64_t n, const std::optional<std::int64_t>& total_slots,
                                 const KindEvidence& spec) {
    if (n < 2) return "N = " + std::to_string(n) + ": one request at a time cannot co-batch";
    if (spec.capacity_field.empty()) return "";  // the capacity is the argument bi-run launched
    if (!total_slots)
        return "the N-slot server did not report " + spec.capacity_field + " in " + spec.props_path;
    if (*total_slots != n)
        return "the N-slot server reports " + spec.capacity_field + " " +
               std::to_string(*total_slots) + ", asked for N = " + std::to_string(n);
    return "";
}

std::string hinted(const std::string& text, const std::string& hint) {
    return hint.empty() ? text : text + " (" + hint + ")";
}

// Overlap at N for one pass: client depth and every signal the kind declares reach N, and they
// agree (llama-server: /slots, /metrics requests_processing, busy slots per decode).
// `streams_n_wide`: the pass's token streams showed all N decoding in lockstep, so a signal
// whose samples peaked below N missed it (a short pass between two polls, a client descheduled
// between its requests) rather than contradict it: the streams are what the client saw. A signal
// that does not answer, or counters that contradict N, are still problems.
PassOverlap pass_overlap(int pass, std::size_t client_depth, const ServerOverlapEvidence* server,
                         std::int64_t n, const KindEvidence& spec, bool streams_n_wide) {
    PassOverlap o;
    o.pass = pass;
    o.client_depth = client_depth;
    const std::string at = "pass " + std::to_string(pass) + ": ";
    const std::string need = " (need " + std::to_string(n) + ")";
    // No window at all reads as a window in which neither endpoint answered, so that a cert's
    // record of it replays to the same problems.
    ServerOverlapEvidence none;
    none.slots_available = false;
    none.metrics_available = false;
    if (!server) server = &none;
    o.server = *server;
    o.server.busy_samples.clear();
    if (static_cast<std::int64_t>(client_depth) < n)
        o.problems.push_back(at + "client depth " + std::to_string(client_depth) + need);
    if (spec.has_slots()) {
        if (!server->slots_available)
            o.problems.push_back(at +
                                 hinted(spec.slots_path + " gave no evidence", spec.slots_hint));
        else if (server->peak_busy_slots < n && !streams_n_wide)
            // Entries that all lack the busy field show nothing, not an idle server.
            o.problems.push_back(at + (server->slot_busy_field_absent
                                           ? "no " + spec.slots_path + " entry has the field '" +
                                                 spec.slot_busy + "': is --server-kind right?"
                                           : "server peak busy slots " +
                                                 std::to_string(server->peak_busy_slots) + need));
    }
    const std::string gauge = short_metric(spec.running_gauge);
    if (spec.has_gauge()) {
        if (!server->metrics_available)
            o.problems.push_back(at +
                                 hinted(spec.metrics_path + " gave no " + gauge, spec.gauge_hint));
        else if (server->peak_requests_processing < n && !streams_n_wide)
            o.problems.push_back(
                at + spec.metrics_path + " " + gauge + " peaked at " +
                std::to_string(server->peak_requests_processing) + need +
                (spec.has_slots() && server->slots_available && server->peak_busy_slots >= n
                     ? ", contradicting " + spec.slots_path
                     : ""));
    }
    const std::string first_signal = spec.has_slots() ? spec.slots_path : gauge;
    if (spec.has_steps() && server->mean_busy_slots_per_decode &&
        !(*server->mean_busy_slots_per_decode > static_cast<double>(n) / 2.0)) {
        const std::string per_step = spec.step_mean.empty()
                                         ? " per step (" + short_metric(spec.step_sum) + ")"
                                         : " busy slots per decode";
        const std::string counters = spec.step_mean.empty() ? "step" : "decode";
        o.problems.push_back(at + "the " + counters + " counters say " +
                             format_fixed(*server->mean_busy_slots_per_decode, 2) + per_step +
                             " (need more than " + format_fixed(static_cast<double>(n) / 2.0, 1) +
                             "), contradicting " + first_signal);
    }
    return o;
}

}  // namespace

std::string short_metric(const std::string& name) {
    const auto colon = name.rfind(':');
    return colon == std::string::npos ? name : name.substr(colon + 1);
}

OverlapFinding evaluate_overlap(const OverlapInputs& in) {
    OverlapFinding f;
    if (const auto problem = cell_overlap_problem(in.dispatch_n, in.total_slots, in.evidence);
        !problem.empty())
        f.problems.push_back(problem);
    if (!in.evidence.has_any() && !in.streams_judge)
        f.problems.push_back(std::string(kNoBatchingEvidence));
    f.arm_b_serial = !in.server_b || (in.server_b->peak_busy_slots <= 1 &&
                                      in.server_b->peak_requests_processing <= 1);
    if (!f.arm_b_serial)
        f.problems.push_back("arm B (serial) showed " +
                             std::to_string(in.server_b->peak_busy_slots) + " busy slots and " +
                             std::to_string(in.server_b->peak_requests_processing) +
                             " requests processing at once: the server's evidence cannot be "
                             "trusted");
    for (std::size_t t = 0; t < in.client_depths.size(); ++t) {
        const ServerOverlapEvidence* server =
            t < in.pass_servers.size() ? in.pass_servers[t] : nullptr;
        const bool n_wide = t < in.streams_n_wide.size() && in.streams_n_wide[t];
        f.per_pass.push_back(pass_overlap(static_cast<int>(t + 1), in.client_depths[t], server,
                                          in.dispatch_n, in.evidence, n_wide));
        for (const auto& problem : f.per_pass.back().problems) f.problems.push_back(problem);
    }
    if (in.client_depths.empty()) f.problems.push_back("no concurrent pass ran");
    return f;
}

ServerOverlapEvidence merge_pass_evidence(const std::vector<ServerOverlapEvidence>& passes) {
    ServerOverlapEvidence merged;
    merged.slots_available = !passes.empty();
    merged.metrics_available = !passes.empty();
    merged.slot_busy_field_absent = !passes.empty();
    double mean_sum = 0.0;
    std::size_t n_means = 0;
    double busy_sum = 0.0;
    std::size_t n_busy = 0;
    for (const auto& pass : passes) {
        merged.slots_available = merged.slots_available && pass.slots_available;
        merged.metrics_available = merged.metrics_available && pass.metrics_available;
        merged.slot_busy_field_absent =
            merged.slot_busy_field_absent && pass.slot_busy_field_absent;
        if (pass.mean_busy_slots) {
            busy_sum += *pass.mean_busy_slots;
            ++n_busy;
        }
        merged.peak_busy_slots = std::max(merged.peak_busy_slots, pass.peak_busy_slots);
        merged.peak_requests_processing =
            std::max(merged.peak_requests_processing, pass.peak_requests_processing);
        merged.n_samples += pass.n_samples;
        if (pass.mean_busy_slots_per_decode) {
            mean_sum += *pass.mean_busy_slots_per_decode;
            ++n_means;
        }
    }
    if (n_means > 0) merged.mean_busy_slots_per_decode = mean_sum / static_cast<double>(n_means);
    if (n_busy > 0) merged.mean_busy_slots = busy_sum / static_cast<double>(n_busy);
    return merged;
}

}  // namespace bi::core
