// The one request body every arm sends for an item, like for like (docs/design.md §9.3):
// greedy sampling, a fixed seed, no prompt cache, the same length limit and logprob settings.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/endpoint_kind.hpp"
#include "core/server_kind.hpp"
#include "io/server_kind_io.hpp"
#include "response_limit.hpp"

namespace bi::http {

// The request's endpoint and its words are core's: a RunRequest holds one.
using core::endpoint_name;
using core::EndpointKind;
using core::parse_endpoint;

struct RequestOptions {
    EndpointKind endpoint = EndpointKind::Chat;
    int n_predict = 64;
    int logprobs = 0;  // K > 0: ask for the top-K logprobs per generated token
    // Empty: each item is sent with its own WorkItem::seed; set: every item uses this seed.
    std::optional<std::uint64_t> fixed_seed;
    std::optional<int> id_slot;  // set: the dialect's slot_field asks the server for that slot
    std::chrono::milliseconds timeout = std::chrono::seconds(120);  // total, per request
    std::size_t max_response_bytes = kDefaultMaxResponseBytes;      // per response
    // Paths and kind fields: the default kind's (its kind file) unless the run's kind is set.
    core::KindRequest dialect = io::default_server_kind().request;
    std::string model;    // sent as "model" when the dialect has model_field
    bool stream = false;  // ask for the answer as server-sent events (with dialect.stream_fields)
    // Token ids that follow the prompt's text (the cache arm's continuation cuts): sent as the
    // mixed prompt ["text", id, ...] on the completion endpoint, where dialect.prompt_ids says
    // the kind takes one; ignored by the chat endpoint.
    std::vector<std::int64_t> prompt_ids;
};

// Top logprobs asked per token when --logprobs K > 0: max(K, kMinTopLogprobs), since the
// forensics need the top-1/top-2 margin; 0 when logprobs are off.
inline constexpr int kMinTopLogprobs = 2;
int top_logprobs_asked(const RequestOptions& options);

// llama-server's paths: "/v1/chat/completions" or "/completion".
std::string_view request_path(EndpointKind endpoint);

// The dialect's path for the endpoint ("" when the kind has no native completion endpoint).
const std::string& request_path(const RequestOptions& options);

// The kind whose request_path(EndpointKind) is `path` (what a cert's or baseline's run.endpoint
// records); nullopt for any other.
std::optional<EndpointKind> endpoint_of_path(std::string_view path);

// The seed as sent: llama-server keeps a 32-bit seed and reads 0xFFFFFFFF as "pick a random
// one", so a 64-bit item seed is reduced modulo 0xFFFFFFFF into [0, 0xFFFFFFFE].
std::uint32_t wire_seed(std::uint64_t seed);

// JSON text of the body, in the dialect's field names (llama-server's shown):
//  Chat:       {"messages": [{"role":"system","content":system}?,
//  {"role":"user","content":prompt}],
//               "temperature":0, "top_k":1, "seed":S, "cache_prompt":false, "stream":false,
//               "max_tokens":n, "n_predict":n, and when K > 0 "logprobs":true, "top_logprobs":K'}
//  Completion: {"prompt":P, "n_predict":n, "temperature":0, "top_k":1, "seed":S,
//               "cache_prompt":false, "stream":false, "return_tokens":true, and "n_probs":K'}
// With options.stream, "stream" is true and the dialect's stream_fields are added.
// The dialect's limit_fields carry n, its fields are added as given, its slot_field carries
// id_slot and, with model_field, "model" names options.model.
// with K' = top_logprobs_asked(options) (sent only when K > 0).
// /completion applies no chat template, so a system text is sent as the start of the prompt:
// P = system + "\n\n" + prompt (just prompt when system is empty).
// S = wire_seed(options.fixed_seed when set, else `seed`, the item's own seed).
std::string build_request_body(const RequestOptions& options, std::string_view system,
                               std::string_view prompt, std::uint64_t seed);

}  // namespace bi::http
