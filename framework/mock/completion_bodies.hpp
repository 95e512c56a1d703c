// Response bodies of /completion, /v1/completions and /v1/chat/completions, with llama-server's
// field names (see shared/reference/llama-server/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "request_parsing.hpp"
#include "scheduler.hpp"

namespace bi::mock {

struct ReplyContext {
    std::string model;         // alias or path
    std::string build_info;    // also the OpenAI system_fingerprint
    std::int64_t created = 0;  // unix seconds
};

core::Json completion_body(const CompletionRequest& request, const CompletionOutcome& outcome,
                           const ReplyContext& context);
core::Json oai_completion_body(const CompletionRequest& request, const CompletionOutcome& outcome,
                               const ReplyContext& context);
core::Json chat_completion_body(const CompletionRequest& request, const CompletionOutcome& outcome,
                                const ReplyContext& context);

core::Json timings_of(const CompletionOutcome& outcome);

// A streamed answer, event by event (each the JSON of one "data:" line), as llama-server streams
// it: one chunk per token, its timings (with timings_per_token) counting the task's tokens so
// far and its generation clock at this token; then the final chunk (/completion: the totals with
// no content, tokens or probabilities; chat: an empty delta with the finish reason), a usage
// chunk (chat, with include_usage) and "[DONE]" (OpenAI dialects).
std::vector<std::string> stream_token_events(const CompletionRequest& request,
                                             const CompletionOutcome& so_far,
                                             std::size_t token_index, const ReplyContext& context);
std::vector<std::string> stream_final_events(const CompletionRequest& request,
                                             const CompletionOutcome& outcome,
                                             const ReplyContext& context);
// {id, token, bytes, logprob, top_logprobs[]} as in completion_probabilities and
// choices[].logprobs.content.
core::Json logprob_entry(const GeneratedToken& token);

}  // namespace bi::mock
