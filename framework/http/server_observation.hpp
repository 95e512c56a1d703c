// What /slots and /metrics say about co-batching, and how a window of samples becomes
// core::ServerOverlapEvidence (docs/design.md §5.2; the poller, docs/design.md §9.5).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/coverage.hpp"
#include "core/server_kind.hpp"
#include "io/server_kind_io.hpp"

namespace bi::http {

struct SlotsSample {
    std::int64_t n_slots = 0;
    // Entries whose busy field (the kind's slot_busy) is true or a non-zero number; a stale
    // task id is not evidence.
    std::int64_t busy = 0;
    // The busy entries that name their task (the kind's slot_task field, a non-negative
    // integer), by slot id: the entry's integer "id", else its place in the array.
    std::vector<core::BusySlot> busy_tasks;
    std::int64_t with_busy_field = 0;  // entries that have the busy field at all
};

// A per-slot endpoint's body: an array of slot objects. bi::Error(Http) when it is not one.
// `task_field` empty: no task ids are read. The fields default to the default kind's.
SlotsSample parse_slots(std::string_view body,
                        std::string_view busy_field = io::default_server_kind().evidence.slot_busy,
                        std::string_view task_field = io::default_server_kind().evidence.slot_task);

struct MetricsSample {
    std::map<std::string, double, std::less<>> values;  // every "name value" line, labels dropped
    std::optional<double> running;                      // the kind's running gauge (running_gauge)
    std::optional<double> step_mean;   // its running mean of busy requests per step (step_mean)
    std::optional<double> step_sum;    // or its running sum per step (step_sum, a histogram's _sum)
    std::optional<double> step_count;  // over this many steps (step_count)
};

// The kind's metrics answer: Prometheus text exposition (comments and lines that do not parse
// are skipped) or, for "json-iterations", a JSON array of per-step objects whose running gauge
// (a dotted field path) is the largest of the steps listed. Never throws.
MetricsSample parse_metrics(std::string_view text,
                            const core::KindEvidence& spec = io::default_server_kind().evidence);

// Folds a window of samples into evidence. A step_mean gauge (llama-server's busy slots per
// decode) is a running average over every step since the server started, so S = gauge * count
// is the running sum of busy slots over steps (a kind with step_sum reads S directly), and the
// window mean is (S_last - S_first) / (n_last - n_first) — absent when no step ran in the window
// or the metrics never answered. The gauge is printed with about six significant digits, so the
// mean carries a rounding error that grows with the step count before the window. Each reading is
// kept too (decode_samples), so that a pass's mean can be taken over the span it kept N requests in
// flight (core::busy_per_decode_between). A kind without a per-slot endpoint times its running
// gauge instead: each reading is then a busy sample for the per-id confirmation.
class OverlapAccumulator {
public:
    explicit OverlapAccumulator(core::KindEvidence spec = io::default_server_kind().evidence)
        : spec_(std::move(spec)) {}
    void add_slots(const SlotsSample& sample);
    // The same, seen between start_ns and end_ns (steady-clock ns since the run started).
    void add_slots(const SlotsSample& sample, std::int64_t start_ns, std::int64_t end_ns);
    void mark_unavailable(bool slots, bool metrics);
    void add_metrics(const MetricsSample& sample);
    // The same, its gauge reached between start_ns and end_ns.
    void add_metrics(const MetricsSample& sample, std::int64_t start_ns, std::int64_t end_ns);
    void count_sample() { ++n_samples_; }  // one sampling round that got at least one answer
    core::ServerOverlapEvidence evidence() const;

private:
    struct DecodeSum {
        double busy_slot_decodes = 0.0;
        double decodes = 0.0;
    };
    core::KindEvidence spec_;
    std::int64_t peak_busy_slots_ = 0;
    std::int64_t busy_sum_ = 0;
    std::size_t n_slots_answers_ = 0;
    std::size_t n_metrics_answers_ = 0;
    std::int64_t n_slot_entries_ = 0;     // over every /slots answer
    std::int64_t n_with_busy_field_ = 0;  // of those, the entries that had the busy field
    bool slots_unavailable_ = false;
    bool metrics_unavailable_ = false;
    bool peak_requests_processing_seen_ = false;  // /metrics carried the requests gauge
    std::vector<core::BusySample> busy_samples_;
    std::vector<core::DecodeSample> decode_samples_;
    std::int64_t peak_requests_processing_ = 0;
    std::size_t n_samples_ = 0;
    std::optional<DecodeSum> first_;
    std::optional<DecodeSum> last_;
    bool last_answer_had_steps_ = false;
};

}  // namespace bi::http
