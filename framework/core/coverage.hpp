// Evidence that the concurrent passes really co-batched: client interval overlap, per-pass
// co-batch coverage, server-side busy-slot evidence, and the completion census.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trial.hpp"

namespace bi::core {

struct Interval {
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
};

// Largest number of intervals open at one instant (sweep line). Touching intervals, where one
// ends exactly when the next starts, do not overlap.
std::size_t max_overlap_depth(const std::vector<Interval>& intervals);

struct ServerOverlapEvidence;
struct LockstepEvidence;

// Per pass, from that pass's own intervals only.
struct PassCoverage {
    int pass = 0;
    std::size_t n_ids = 0;
    std::size_t n_cobatched = 0;  // ids whose interval overlaps another id's interval
    std::size_t required = 0;     // max(2, ceil(0.8 * n_ids))
    std::size_t client_depth = 0;
    bool attribution_certain = false;  // every id has a valid interval
    std::vector<std::string> missing_interval_ids;
    std::vector<std::string> not_cobatched_ids;
    std::vector<std::string> cobatched_ids;  // in memory only: which trials count as hot
    // Ids the token streams judged (two chunks or more), and of those the ones whose tokens
    // shared their steps: co-batched whatever the sampled server showed.
    std::size_t n_judged_by_streams = 0;
    std::size_t n_stream_cobatched = 0;
    bool ok = false;
};

// max(2, ceil(0.8 * n_ids)): how many of a pass's n_ids must be co-batched.
std::size_t required_cobatched(std::size_t n_ids);

// A pass's required count, attribution and ok, from its n_ids, n_cobatched and missing intervals.
// pass_coverage ends with it; the cert replay settles a recorded pass with it.
void settle_pass_coverage(PassCoverage& coverage);

// `server`, when given, is that pass's own server evidence: an id then counts as co-batched only
// when its interval overlaps another id's AND the server showed concurrency inside it.
// `streams`, when given, is the pass's lockstep evidence: an id whose own steps were shared is
// co-batched, whatever the samples of the server saw (the client's observation wins).
PassCoverage pass_coverage(const ArmResults& pass, int pass_index,
                           const ServerOverlapEvidence* server = nullptr,
                           const LockstepEvidence* streams = nullptr);

// A slot seen computing, and the task it held (the server's own number for one request).
struct BusySlot {
    std::int64_t slot = 0;
    std::int64_t task = 0;
};

// One /slots answer: how many slots were computing, seen at some instant between the request's
// start and end (steady-clock ns since the run started), and which task each busy slot held
// where the kind names tasks.
struct BusySample {
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::int64_t busy = 0;
    std::vector<BusySlot> tasks;  // sorted by slot; empty when the kind names no tasks
};

// One reading of a kind's step counters: the running sum of busy slots over steps and the step
// count, answered between start_ns and end_ns.
struct DecodeSample {
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    double busy_slot_decodes = 0.0;
    double decodes = 0.0;
};

// What the server said while an arm (or one pass) ran, from the /slots and /metrics poller.
struct ServerOverlapEvidence {
    std::int64_t peak_busy_slots = 0;           // per-slot entries whose slot_busy field is set
    std::int64_t peak_requests_processing = 0;  // the kind's running gauge
    std::optional<double> mean_busy_slots_per_decode;
    std::size_t n_samples = 0;
    std::optional<double> mean_busy_slots;  // over the /slots answers of the window
    bool slots_available = true;            // /slots answered at least once, never 404/501
    bool metrics_available = true;          // /metrics likewise
    // /slots answered with entries, but none had the kind's busy field (slot_busy): the kind
    // does not describe this server, and an idle-looking answer is not evidence of idleness.
    bool slot_busy_field_absent = false;
    std::vector<BusySample> busy_samples;      // kept in memory for coverage; not in the cert
    std::vector<DecodeSample> decode_samples;  // in memory only, for busy_per_decode_between

    bool shows_overlap() const { return peak_busy_slots >= 2 || peak_requests_processing >= 2; }
};

// Whether the server showed a request in [start, end] sharing the batch with another: two or
// more slots computing at an instant inside [start, end], or — when the request's own slot is
// known — one task busy on another slot in an answer from before `start` and again in one from
// after `end` (a slot holds one task from admission to completion, so that task was resident
// the whole time the request was; short requests that fall between two answers are seen that
// way). `samples` are in time order.
bool server_concurrent_during(const std::vector<BusySample>& samples, std::int64_t start_ns,
                              std::int64_t end_ns,
                              std::optional<std::int64_t> own_slot = std::nullopt);

// The busy slots per step the counters show between the first reading answered wholly after
// from_ns and the last answered wholly before to_ns; none without two such readings a step
// apart. `samples` are in time order.
std::optional<double> busy_per_decode_between(const std::vector<DecodeSample>& samples,
                                              std::int64_t from_ns, std::int64_t to_ns);

// The span a closed-loop pass at `concurrency` kept that many requests in flight: from the
// concurrency-th request sent to the last one sent (every worker then has one in flight; before
// it the workers are still starting, after it they run out of items). None when the pass sent
// fewer than `concurrency` requests.
std::optional<Interval> full_concurrency_span(const std::vector<TrialRecord>& records,
                                              std::size_t concurrency);

// A request of the census that got no usable answer, in its own words.
struct CensusFailure {
    std::string test_id;
    std::string failure_mode;
    std::string error;  // e.g. "POST /completion: HTTP 400: the request exceeds ..."; "" if none
};

// How many failures a census names (the rest are counted in by_mode).
inline constexpr std::size_t kCensusFailures = 8;

struct CompletionCensus {
    std::string arm;
    std::size_t n = 0;
    std::size_t n_ok = 0;
    std::map<std::string, std::size_t> by_mode;
    // The first kCensusFailures trials that are not ok, by id: the cause of each, for the
    // reasons and the cert (absent in certs from before it was recorded).
    std::vector<CensusFailure> failures;
    double ratio() const {
        return n == 0 ? 0.0 : static_cast<double>(n_ok) / static_cast<double>(n);
    }
    bool meets(double floor) const { return n > 0 && ratio() >= floor; }
};

CompletionCensus completion_census(const ArmResults& results, std::string arm);

}  // namespace bi::core
