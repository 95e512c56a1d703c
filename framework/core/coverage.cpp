#include "coverage.hpp"

#include <algorithm>
#include <utility>

#include "lockstep.hpp"

namespace bi::core {

std::size_t max_overlap_depth(const std::vector<Interval>& intervals) {
    std::vector<std::pair<std::int64_t, int>> events;
    events.reserve(intervals.size() * 2);
    for (const auto& interval : intervals) {
        if (interval.end_ns <= interval.start_ns) continue;
        events.emplace_back(interval.start_ns, +1);
        events.emplace_back(interval.end_ns, -1);
    }
    // At equal times the -1 (end) sorts before the +1 (start): touching is not overlapping.
    std::sort(events.begin(), events.end());
    std::size_t depth = 0, peak = 0;
    for (const auto& [time, delta] : events) {
        depth = delta > 0 ? depth + 1 : depth - 1;
        peak = std::max(peak, depth);
    }
    return peak;
}

namespace {

const BusySlot* busy_slot(const BusySample& sample, std::int64_t slot) {
    const auto at = std::lower_bound(
        sample.tasks.begin(), sample.tasks.end(), slot,
        [](const BusySlot& entry, std::int64_t wanted) { return entry.slot < wanted; });
    return at != sample.tasks.end() && at->slot == slot ? &*at : nullptr;
}

}  // namespace

bool server_concurrent_during(const std::vector<BusySample>& samples, std::int64_t start_ns,
                              std::int64_t end_ns, std::optional<std::int64_t> own_slot) {
    // The last answer wholly before the request and the first wholly after it.
    const BusySample* before = nullptr;
    const BusySample* after = nullptr;
    for (const auto& sample : samples) {
        if (sample.busy >= 2 && sample.start_ns >= start_ns && sample.end_ns <= end_ns) return true;
        if (sample.end_ns <= start_ns) before = &sample;
        if (!after && sample.start_ns >= end_ns) after = &sample;
    }
    if (!own_slot || !before || !after) return false;
    for (const auto& held : before->tasks) {
        if (held.slot == *own_slot) continue;
        const BusySlot* later = busy_slot(*after, held.slot);
        if (later && later->task == held.task) return true;
    }
    return false;
}

std::optional<double> busy_per_decode_between(const std::vector<DecodeSample>& samples,
                                              std::int64_t from_ns, std::int64_t to_ns) {
    const DecodeSample* first = nullptr;
    const DecodeSample* last = nullptr;
    for (const auto& sample : samples) {
        if (!first && sample.start_ns >= from_ns) first = &sample;
        if (sample.end_ns <= to_ns) last = &sample;
    }
    if (!first || !last || last == first) return std::nullopt;
    const double decodes = last->decodes - first->decodes;
    if (!(decodes > 0)) return std::nullopt;
    return (last->busy_slot_decodes - first->busy_slot_decodes) / decodes;
}

std::optional<Interval> full_concurrency_span(const std::vector<TrialRecord>& records,
                                              std::size_t concurrency) {
    std::vector<std::int64_t> sent;
    for (const auto& record : records)
        if (record.dispatch_ns) sent.push_back(*record.dispatch_ns);
    if (concurrency == 0 || sent.size() < concurrency) return std::nullopt;
    std::sort(sent.begin(), sent.end());
    const Interval span{sent[concurrency - 1], sent.back()};
    if (span.end_ns <= span.start_ns) return std::nullopt;
    return span;
}

std::size_t required_cobatched(std::size_t n_ids) {
    return std::max<std::size_t>(2, (n_ids * 4 + 4) / 5);
}

void settle_pass_coverage(PassCoverage& coverage) {
    coverage.required = required_cobatched(coverage.n_ids);
    coverage.attribution_certain = coverage.n_ids > 0 && coverage.missing_interval_ids.empty();
    coverage.ok = coverage.attribution_certain && coverage.n_cobatched >= coverage.required;
}

namespace {

const IdLockstep* judged_id(const LockstepEvidence& streams, const std::string& id) {
    for (const auto& judged : streams.ids)
        if (judged.id == id) return &judged;
    return nullptr;
}

}  // namespace

PassCoverage pass_coverage(const ArmResults& pass, int pass_index,
                           const ServerOverlapEvidence* server, const LockstepEvidence* streams) {
    PassCoverage coverage;
    coverage.pass = pass_index;
    coverage.n_ids = pass.size();

    struct Timed {
        const std::string* id;
        Interval interval;
        std::optional<std::int64_t> id_slot;
    };
    std::vector<Timed> timed;
    for (const auto& [id, record] : pass) {
        if (record.has_interval())
            timed.push_back({&id, {*record.dispatch_ns, *record.complete_ns}, record.id_slot});
        else
            coverage.missing_interval_ids.push_back(id);
    }

    std::sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) {
        return a.interval.start_ns < b.interval.start_ns;
    });
    // Sorted by start: an earlier interval overlaps i iff its end is past i's start; a later one
    // iff the next start is before i's end.
    std::int64_t max_end_before = INT64_MIN;
    for (std::size_t i = 0; i < timed.size(); ++i) {
        const Interval& current = timed[i].interval;
        const bool earlier = max_end_before > current.start_ns;
        const bool later = i + 1 < timed.size() && timed[i + 1].interval.start_ns < current.end_ns;
        // The streams prove an id co-batched when its tokens shared their steps; an id that
        // decoded beside requests still in their prefill shares none, so the sampled server
        // may still show it co-resident.
        bool cobatched = false;
        if (const IdLockstep* judged = streams ? judged_id(*streams, *timed[i].id) : nullptr) {
            ++coverage.n_judged_by_streams;
            cobatched = id_cobatched(judged->steps, judged->shared);
            if (cobatched) ++coverage.n_stream_cobatched;
        }
        cobatched = cobatched ||
                    ((earlier || later) &&
                     (!server || server_concurrent_during(server->busy_samples, current.start_ns,
                                                          current.end_ns, timed[i].id_slot)));
        if (cobatched) {
            ++coverage.n_cobatched;
            coverage.cobatched_ids.push_back(*timed[i].id);
        } else
            coverage.not_cobatched_ids.push_back(*timed[i].id);
        max_end_before = std::max(max_end_before, current.end_ns);
    }
    std::sort(coverage.not_cobatched_ids.begin(), coverage.not_cobatched_ids.end());
    std::sort(coverage.cobatched_ids.begin(), coverage.cobatched_ids.end());

    std::vector<Interval> intervals;
    intervals.reserve(timed.size());
    for (const auto& t : timed) intervals.push_back(t.interval);
    coverage.client_depth = max_overlap_depth(intervals);
    settle_pass_coverage(coverage);
    return coverage;
}

CompletionCensus completion_census(const ArmResults& results, std::string arm) {
    CompletionCensus census;
    census.arm = std::move(arm);
    for (const auto& [id, record] : results) {
        ++census.n;
        if (record.ok()) ++census.n_ok;
        const auto& label = record.failure_mode;
        if (!record.ok() && census.failures.size() < kCensusFailures)
            census.failures.push_back(
                {id, label.is_set() ? std::string(label.word()) : "unknown", record.error});
        ++census.by_mode[label.is_set() ? std::string(label.word()) : "unknown"];
    }
    return census;
}

}  // namespace bi::core
