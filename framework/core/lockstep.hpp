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

#include "trial.hpp"

namespace bi::core {

// One request of a pass: when each of its token chunks was made, in ms on the pass's clock,
// non-decreasing. The first chunk ends the prefill; the decode steps are the chunks after it.
struct StreamTimeline {
    std::string id;
    std::vector<double> steps_ms;
};

// The share of an id's decode steps that must be shared for the id to count as co-batched, and
// the share of a pass's steps with two or more requests decoding (or with all N decoding) in
// which all of them must make their tokens together.
inline constexpr double kLockstepShare = 0.5;

// One request's decode window and how many of its steps were judged and shared, what a cert keeps
// per id so the replay can recount every figure below.
struct IdLockstep {
    std::string id;
    double first_ms = 0.0;  // its first chunk: the prefill done
    double last_ms = 0.0;   // its last chunk
    // Decode steps judged (chunks after the first, one per moment); for a one-token answer, the
    // step that made it.
    std::int64_t steps = 0;
    std::int64_t shared = 0;  // of those, steps in which another request made a token too
};

// Co-batched: shared at least kLockstepShare of its judged steps.
bool id_cobatched(std::int64_t steps, std::int64_t shared);

// In lockstep: of `steps` steps, at least two and at least kLockstepShare were made together;
// and how far that share is above kLockstepShare (negative: below; -1 with no step).
bool in_lockstep(std::int64_t steps, std::int64_t together);
double lockstep_margin(std::int64_t steps, std::int64_t together);

struct LockstepEvidence {
    int n = 0;
    std::vector<IdLockstep> ids;                 // the judged ids (two chunks or more), as given
    std::vector<std::string> cobatched_ids;      // shared at least kLockstepShare of their steps
    std::vector<std::string> not_cobatched_ids;  // decoded, but alone or out of step
    std::vector<std::string> too_short_ids;      // no token chunk: nothing to judge
    // Steps (of any request) at which two or more requests were decoding, and of those, the steps
    // in which every one of them made a token together: batching of any width.
    std::int64_t multi_steps = 0;
    std::int64_t lockstep_multi_steps = 0;
    // Steps at which all N requests were decoding, and of those, the steps in which all N made a
    // token together: batching N wide.
    std::int64_t full_steps = 0;
    std::int64_t lockstep_full_steps = 0;
    int peak = 0;  // the most requests seen making a token in one step
    // The median over overlapping pairs of requests of the median offset of the other's nearest
    // token, as a fraction of the step (0 in lockstep, 1/N and more when time-sliced, 0.5 at most);
    // -1 when no two decode windows overlap (one at a time).
    double phase = -1.0;

    // The requests decoding together made their tokens together: in_lockstep over the multi
    // steps, or, where the server's own clock stamps tokens of one step some way apart (it
    // writes one answer after another) so that a step's share falls short, a median phase of
    // at most 1 / (2N) — half the 1 / N that time-slicing over N gives at the least. A server
    // that decodes one at a time (phase -1) or time-slices is neither.
    bool batched() const { return batched_margin() >= 0.0 && multi_steps >= 2 && peak >= 2; }
    // The larger of the share's margin and the phase's, 0.5 - N * phase (0.5 in perfect
    // lockstep, 0 at 1 / (2N), negative beyond).
    double batched_margin() const;
    // Requests whose prefill shared a step with another request's decoding: the first chunk (the
    // step that evaluated the prompt) came inside another id's decode window, more than half of
    // that id's step after its first chunk and less than half a step after its last.
    std::int64_t prefills_in_decode() const;
    // All N made their tokens together (in_lockstep over the full steps).
    bool lockstep_at_n() const { return in_lockstep(full_steps, lockstep_full_steps); }
    double margin() const { return lockstep_margin(full_steps, lockstep_full_steps); }
};

// Judges one pass of N concurrent requests. Requests are matched by position only through their
// times; ids are reported as given.
LockstepEvidence judge_lockstep(const std::vector<StreamTimeline>& pass, int n);

// judge_lockstep over the answered trials of one C pass that were streamed (TrialRecord::token_ms);
// an answered trial that was not streamed counts as too short to judge.
LockstepEvidence judge_pass_streams(const ArmResults& pass, int n);

}  // namespace bi::core
