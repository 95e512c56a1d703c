// One trial: the scored result of one request for one item in one arm/pass (docs/design.md §4).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "failure_label.hpp"
#include "json.hpp"
#include "verdict_kinds.hpp"

namespace bi::core {

// How many of the server's top alternatives a trial keeps per position: top-1 and top-2 are all
// the margin and the greedy check need, and a bound keeps a long completion's record small.
inline constexpr std::size_t kKeptAlternatives = 2;

// One alternative the server listed at a position (top_logprobs / completion_probabilities).
struct TokenAlternative {
    std::optional<std::int64_t> id;  // absent when the server sent none (OpenAI shape)
    std::string text;
    double logprob = 0.0;
};

struct TrialRecord {
    std::string test_id;
    std::string family;
    double fill = 0.0;
    std::string arm;  // "A", "A'", "B" or "C"
    int pass = 0;     // 1-based pass index for arm C, 0 elsewhere

    // Invariant: compared exactly; any difference is a divergence.
    std::optional<double> score;
    std::optional<bool> passed;
    Json extracted_answer;
    Json expected_answer;
    std::optional<std::int64_t> prompt_tokens_measured;
    FailureLabel failure_mode;  // no label until scored, unless the request itself failed

    // Diagnostic: differences raise AMBER, never RED. Everything the server generated is here,
    // so that drift in any of it (not only in content) is seen.
    std::string content;
    std::string content_sha;
    std::string reasoning_content;  // chat: message.reasoning_content; "" when none
    Json tool_calls;                // chat: message.tool_calls as sent; null when none
    std::optional<std::int64_t> completion_tokens;  // generated token count, when the server said
    std::string
        finish_reason;  // "length"/"stop"/"tool_calls" (chat), "limit"/"eos"/"word" (/completion)
    std::optional<std::vector<std::int64_t>> token_ids;
    std::optional<std::vector<double>> token_logprobs;  // chosen-token logprob per position
    // From the logprob entries: the chosen token's text per position, and the most likely
    // alternatives (best first, at most kKeptAlternatives) when the server listed any.
    std::optional<std::vector<std::string>> token_texts;
    std::optional<std::vector<std::vector<TokenAlternative>>> top_alternatives;

    // Attribution: steady-clock nanoseconds since the run started.
    std::optional<std::int64_t> dispatch_ns;
    std::optional<std::int64_t> complete_ns;
    std::optional<std::int64_t> id_slot;      // the slot the server says it used
    std::optional<std::int64_t> pinned_slot;  // the slot bi-run asked for (arm B), if any
    // A streamed answer: when each of its token chunks was made, in ms since the run started
    // (http::chunk_times_ms); the lockstep evidence and the throughput are computed from it.
    std::optional<std::vector<double>> token_ms;
    // The prompt cache's witness, as the kind declares it (CacheWitness): prompt tokens the
    // answer says were served from the cache, or else were evaluated this time.
    std::optional<std::int64_t> prompt_cached;
    std::optional<std::int64_t> prompt_evaluated;
    // The tokens the answer's decoding drafted, as the kind's draft_fields state them
    // (docs/servers.md "Speculative decoding"); nullopt when the answer stated none, which counts
    // as none drafted.
    std::optional<std::int64_t> drafted;

    // Volatile: never compared.
    double wall_ms = 0.0;
    double tokens_per_second = 0.0;
    int retries = 0;
    std::string error;

    bool ok() const { return failure_mode == FailureMode::Ok; }
    bool has_interval() const { return dispatch_ns && complete_ns && *complete_ns > *dispatch_ns; }
};

inline constexpr std::array<std::string_view, 6> kInvariantFields = {
    "score",       "passed", "extracted_answer", "expected_answer", "prompt_tokens_measured",
    "failure_mode"};

// The invariant fields as canonical JSON values, in kInvariantFields order.
std::vector<std::pair<std::string_view, Json>> invariant_values(const TrialRecord& record);

// Results of one arm or one pass, keyed by test_id.
using ArmResults = std::map<std::string, TrialRecord, std::less<>>;

// "0.35" for a fill ratio; the by_fill grouping key and the test_id suffix use it.
std::string format_fill(double fill);

// The most prompt tokens any trial of `arm` measured (the server's count, chat template
// included); nullopt when the arm is empty or a trial states no count.
std::optional<std::int64_t> longest_prompt_tokens(const ArmResults& arm);

}  // namespace bi::core
