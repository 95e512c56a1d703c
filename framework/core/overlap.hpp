// Overlap at N (docs/design.md §5.2): whether every C pass really had N requests computing at
// once, from the client's intervals and every co-batching signal the server kind declares.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coverage.hpp"
#include "server_kind.hpp"

namespace bi::core {

// One C pass's overlap at N, from the client's intervals and the server's own evidence.
struct PassOverlap {
    int pass = 0;
    std::size_t client_depth = 0;
    ServerOverlapEvidence server;       // that pass's window (samples dropped)
    std::vector<std::string> problems;  // why overlap at N is not proven; empty when it is
    bool ok() const { return problems.empty(); }
};

// Overlap at N, from what a cell's evidence (or a cert) records: N, the N-slot server's
// total_slots, arm B's server evidence, and per pass the client depth and the server's window.
struct OverlapInputs {
    std::int64_t dispatch_n = 0;
    std::optional<std::int64_t> total_slots;
    std::optional<ServerOverlapEvidence> server_b;
    std::vector<std::size_t> client_depths;                  // one per C pass
    std::vector<const ServerOverlapEvidence*> pass_servers;  // one per C pass; null: none
    KindEvidence evidence = llama_server_evidence();         // the signals the kind declares
    // The token streams judge co-batching (the lockstep gate): a kind without any signal of its
    // own is then not short of evidence here.
    bool streams_judge = false;
    // Per C pass: its streams showed all N decoding in lockstep (LockstepEvidence::lockstep_at_n).
    std::vector<bool> streams_n_wide;
};

// The overlap problem of a kind that declares no co-batching signal at all.
inline constexpr std::string_view kNoBatchingEvidence =
    "this server exposes no evidence that requests were batched";

struct OverlapFinding {
    bool arm_b_serial = true;  // arm B showed at most one busy slot and request processing
    std::vector<PassOverlap> per_pass;
    std::vector<std::string> problems;  // cell-level first, then each pass's; empty: proven
};

OverlapFinding evaluate_overlap(const OverlapInputs& inputs);

// The C passes' server evidence as one record: peaks are maxima over the passes, samples add
// up, and the busy-slots-per-decode mean is the mean of the passes that reported one.
ServerOverlapEvidence merge_pass_evidence(const std::vector<ServerOverlapEvidence>& passes);

// A metric as the reasons say it, without the exporter prefix a kind declares ("prefix:name" is
// "name").
std::string short_metric(const std::string& name);

}  // namespace bi::core
