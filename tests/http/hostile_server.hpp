// A raw-socket stand-in for a hostile HTTP server, for the client's deadline and size tests: it
// reads each request and then answers with whatever bytes, at whatever pace, a test scripts —
// headers dripped one byte at a time, an endless chunked body, a Content-Length it never sends.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace bi::test {

// What a script can do on one connection. Every call returns false once the peer has gone or
// the server is stopping, so scripts end promptly.
class HostileConnection {
public:
    virtual ~HostileConnection() = default;
    virtual bool send(const std::string& bytes) = 0;
    // One byte every `interval`, in order.
    virtual bool drip(const std::string& bytes, std::chrono::milliseconds interval) = 0;
    // Sleeps up to `duration`; false when the server is stopping.
    virtual bool pause(std::chrono::milliseconds duration) = 0;
};

// Called once per request with the connection and the request's index (0-based, over the
// server's lifetime). Returning false closes the connection; true reads the next request.
using HostileScript = std::function<bool(HostileConnection&, int request_index)>;

class HostileServer {
public:
    explicit HostileServer(HostileScript script);
    ~HostileServer();  // stops every script and joins every connection thread
    HostileServer(const HostileServer&) = delete;
    HostileServer& operator=(const HostileServer&) = delete;

    std::uint16_t port() const;
    int connections() const;  // connections accepted so far
    int requests() const;     // requests read so far
    int disconnects() const;  // connections the client closed (a send failed or EOF was read)

    struct State;

private:
    std::unique_ptr<State> state_;
};

// A complete response with a Content-Length: "HTTP/1.1 <status> X\r\n...\r\n\r\n<body>".
std::string http_response(const std::string& body, int status = 200,
                          const std::string& extra_headers = "");

}  // namespace bi::test
