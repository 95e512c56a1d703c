// Response bodies of /completion, /v1/completions and /v1/chat/completions, with llama-server's
// field names (see shared/reference/llama-server/).
#pragma once

#include <cstdint>
#include <string>

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
// {id, token, bytes, logprob, top_logprobs[]} as in completion_probabilities and
// choices[].logprobs.content.
core::Json logprob_entry(const GeneratedToken& token);

}  // namespace bi::mock
