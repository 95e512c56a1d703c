// Test-side HTTP helpers for the mock: a keep-alive client, request lining-up for co-batching,
// and a JSON shape comparison against the captured llama-server responses.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <Poco/Net/HTTPClientSession.h>

#include "core/json.hpp"
#include "mock/mock_server.hpp"
#include "wait_until.hpp"

namespace bi::mock::test {

struct Reply {
    int status = 0;
    std::string content_type;
    std::string body;
    core::Json json() const;  // parses body; fails the test on invalid JSON
};

class Client {
public:
    explicit Client(std::uint16_t port, int timeout_ms = 20000);
    Reply get(const std::string& path);
    Reply post(const std::string& path, const std::string& body);
    Reply post(const std::string& path, const core::Json& body);

private:
    Reply send(const std::string& method, const std::string& path, const std::string& body);
    Poco::Net::HTTPClientSession session_;
};

// Sends every body to `path` at once and returns the replies in order. The server's scheduler
// is paused until all of them hold a slot, so they are co-batched from their first token.
// Needs at least as many slots as bodies.
std::vector<Reply> post_cobatched(MockServer& server, const std::string& path,
                                  const std::vector<core::Json>& bodies);

// Waits until `predicate(server.stats())` holds; false after ten seconds (a hung test would be
// worse than a failed one). Speed is never asserted.
template <typename Predicate>
bool wait_for_stats(const MockServer& server, Predicate predicate) {
    return testing::wait_until([&] { return predicate(server.stats()); }, std::chrono::seconds(10));
}

// Paths ("a.b[0].c") present in `reference` but missing from `actual` or of another JSON type.
// Keys listed in `skip` are not descended into.
std::vector<std::string> shape_mismatches(const core::Json& reference, const core::Json& actual,
                                          const std::vector<std::string>& skip = {});

core::Json read_fixture(const std::string& name);  // tests/fixtures/llama-server/<name>
std::string read_fixture_text(const std::string& name);

MockConfig fast_config(int slots = 4);  // tick 0, metrics on

}  // namespace bi::mock::test
