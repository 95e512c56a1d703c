// One keep-alive HTTP/1.1 connection to a llama-server-compatible server. Transport problems come
// back as classified failures, never as exceptions, so a request can always be accounted for.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace bi::http {

struct Endpoint {
    std::string host = "127.0.0.1";
    std::uint16_t port = 0;
};

// A request that produced no usable answer. `mode` is a core::failure_mode value:
// "http_timeout", "http_error", "oom" or "bad_response"; `message` is one line for the record.
struct Failure {
    std::string mode;
    std::string message;
};

struct HttpResponse {
    int status = 0;  // 0 when no response arrived
    std::string body;
};

struct HttpOutcome {
    HttpResponse response;           // also filled for a non-2xx answer
    std::optional<Failure> failure;  // absent exactly when a 2xx response arrived in full
    int retries = 0;                 // stale keep-alive connections retried (at most one)
    bool ok() const { return !failure; }
};

// Classifies a complete HTTP answer: 2xx -> none; a 5xx whose body mentions "out of memory" or
// "failed to allocate" (any case) -> "oom"; any other status -> "http_error".
std::optional<Failure> classify_status(int status, std::string_view body);

// Owns one Poco HTTPClientSession. Not thread-safe, except cancel(), which any thread may call.
// Timeout: bounds the connect, each send and each receive wait; llama-server answers a
// non-streamed request in one piece when generation ends, so it bounds the request in practice.
// Failures: a socket timeout -> "http_timeout"; refused, reset or closed connections and every
// other transport error -> "http_error"; statuses as classify_status. After any transport error
// the connection is dropped and the next request opens a new one. A request whose reused
// keep-alive connection turns out closed by the server before any answer is sent once more on a
// fresh connection (the server never saw it) and counted in `retries`.
class HttpSession {
public:
    explicit HttpSession(Endpoint endpoint,
                         std::chrono::milliseconds timeout = std::chrono::seconds(60));
    ~HttpSession();
    HttpSession(const HttpSession&) = delete;
    HttpSession& operator=(const HttpSession&) = delete;

    HttpOutcome get(std::string_view path);
    HttpOutcome post_json(std::string_view path, std::string_view body_text);

    void set_timeout(std::chrono::milliseconds timeout);
    std::chrono::milliseconds timeout() const;
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
