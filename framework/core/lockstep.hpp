// Co-batching seen from the token streams themselves. When requests are decoded in one batch,
// every decode step makes one token for each of them at the same moment, so their streamed chunks
// come in lockstep; a server that decodes one request at a time shows no overlapping decode
// windows, and one that time-slices (one token per step for one request, rotating over N) shows
// overlapping windows whose tokens alternate. This module tells the three apart for one C pass.
//
// Each step of a request is judged against that request's own inter-token interval g: another
// request's token "shares the step" when it was made within g / (2N) of it. A round-robin server
// over N requests spaces tokens g / N apart, so none of its tokens ever shares a step; a batch's
// tokens share it up to the timing noise, which must stay below g / (2N) (the timeline's clock:
// the server's own per-chunk clock where the kind sends one, else the client's arrival times).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bi::core {

// One request of a pass: when each of its token chunks was made, in ms on the pass's clock,
// non-decreasing. The first chunk ends the prefill; the decode steps are the chunks after it.
struct StreamTimeline {
    std::string id;
    std::vector<double> steps_ms;
};

// The share of an id's decode steps that must be shared for the id to count as co-batched, and
// the share of a pass's full steps (every request decoding) in which all N must share.
inline constexpr double kLockstepShare = 0.5;

struct LockstepEvidence {
    int n = 0;
    std::vector<std::string> cobatched_ids;      // shared at least kLockstepShare of their steps
    std::vector<std::string> not_cobatched_ids;  // decoded, but alone or out of step
    std::vector<std::string> too_short_ids;      // fewer than two chunks: nothing to judge
    // Steps (of any request) at which all N requests were decoding, and of those, the steps in
    // which all N made a token together.
    std::int64_t full_steps = 0;
    std::int64_t lockstep_full_steps = 0;
    int peak = 0;  // the most requests seen making a token in one step
    // The median over overlapping pairs of requests of the median offset of the other's nearest
    // token, as a fraction of the step (0 in lockstep, 1/N and more when time-sliced, 0.5 at most);
    // -1 when no two decode windows overlap (one at a time).
    double phase = -1.0;

    // All N made their tokens together in at least kLockstepShare of the full steps (and in at
    // least two of them).
    bool lockstep_at_n() const;
    // How far the full-step share is above kLockstepShare (negative: below); -1 with no full step.
    double margin() const;
};

// Judges one pass of N concurrent requests. Requests are matched by position only through their
// times; ids are reported as given.
LockstepEvidence judge_lockstep(const std::vector<StreamTimeline>& pass, int n);

}  // namespace bi::core
