#include "http_session.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPClientSession.h>
#include <Poco/Net/HTTPMessage.h>
#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/Net/NetException.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Timespan.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <vector>

#include "bounded_socket.hpp"
#include "core/error.hpp"
#include "core/trial.hpp"
#include "io/json_text.hpp"

namespace bi::http {

namespace {

// Idle connections older than this are reopened before use: llama-server's HTTP layer closes
// idle keep-alive connections after a few seconds, and a request written into a connection the
// server is closing would be lost.
constexpr auto kIdleReconnect = std::chrono::seconds(2);
constexpr std::size_t kMessageExcerpt = 200;
constexpr std::size_t kBodyChunk = std::size_t{64} * 1024;

using Clock = std::chrono::steady_clock;

Poco::Timespan to_timespan(std::chrono::milliseconds ms) {
    return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(ms.count()) * 1000);
}

bool contains_ignoring_case(std::string_view haystack, std::string_view needle) {
    auto lower = [](char c) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                          [&](char a, char b) { return lower(a) == lower(b); });
    return it != haystack.end();
}

std::string one_line(std::string_view text) {
    std::string out(text.substr(0, kMessageExcerpt));
    std::replace_if(
        out.begin(), out.end(),
        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, ' ');
    if (text.size() > kMessageExcerpt) out += "...";
    return out;
}

// The server's own words in an error body: {"error": {"message": ...}} (llama-server and the
// OpenAI dialect, with llama-server's n_prompt_tokens and n_ctx when it sends them),
// {"error": "..."} (Ollama) or {"message": ...}; the body itself when it is none of these.
std::string server_error_words(std::string_view body) {
    try {
        const core::Json root = io::parse_json(body, "error body");
        const core::Json* error = root.is_object() ? root.find("error") : nullptr;
        if (error && error->is_string()) return one_line(error->as_string());
        const core::Json& holder = error && error->is_object() ? *error : root;
        const core::Json* message = holder.is_object() ? holder.find("message") : nullptr;
        if (message && message->is_string()) {
            std::string words = one_line(message->as_string());
            const core::Json* prompt = holder.find("n_prompt_tokens");
            const core::Json* ctx = holder.find("n_ctx");
            if (prompt && ctx && prompt->is_int() && ctx->is_int())
                words += " (n_prompt_tokens " + std::to_string(prompt->as_int()) + ", n_ctx " +
                         std::to_string(ctx->as_int()) + ")";
            return words;
        }
    } catch (const Error&) {
        // not JSON: the body's own text
    }
    return one_line(body);
}

// StreamSocket's constructor from an implementation is protected; this is the way in.
class BoundedSocket : public Poco::Net::StreamSocket {
public:
    explicit BoundedSocket(BoundedSocketImpl* impl) : StreamSocket(impl) {}
};

enum class AttemptError { None, Timeout, Stalled, TooLarge, StaleConnection, Transport, Cancelled };

// What a streamed request adds to a plain one.
struct StreamRequest {
    const StreamSink* sink;
    std::chrono::milliseconds max_gap;
};

bool is_event_stream(const Poco::Net::HTTPResponse& response) {
    const std::string& type = response.getContentType();
    return type.rfind("text/event-stream", 0) == 0;
}

struct Attempt {
    HttpResponse response;
    AttemptError error = AttemptError::None;
    std::string message;
    int status = 0;  // the status line's, once it arrived
};

struct CancelledSignal {};

}  // namespace

std::string describe_duration(std::chrono::milliseconds ms) {
    if (ms.count() % 1000 == 0) return std::to_string(ms.count() / 1000) + " s";
    if (ms.count() < 1000) return std::to_string(ms.count()) + " ms";
    std::string text = std::to_string(ms.count() / 1000) + "." +
                       std::to_string(1000 + ms.count() % 1000).substr(1);
    while (text.back() == '0') text.pop_back();
    return text + " s";
}

std::optional<Failure> classify_status(int status, std::string_view body) {
    if (status >= 200 && status < 300) return std::nullopt;
    std::string message = "HTTP " + std::to_string(status);
    if (!body.empty()) message += ": " + server_error_words(body);
    if (status >= 500 && (contains_ignoring_case(body, "out of memory") ||
                          contains_ignoring_case(body, "failed to allocate")))
        return Failure{core::FailureMode::Oom, message, status};
    return Failure{core::FailureMode::HttpError, message, status};
}

struct HttpSession::Impl {
    Endpoint endpoint;
    std::chrono::milliseconds timeout;
    std::size_t max_response_bytes = kDefaultMaxResponseBytes;
    std::unique_ptr<Poco::Net::HTTPClientSession> session;
    BoundedSocketImpl* socket = nullptr;  // owned by `session` (reference-counted)
    bool delivered = false;  // this attempt handed bytes to a stream sink: it is never retried

    // cancel() runs on another thread: it may only shut down our duplicate of the socket in
    // flight, which this thread alone closes, under the mutex, so the descriptor cannot be
    // reused for another connection while cancel() holds it.
    mutable std::mutex mutex;
    bool cancelled = false;
    int inflight_fd = -1;

    void track_inflight() {
        std::lock_guard<std::mutex> lock(mutex);
        if (cancelled) throw CancelledSignal{};
        inflight_fd = ::dup(session->socket().impl()->sockfd());
    }

    void untrack_inflight() {
        std::lock_guard<std::mutex> lock(mutex);
        if (inflight_fd >= 0) ::close(inflight_fd);
        inflight_fd = -1;
    }

    bool is_cancelled() const {
        std::lock_guard<std::mutex> lock(mutex);
        return cancelled;
    }

    [[noreturn]] void rethrow_network_error(const char* what) {
        if (const Poco::Exception* e = session->networkException()) e->rethrow();
        throw Poco::IOException(what);
    }

    void open_session() {
        socket = new BoundedSocketImpl;
        session = std::make_unique<Poco::Net::HTTPClientSession>(BoundedSocket(socket));
        session->setHost(endpoint.host);
        session->setPort(endpoint.port);
        session->setKeepAlive(true);
        session->setKeepAliveTimeout(to_timespan(kIdleReconnect));
    }

    // Reads the body in pieces: the socket below bounds the time and the bytes of each piece.
    std::string read_body(std::istream& in, const Poco::Net::HTTPResponse& response) {
        if (response.hasContentLength() &&
            response.getContentLength64() > static_cast<Poco::Int64>(max_response_bytes))
            throw Poco::Net::MessageException("Content-Length too large");
        std::string text;
        std::vector<char> chunk(kBodyChunk);
        while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
            text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
        if (socket->expired() || socket->over_limit() || in.bad())
            rethrow_network_error("reading the response body failed");
        if (response.hasContentLength() &&
            static_cast<Poco::Int64>(text.size()) != response.getContentLength64())
            throw Poco::Net::MessageException("response body shorter than its Content-Length");
        return text;
    }

    // Hands the body to the sink piece by piece, as the reads return: a read of the stream
    // buffer blocks only until some bytes (or the end) arrive.
    void read_stream(std::istream& in, const StreamSink& sink) {
        std::streambuf* buffer = in.rdbuf();
        std::vector<char> piece(kBodyChunk);
        while (buffer->sgetc() != std::char_traits<char>::eof()) {
            // The bytes at hand came with the socket's latest receive (Poco refills its buffers
            // only once they are empty): stamped when they reached the machine, not when this
            // thread got round to them.
            const auto arrival = socket->last_arrival();
            const auto available =
                std::min<std::streamsize>(std::max<std::streamsize>(buffer->in_avail(), 1),
                                          static_cast<std::streamsize>(piece.size()));
            const auto n = buffer->sgetn(piece.data(), available);
            delivered = true;
            sink(std::string_view(piece.data(), static_cast<std::size_t>(n)), arrival);
        }
        if (socket->expired() || socket->stalled() || socket->over_limit())
            rethrow_network_error("reading the response stream failed");
    }

    // The socket's own flags say what ended the attempt: Poco wraps or swallows its exceptions.
    AttemptError bounded_error(const Poco::Net::HTTPResponse& response) const {
        if (socket && socket->over_limit()) return AttemptError::TooLarge;
        if (socket && socket->stalled()) return AttemptError::Stalled;
        if (socket && socket->expired()) return AttemptError::Timeout;
        if (response.hasContentLength() &&
            response.getContentLength64() > static_cast<Poco::Int64>(max_response_bytes))
            return AttemptError::TooLarge;
        return AttemptError::None;
    }

    Attempt attempt(const std::string& method, std::string_view path, const std::string_view* body,
                    Clock::time_point deadline, const StreamRequest* stream) {
        if (!session) open_session();
        socket->arm(deadline, max_response_bytes,
                    stream ? stream->max_gap : std::chrono::milliseconds::zero());
        // Poco reads a zero timeout as "wait forever"; the socket enforces the deadline itself.
        session->setTimeout(to_timespan(std::max(timeout, std::chrono::milliseconds(1))));
        const bool reused = session->connected();
        delivered = false;
        Poco::Net::HTTPRequest request(method, std::string(path), Poco::Net::HTTPMessage::HTTP_1_1);
        request.setKeepAlive(true);
        if (body) {
            request.setContentType("application/json");
            request.setContentLength64(static_cast<Poco::Int64>(body->size()));
        }
        Poco::Net::HTTPResponse response;
        Attempt result;
        try {
            std::ostream& out = session->sendRequest(request);
            if (body) out.write(body->data(), static_cast<std::streamsize>(body->size()));
            if (!out.good()) rethrow_network_error("sending the request failed");
            track_inflight();
            std::istream& in = session->receiveResponse(response);
            const auto status = static_cast<int>(response.getStatus());
            result.status = status;
            const bool streamed =
                stream && status >= 200 && status < 300 && is_event_stream(response);
            std::string text;
            if (streamed)
                read_stream(in, *stream->sink);
            else
                text = read_body(in, response);
            untrack_inflight();
            result.response =
                HttpResponse{status, std::move(text), response.getContentType(), streamed};
            return result;
        } catch (const CancelledSignal&) {
            result.error = AttemptError::Cancelled;
        } catch (const Poco::TimeoutException& e) {
            result.error = AttemptError::Timeout;
            result.message = e.displayText();
        } catch (const Poco::Net::NoMessageException& e) {
            result.error =
                reused && !delivered ? AttemptError::StaleConnection : AttemptError::Transport;
            result.message = "connection closed without a response: " + e.displayText();
        } catch (const Poco::Net::ConnectionResetException& e) {
            result.error =
                reused && !delivered ? AttemptError::StaleConnection : AttemptError::Transport;
            result.message = "connection reset: " + e.displayText();
        } catch (const Poco::Exception& e) {
            result.error = AttemptError::Transport;
            result.message = e.displayText();
        } catch (const std::exception& e) {
            result.error = AttemptError::Transport;
            result.message = e.what();
        }
        if (const AttemptError bounded = bounded_error(response); bounded != AttemptError::None)
            result.error = bounded;
        untrack_inflight();
        session.reset();  // a broken connection is never reused
        socket = nullptr;
        if (is_cancelled()) result.error = AttemptError::Cancelled;
        return result;
    }

    HttpOutcome request(const std::string& method, std::string_view path,
                        const std::string_view* body, const StreamRequest* stream = nullptr) {
        HttpOutcome outcome;
        const auto deadline = Clock::now() + std::max(timeout, std::chrono::milliseconds(1));
        for (int attempt_index = 0;; ++attempt_index) {
            if (is_cancelled()) {
                outcome.failure = Failure{core::FailureMode::HttpError, "request cancelled"};
                return outcome;
            }
            Attempt a = attempt(method, path, body, deadline, stream);
            if (a.error == AttemptError::StaleConnection && attempt_index == 0) {
                ++outcome.retries;
                continue;
            }
            const std::string target = method + " " + std::string(path) + ": ";
            switch (a.error) {
                case AttemptError::None:
                    outcome.response = std::move(a.response);
                    outcome.failure =
                        classify_status(outcome.response.status, outcome.response.body);
                    if (outcome.failure) outcome.failure->message.insert(0, target);
                    break;
                case AttemptError::Timeout:
                    outcome.failure = Failure{core::FailureMode::HttpTimeout,
                                              target + "no complete response within " +
                                                  describe_duration(timeout) + " (total deadline)"};
                    break;
                case AttemptError::Stalled:
                    outcome.failure =
                        Failure{core::FailureMode::HttpTimeout,
                                target + "no data for " + describe_duration(stream->max_gap) +
                                    " (stream stalled)"};
                    break;
                case AttemptError::TooLarge:
                    outcome.failure = Failure{core::FailureMode::BadResponse,
                                              target + "response larger than " +
                                                  std::to_string(max_response_bytes) + " bytes"};
                    break;
                case AttemptError::Cancelled:
                    outcome.failure = Failure{core::FailureMode::HttpError, "request cancelled"};
                    break;
                case AttemptError::StaleConnection:
                case AttemptError::Transport:
                    outcome.failure =
                        Failure{core::FailureMode::HttpError, target + one_line(a.message)};
                    break;
            }
            // The server answered (a status line came) before the answer failed.
            if (outcome.failure && outcome.failure->http_status == 0 &&
                a.error != AttemptError::Cancelled)
                outcome.failure->http_status = a.status;
            return outcome;
        }
    }
};

HttpSession::HttpSession(Endpoint endpoint, std::chrono::milliseconds timeout,
                         std::size_t max_response_bytes)
    : impl_(std::make_unique<Impl>()) {
    impl_->endpoint = std::move(endpoint);
    impl_->timeout = timeout;
    impl_->max_response_bytes = max_response_bytes;
}

HttpSession::~HttpSession() {
    impl_->untrack_inflight();
}

HttpOutcome HttpSession::get(std::string_view path) {
    return impl_->request(Poco::Net::HTTPRequest::HTTP_GET, path, nullptr);
}

HttpOutcome HttpSession::post_json(std::string_view path, std::string_view body_text) {
    return impl_->request(Poco::Net::HTTPRequest::HTTP_POST, path, &body_text);
}

HttpOutcome HttpSession::post_stream(std::string_view path, std::string_view body_text,
                                     const StreamSink& sink, std::chrono::milliseconds max_gap) {
    const StreamRequest stream{&sink, max_gap};
    return impl_->request(Poco::Net::HTTPRequest::HTTP_POST, path, &body_text, &stream);
}

void HttpSession::set_timeout(std::chrono::milliseconds timeout) {
    impl_->timeout = timeout;
}

std::chrono::milliseconds HttpSession::timeout() const {
    return impl_->timeout;
}

std::size_t HttpSession::max_response_bytes() const {
    return impl_->max_response_bytes;
}

const Endpoint& HttpSession::endpoint() const {
    return impl_->endpoint;
}

void HttpSession::cancel() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->cancelled = true;
    if (impl_->inflight_fd >= 0) ::shutdown(impl_->inflight_fd, SHUT_RDWR);
}

bool HttpSession::cancelled() const {
    return impl_->is_cancelled();
}

}  // namespace bi::http
