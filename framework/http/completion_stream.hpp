// A streamed completion read back into the answer the same request gets unstreamed, plus the
// timing trace the co-batching evidence is computed from: when each token-carrying chunk
// arrived, how many tokens it carried, and the server's own clock for it where the server sends
// one (llama-server's timings.predicted_ms with timings_per_token).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "completion_request.hpp"
#include "completion_response.hpp"
#include "core/json.hpp"
#include "sse_reader.hpp"

namespace bi::http {

struct StreamChunk {
    std::chrono::steady_clock::time_point arrival;
    std::int64_t tokens = 1;          // tokens it carries (1 but for speculative decoding)
    std::optional<double> server_ms;  // the server's generation clock at this chunk, in ms
};

struct StreamTrace {
    std::vector<StreamChunk> chunks;  // the token-carrying chunks, in order
};

// When each token chunk was made, in ms since `origin`, for the lockstep evidence. With the
// server's clock on every chunk, its times are placed on the client's clock by the chunk that
// arrived soonest after it was made (offset = min(arrival - server_ms)): a chunk the client read
// late then keeps the moment it was made, while a server that made its tokens late cannot hide
// it (no chunk arrives before it is made). Without that clock, the arrival times.
std::vector<double> chunk_times_ms(const StreamTrace& trace,
                                   std::chrono::steady_clock::time_point origin);

// Reads the events of one streamed answer in the dialect of `endpoint`:
//  Completion  llama-server's /completion stream: objects with "stop"; each partial carries
//              content, tokens, tokens_predicted and, when asked, completion_probabilities and
//              timings; the one with "stop": true carries the totals and nothing more.
//  Chat        OpenAI chat.completion.chunk objects: choices[0].delta (content,
//              reasoning_content, tool_calls in pieces by index) or choices[0].text,
//              choices[0].logprobs.content, finish_reason on the last chunk, then optionally one
//              chunk with empty choices and the usage, then "[DONE]".
// Fails closed, the first problem kept: an error event (the server's own message), an event that
// is not a JSON object, a chunk after the final one, a count that disagrees with what was
// streamed (tokens_predicted, timings.predicted_n, usage.completion_tokens), a server clock that
// runs backwards, more than `max_chunks` events, or a stream that ends before its final chunk.
class CompletionStream {
public:
    // `witness` and `draft_fields`: the kind's prompt-cache and drafting fields, read from the
    // assembled answer.
    CompletionStream(EndpointKind endpoint, std::string slot_field, std::size_t max_chunks,
                     core::CacheWitness witness = {}, std::vector<std::string> draft_fields = {});

    void add(const SseEvent& event);

    // The assembled answer, read by parse_completion as if unstreamed; or the first problem
    // (bad_response, or http_error with the server's words for an error event). `broke_off`:
    // the connection ended mid-event.
    CompletionOutcome finish(bool broke_off) const;

    const StreamTrace& trace() const { return trace_; }

private:
    void add_completion(const core::Json& chunk, const SseEvent& event);
    void add_chat(const core::Json& chunk, const SseEvent& event);
    void add_timings(const core::Json& chunk, const SseEvent& event, bool carries_text);
    void fail(core::FailureMode mode, std::string message);

    EndpointKind endpoint_;
    std::string slot_field_;
    core::CacheWitness witness_;
    std::vector<std::string> draft_fields_;
    std::size_t max_chunks_;
    std::size_t events_ = 0;
    bool final_seen_ = false;  // Completion: "stop": true; Chat: a finish_reason
    bool done_seen_ = false;   // Chat: "[DONE]"
    std::optional<Failure> failure_;
    StreamTrace trace_;
    std::int64_t streamed_tokens_ = 0;
    std::optional<std::int64_t> last_predicted_n_;
    std::optional<double> last_server_ms_;

    // What the unstreamed answer would hold.
    std::string content_;
    std::string reasoning_;
    bool text_dialect_ = false;  // choices[0].text (OpenAI completions) rather than delta
    core::Json token_ids_ = core::Json::array();
    core::Json probabilities_ = core::Json::array();
    core::Json tool_calls_ = core::Json::array();
    core::Json final_ = core::Json::object();  // Completion: the final chunk's totals
    std::string finish_reason_;
    core::Json usage_;
    core::Json timings_;
    std::optional<std::int64_t> id_slot_;
};

}  // namespace bi::http
