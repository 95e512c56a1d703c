// Poco glue: the listening socket, the HTTP server with its own thread pool (one thread per
// connection), and a handler that hands each request to MockService.
#include "mock_server.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServer.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerRequestImpl.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/SocketImpl.h>
#include <Poco/ThreadPool.h>

#include <istream>
#include <mutex>

#include "core/error.hpp"
#include "mock_service.hpp"

namespace bi::mock {

namespace {

constexpr std::size_t kMaxBodyBytes = 64u << 20;
constexpr int kListenBacklog = 256;
constexpr int kMaxQueuedConnections = 1024;

// False when the body exceeds kMaxBodyBytes.
bool read_body(std::istream& in, std::string& body) {
    char buffer[1 << 16];
    while (in) {
        in.read(buffer, sizeof buffer);
        body.append(buffer, static_cast<std::size_t>(in.gcount()));
        if (body.size() > kMaxBodyBytes) return false;
    }
    return true;
}

// A dead server answers nothing: shut the socket so the client sees the connection drop.
void drop_connection(Poco::Net::HTTPServerRequest& request,
                     Poco::Net::HTTPServerResponse& response) {
    response.setKeepAlive(false);
    if (auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request)) {
        try {
            impl->socket().shutdown();
        } catch (...) {
            // Already closed by the peer: nothing left to drop.
        }
    }
}

// A streamed reply, its events written and flushed as the producer hands them over. A client
// that hangs up ends the producer's reading with the next write.
void send_stream(const HttpReply& reply, Poco::Net::HTTPServerResponse& response) {
    response.setChunkedTransferEncoding(true);
    response.setKeepAlive(false);
    std::ostream& out = response.send();
    for (bool more = true; more && out.good();) {
        std::string events;
        more = reply.stream(events);
        if (!events.empty()) out.write(events.data(), static_cast<std::streamsize>(events.size()));
        out.flush();
    }
}

class Handler : public Poco::Net::HTTPRequestHandler {
public:
    explicit Handler(MockService& service) : service_(service) {}

    void handleRequest(Poco::Net::HTTPServerRequest& request,
                       Poco::Net::HTTPServerResponse& response) override {
        try {
            HttpReply reply;
            const auto declared = request.getContentLength64();
            HttpCall call{request.getMethod(), request.getURI(), {}};
            if (declared > static_cast<Poco::Int64>(kMaxBodyBytes) ||
                !read_body(request.stream(), call.body)) {
                reply = error_reply(413, "request body too large", "invalid_request_error");
                response.setKeepAlive(false);  // the rest of the body is never read
            } else {
                reply = service_.handle(call);
            }
            if (reply.drop_connection) return drop_connection(request, response);
            // The reply goes out as its header and then its body: without TCP_NODELAY the body
            // can wait for the client's delayed ACK of the header.
            if (auto* impl = dynamic_cast<Poco::Net::HTTPServerRequestImpl*>(&request))
                impl->socket().setNoDelay(true);
            response.setStatusAndReason(
                static_cast<Poco::Net::HTTPResponse::HTTPStatus>(reply.status));
            response.setContentType(reply.content_type);
            if (reply.stream) return send_stream(reply, response);
            response.sendBuffer(reply.body.data(), reply.body.size());
        } catch (...) {
            // A client that vanished mid-request or mid-reply: nothing to answer.
            if (!response.sent()) drop_connection(request, response);
        }
    }

private:
    MockService& service_;
};

class HandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
public:
    explicit HandlerFactory(MockService& service) : service_(service) {}
    Poco::Net::HTTPRequestHandler* createRequestHandler(
        const Poco::Net::HTTPServerRequest&) override {
        return new Handler(service_);
    }

private:
    MockService& service_;
};

}  // namespace

struct MockServer::Impl {
    MockConfig config;
    std::unique_ptr<MockService> service;
    std::unique_ptr<Poco::ThreadPool> pool;
    std::unique_ptr<Poco::Net::HTTPServer> http;
    Poco::Net::ServerSocket socket;
    std::mutex listen_mutex;
    bool listening = false;
    bool started = false;
    bool stopped = false;
    std::uint16_t port = 0;

    // Runs on the main thread (stop) or a handler thread (in-process crash): abort open
    // connections and close the listening socket so new connections are refused.
    void stop_listening() {
        std::lock_guard<std::mutex> lock(listen_mutex);
        if (!listening) return;
        listening = false;
        // The acceptor thread polls in 250 ms rounds; shutting the listening socket down
        // first wakes it at once, so stopping takes milliseconds instead of a poll round.
        try {
            socket.impl()->shutdown();
        } catch (const Poco::Exception&) {
            // Not supported for this socket: the poll round simply runs out.
        }
        http->stopAll(true);
        socket.close();
    }
};

MockServer::MockServer(MockConfig config) : impl_(std::make_unique<Impl>()) {
    validate(config);
    impl_->config = std::move(config);
    Impl* impl = impl_.get();
    impl_->service =
        std::make_unique<MockService>(impl_->config, [impl] { impl->stop_listening(); });
}

MockServer::~MockServer() {
    stop();
}

std::uint16_t MockServer::start() {
    Impl& impl = *impl_;
    if (impl.started) throw Error(ErrorCategory::Server, "bi-mock: start() called twice");
    impl.started = true;
    try {
        impl.socket.bind(Poco::Net::SocketAddress("127.0.0.1", impl.config.port),
                         /*reuseAddress=*/true, /*reusePort=*/false);
        impl.socket.listen(kListenBacklog);
    } catch (const Poco::Exception& e) {
        impl.stopped = true;
        throw Error(ErrorCategory::Server,
                    "bi-mock: cannot listen on 127.0.0.1:" + std::to_string(impl.config.port) +
                        ": " + e.displayText());
    }
    impl.port = impl.socket.address().port();

    const int threads = http_thread_count(impl.config);
    impl.pool = std::make_unique<Poco::ThreadPool>(2, threads);
    Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
    params->setMaxThreads(threads);
    params->setMaxQueued(kMaxQueuedConnections);
    params->setKeepAlive(true);
    params->setServerName("bi-mock");
    impl.http = std::make_unique<Poco::Net::HTTPServer>(new HandlerFactory(*impl.service),
                                                        *impl.pool, impl.socket, params);
    impl.service->start();
    impl.http->start();
    {
        std::lock_guard<std::mutex> lock(impl.listen_mutex);
        impl.listening = true;
    }
    return impl.port;
}

void MockServer::stop() {
    Impl& impl = *impl_;
    if (!impl.started || impl.stopped) {
        impl.service->stop();
        return;
    }
    impl.stopped = true;
    impl.service->stop();  // wakes handlers blocked on completions or on the hang knob
    impl.stop_listening();
    impl.pool->joinAll();
    impl.http.reset();
}

std::uint16_t MockServer::port() const {
    return impl_->port;
}

bool MockServer::crashed() const {
    return impl_->service->crashed();
}

void MockServer::pause() {
    impl_->service->scheduler().pause();
}

void MockServer::resume() {
    impl_->service->scheduler().resume();
}

SchedulerStats MockServer::stats() const {
    return impl_->service->scheduler().stats();
}

std::vector<SlotView> MockServer::slots() const {
    return impl_->service->scheduler().slots();
}

const MockConfig& MockServer::config() const {
    return impl_->config;
}

}  // namespace bi::mock
