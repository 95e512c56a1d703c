// Reads a completion answer from /v1/chat/completions or /completion into the fields a trial
// record keeps. Anything missing or of the wrong type becomes failure "bad_response".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "completion_request.hpp"
#include "core/json.hpp"
#include "core/trial.hpp"
#include "http_session.hpp"

namespace bi::http {

struct CompletionResult {
    std::string content;
    std::string reasoning_content;  // chat: message.reasoning_content; "" when none
    // Chat: message.tool_calls with each call's server-made "id" dropped (llama-server invents a
    // random one per call, which would make every tool call look like drift); null when the
    // server sent none or an empty list.
    core::Json tool_calls;
    std::optional<std::vector<std::int64_t>> token_ids;  // generated ids, when the server sent them
    std::optional<std::vector<double>> token_logprobs;   // chosen-token logprob per position
    std::optional<std::vector<std::string>> token_texts;  // chosen-token text per position
    // Per position, the best core::kKeptAlternatives of top_logprobs, most likely first; absent
    // when no entry listed any.
    std::optional<std::vector<std::vector<core::TokenAlternative>>> top_alternatives;
    std::optional<std::int64_t> prompt_tokens;
    std::optional<std::int64_t> completion_tokens;  // nullopt when no source below had it
    std::optional<std::int64_t> id_slot;
    // Chat: choices[0].finish_reason ("stop", "length", ...). /completion: stop_type ("eos",
    // "word", "limit", "none"). Empty when the server sent neither.
    std::string finish_reason;
    double tokens_per_second = 0.0;  // timings.predicted_per_second; 0 when absent
    // The kind's prompt-cache witness (core::CacheWitness) as the answer stated it: the prompt
    // tokens served from the cache, or else those evaluated this time; nullopt when absent.
    std::optional<std::int64_t> prompt_cached;
    std::optional<std::int64_t> prompt_evaluated;
    // The tokens its decoding drafted (the kind's draft_fields); nullopt when none was stated.
    std::optional<std::int64_t> drafted;
};

struct CompletionOutcome {
    CompletionResult result;         // meaningful only when ok()
    std::optional<Failure> failure;  // transport failure, or "bad_response"
    int retries = 0;
    bool ok() const { return !failure; }
};

// Required: Chat — choices[0].message.content (a string; null reads as ""), or choices[0].text
// (the OpenAI /v1/completions shape, read by the same parser); /completion — content (a
// string). Optional fields that are present and not null must have the right type.
// Sources:
//  token ids      chat: choices[0].logprobs.content[].id (only with logprobs on);
//                 /completion: tokens[] (return_tokens), else completion_probabilities[].id
//  logprobs       chat: choices[0].logprobs.content[].logprob;
//                 /completion: completion_probabilities[].logprob
//  token texts    the same entries' "token", when every entry has one
//  alternatives   the same entries' top_logprobs[] {id?, token, logprob}: the best
//                 core::kKeptAlternatives by logprob are kept (ties keep the server's order)
//  prompt tokens  chat: usage.prompt_tokens; /completion: tokens_evaluated. Both are the
//                 server's count of the whole prompt, whatever the prompt cache held, so they
//                 are the same in every arm. timings.prompt_n counts only the tokens evaluated
//                 this time (cached ones excluded), so timings.prompt_n + timings.cache_n is
//                 used only when the first source is absent.
//  completion tokens  usage.completion_tokens / tokens_predicted, else timings.predicted_n,
//                 else the number of token ids, else unknown
//  reasoning      chat: choices[0].message.reasoning_content (a string)
//  tool calls     chat: choices[0].message.tool_calls (an array)
//  id_slot        the top-level field the kind names slots by (its request.slot_field; the
//                 default kind's unless given; none when the kind has no slots; llama-server
//                 sends it on /completion only)
//  cache witness  the first of `witness`'s cached-tokens fields present, else the first of its
//                 evaluated-tokens fields (dotted paths; a non-negative integer each)
//  drafted        the first of `draft_fields` present (a dotted path; a non-negative integer)
CompletionOutcome parse_completion(
    EndpointKind endpoint, std::string_view body,
    std::string_view slot_field = io::default_server_kind().request.slot_field,
    const core::CacheWitness& witness = {}, const std::vector<std::string>& draft_fields = {});

// The same, for an answer already read as JSON (a streamed one, assembled).
CompletionOutcome parse_completion_json(EndpointKind endpoint, const core::Json& root,
                                        std::string_view slot_field,
                                        const core::CacheWitness& witness = {},
                                        const std::vector<std::string>& draft_fields = {});

}  // namespace bi::http
