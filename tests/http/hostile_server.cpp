#include "hostile_server.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/StreamSocket.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace bi::test {

namespace {

constexpr auto kPollSlice = std::chrono::milliseconds(20);

}  // namespace

struct HostileServer::State {
    HostileScript script;
    Poco::Net::ServerSocket listener;
    std::thread acceptor;
    std::vector<std::thread> connections;  // touched by the acceptor thread and the destructor

    mutable std::mutex mutex;
    std::condition_variable stopping_changed;
    bool stopping = false;
    std::atomic<int> accepted{0};
    std::atomic<int> requests{0};
    std::atomic<int> disconnects{0};

    bool is_stopping() const {
        std::lock_guard<std::mutex> lock(mutex);
        return stopping;
    }

    bool sleep_unless_stopping(std::chrono::milliseconds duration) {
        std::unique_lock<std::mutex> lock(mutex);
        return !stopping_changed.wait_for(lock, duration, [this] { return stopping; });
    }

    void accept_loop() {
        while (!is_stopping()) {
            if (!listener.poll(Poco::Timespan(kPollSlice.count() * 1000),
                               Poco::Net::Socket::SELECT_READ))
                continue;
            Poco::Net::StreamSocket peer = listener.acceptConnection();
            accepted.fetch_add(1);
            connections.emplace_back([this, peer]() mutable { serve(peer); });
        }
    }

    // Reads one request (headers, then a Content-Length body); false when the peer is gone.
    bool read_request(Poco::Net::StreamSocket& peer) {
        std::string text;
        char buffer[4096];
        std::size_t header_end = std::string::npos;
        std::size_t wanted = 0;
        for (;;) {
            if (header_end == std::string::npos) {
                header_end = text.find("\r\n\r\n");
                if (header_end != std::string::npos) {
                    header_end += 4;
                    const auto at = text.find("Content-Length: ");
                    wanted = at != std::string::npos && at < header_end
                                 ? std::stoul(text.substr(at + 16))
                                 : 0;
                }
            }
            if (header_end != std::string::npos && text.size() >= header_end + wanted) return true;
            if (is_stopping()) return false;
            if (!peer.poll(Poco::Timespan(kPollSlice.count() * 1000),
                           Poco::Net::Socket::SELECT_READ))
                continue;
            const int n = peer.receiveBytes(buffer, sizeof buffer);
            if (n <= 0) return false;
            text.append(buffer, static_cast<std::size_t>(n));
        }
    }

    void serve(Poco::Net::StreamSocket peer);
};

namespace {

class Connection : public HostileConnection {
public:
    Connection(HostileServer::State& state, Poco::Net::StreamSocket& peer)
        : state_(state), peer_(peer) {}

    bool send(const std::string& bytes) override {
        if (state_.is_stopping() || gone_) return false;
        std::size_t sent = 0;
        while (sent < bytes.size()) {
            const auto n = ::send(peer_.impl()->sockfd(), bytes.data() + sent, bytes.size() - sent,
                                  MSG_NOSIGNAL);
            if (n <= 0) return lost();
            sent += static_cast<std::size_t>(n);
        }
        if (peer_closed()) return lost();
        return true;
    }

    bool drip(const std::string& bytes, std::chrono::milliseconds interval) override {
        for (char c : bytes) {
            if (!send(std::string(1, c))) return false;
            if (!pause(interval)) return false;
        }
        return true;
    }

    bool pause(std::chrono::milliseconds duration) override {
        const auto until = std::chrono::steady_clock::now() + duration;
        while (std::chrono::steady_clock::now() < until) {
            if (peer_closed()) return lost();
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                until - std::chrono::steady_clock::now());
            if (!state_.sleep_unless_stopping(std::min(left, kPollSlice))) return false;
        }
        return !gone_;
    }

    bool gone() const { return gone_; }

private:
    // The client closed or shut down its end: a readable socket with nothing to read.
    bool peer_closed() {
        pollfd fd{peer_.impl()->sockfd(), POLLIN, 0};
        if (::poll(&fd, 1, 0) <= 0) return false;
        char byte = 0;
        return ::recv(fd.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
    }

    bool lost() {
        if (!gone_) state_.disconnects.fetch_add(1);
        gone_ = true;
        return false;
    }

    HostileServer::State& state_;
    Poco::Net::StreamSocket& peer_;
    bool gone_ = false;
};

}  // namespace

void HostileServer::State::serve(Poco::Net::StreamSocket peer) {
    Connection connection(*this, peer);
    try {
        while (read_request(peer)) {
            const int index = requests.fetch_add(1);
            if (!script(connection, index) || connection.gone()) break;
        }
    } catch (const std::exception&) {
        disconnects.fetch_add(1);  // reset by the client
    }
    peer.close();
}

HostileServer::HostileServer(HostileScript script) : state_(std::make_unique<State>()) {
    state_->script = std::move(script);
    state_->listener.bind(Poco::Net::SocketAddress("127.0.0.1", 0));
    state_->listener.listen();
    state_->acceptor = std::thread([state = state_.get()] { state->accept_loop(); });
}

HostileServer::~HostileServer() {
    {
        std::lock_guard<std::mutex> lock(state_->mutex);
        state_->stopping = true;
    }
    state_->stopping_changed.notify_all();
    state_->acceptor.join();
    for (auto& t : state_->connections) t.join();
    state_->listener.close();
}

std::uint16_t HostileServer::port() const {
    return state_->listener.address().port();
}

int HostileServer::connections() const {
    return state_->accepted.load();
}

int HostileServer::requests() const {
    return state_->requests.load();
}

int HostileServer::disconnects() const {
    return state_->disconnects.load();
}

std::string http_response(const std::string& body, int status, const std::string& extra_headers) {
    return "HTTP/1.1 " + std::to_string(status) +
           " X\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n" + extra_headers + "\r\n" + body;
}

}  // namespace bi::test
