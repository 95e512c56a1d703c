// The two calls the driver and the generators make: one completion for one item, and a token
// count through the server's own tokenizer.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "completion_request.hpp"
#include "completion_response.hpp"
#include "completion_stream.hpp"
#include "http_session.hpp"

namespace bi::http {

// Sends build_request_body(options, system, prompt, seed) to request_path(options.endpoint) and
// parses the answer. Uses the session's current timeout and size limit (options.timeout and
// options.max_response_bytes are for the caller to apply, so it can shorten the timeout to an
// arm deadline). Never throws for server or transport trouble.
CompletionOutcome complete(HttpSession& session, const RequestOptions& options,
                           std::string_view system, std::string_view prompt, std::uint64_t seed);

// What bounds a streamed answer besides the session's deadline and size limit.
struct StreamLimits {
    std::size_t max_chunks = 1u << 20;  // events, the final ones included
    std::chrono::milliseconds max_gap = std::chrono::seconds(60);  // between two pieces
};

struct StreamedCompletion {
    CompletionOutcome outcome;
    StreamTrace trace;  // the token chunks as they arrived (those before a failure too)
    std::chrono::steady_clock::time_point sent;  // when the request was handed to the session
};

// complete() with options.stream set: the answer is read as server-sent events and assembled
// (CompletionStream). A 2xx answer that is not an event stream fails "bad_response" (the kind
// was asked to stream and did not). `on_first_token`, when set, is called once, on the calling
// thread, as soon as the first token chunk has arrived: the request is decoding.
StreamedCompletion complete_streamed(HttpSession& session, const RequestOptions& options,
                                     std::string_view system, std::string_view prompt,
                                     std::uint64_t seed, const StreamLimits& limits = {},
                                     const std::function<void()>& on_first_token = {});

struct TokenCountOutcome {
    std::int64_t count = 0;
    std::optional<Failure> failure;
    bool ok() const { return !failure; }
};

// POST `path` {"content": text} -> the length of "tokens". The server's default applies to
// special tokens (llama-server adds none, e.g. no BOS), so counts are of the text itself.
TokenCountOutcome tokenize(HttpSession& session, std::string_view text,
                           const std::string& path = "/tokenize");

struct DetokenizeOutcome {
    std::string content;
    std::optional<Failure> failure;
    bool ok() const { return !failure; }
};

// POST `path` {"tokens": ids} -> its "content": the text those ids stand for.
DetokenizeOutcome detokenize(HttpSession& session, const std::vector<std::int64_t>& ids,
                             const std::string& path);

}  // namespace bi::http
