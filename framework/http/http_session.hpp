// One keep-alive HTTP/1.1 connection to a llama-server-compatible server. Transport problems come
// back as classified failures, never as exceptions, so a request can always be accounted for.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/verdict_kinds.hpp"
#include "response_limit.hpp"

namespace bi::http {

struct Endpoint {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
};

// A request that produced no usable answer. `mode` is HttpTimeout, HttpError, Oom or
// BadResponse; `message` is one line for the record; `http_status` the status the server answered
// with (0: none arrived, or a 2xx whose body failed).
struct Failure {
    core::FailureMode mode = core::FailureMode::HttpError;
    std::string message;
    int http_status = 0;
};

struct HttpResponse {
    int status = 0;    // 0 when no response arrived
    std::string body;  // empty for a streamed answer (post_stream)
    std::string content_type;
    bool streamed = false;  // post_stream handed the body to its sink as it arrived
};

// The bytes of a streamed answer as they arrive, each piece with the moment it reached this
// machine (the kernel's receive stamp of the read that brought it, else when that read returned).
using StreamSink =
    std::function<void(std::string_view bytes, std::chrono::steady_clock::time_point arrival)>;

struct HttpOutcome {
    HttpResponse response;           // also filled for a non-2xx answer
    std::optional<Failure> failure;  // absent exactly when a 2xx response arrived in full
    int retries = 0;                 // stale keep-alive connections retried (at most one)
    bool ok() const { return !failure; }
};

// "30 s", "1.5 s", "200 ms": a duration as the failure messages write it.
std::string describe_duration(std::chrono::milliseconds ms);

// Classifies a complete HTTP answer: 2xx -> none; a 5xx whose body mentions "out of memory" or
// "failed to allocate" (any case) -> "oom"; any other status -> "http_error". The message is
// "HTTP 400: " and the server's own words: the body's error message where it is an error object
// (llama-server's n_prompt_tokens and n_ctx after it), else the body, each cut at 200 characters
// and kept on one line.
std::optional<Failure> classify_status(int status, std::string_view body);

// Owns one Poco HTTPClientSession. Not thread-safe, except cancel(), which any thread may call.
// Timeout: one wall-clock deadline per request, covering the connect, the send and the whole
// response (status line, headers and body), however slowly the server sends it; a retry on a
// fresh connection (below) shares it. Past it the request fails "http_timeout", message
// "no complete response within 30 s". Size: a response (status line, headers and body as sent,
// chunk framing included) longer than max_response_bytes fails "bad_response", message
// "response larger than N bytes", as soon as the excess arrives; a Content-Length above the limit
// is refused before any of the body is read. Other failures: refused, reset or closed
// connections and every other transport error -> "http_error"; statuses as classify_status.
// After any failure the connection is dropped and the next request opens a new one. A request
// whose reused keep-alive connection turns out closed by the server before any answer is sent
// once more on a fresh connection (the server never saw it) and counted in `retries`.
class HttpSession {
public:
    explicit HttpSession(Endpoint endpoint,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60),
                         std::size_t max_response_bytes = kDefaultMaxResponseBytes);
    ~HttpSession();
    HttpSession(const HttpSession&) = delete;
    HttpSession& operator=(const HttpSession&) = delete;

    HttpOutcome get(std::string_view path);
    HttpOutcome post_json(std::string_view path, std::string_view body_text);

    // POST whose 2xx text/event-stream answer is read as it arrives: each piece goes to `sink`
    // and response.streamed is set. Any other answer is read whole, as post_json reads it (a
    // server that did not stream is the caller's to judge). The deadline and size limit hold
    // as for every request; besides, a gap longer than `max_gap` between two pieces of the
    // answer fails it "http_timeout", message "no data for 10 s (stream stalled)".
    HttpOutcome post_stream(std::string_view path, std::string_view body_text,
                            const StreamSink& sink, std::chrono::milliseconds max_gap);

    void set_timeout(std::chrono::milliseconds timeout);
    std::chrono::milliseconds timeout() const;
    std::size_t max_response_bytes() const;
    const Endpoint& endpoint() const;

    // Ends the request in flight (it fails with "http_error", message "request cancelled") and
    // makes every later request fail the same way without being sent. Thread-safe; idempotent.
    void cancel();
    bool cancelled() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bi::http
