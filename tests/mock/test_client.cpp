// Implementation of the mock tests' HTTP and fixture helpers.
#include "test_client.hpp"

#include <Poco/Net/HTTPRequest.h>
#include <Poco/Net/HTTPResponse.h>
#include <Poco/StreamCopier.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "io/json_text.hpp"

namespace bi::mock::test {

using core::Json;

Json Reply::json() const {
    try {
        return io::parse_json(body, "reply");
    } catch (const std::exception& e) {
        FAIL("reply is not JSON (" << e.what() << "): " << body);
    }
    return {};
}

Client::Client(std::uint16_t port, int timeout_ms) : session_("127.0.0.1", port) {
    session_.setKeepAlive(true);
    session_.setTimeout(Poco::Timespan(static_cast<long>(timeout_ms) * 1000));
}

Reply Client::get(const std::string& path) {
    return send("GET", path, "");
}

Reply Client::post(const std::string& path, const std::string& body) {
    return send("POST", path, body);
}

Reply Client::post(const std::string& path, const Json& body) {
    return send("POST", path, io::to_json_text(body));
}

Reply Client::send(const std::string& method, const std::string& path, const std::string& body) {
    Poco::Net::HTTPRequest request(method, path, Poco::Net::HTTPMessage::HTTP_1_1);
    request.setKeepAlive(true);
    if (method == "POST") {
        request.setContentType("application/json");
        request.setContentLength(static_cast<std::streamsize>(body.size()));
    }
    session_.sendRequest(request) << body;
    Poco::Net::HTTPResponse response;
    std::istream& in = session_.receiveResponse(response);
    Reply reply;
    reply.status = static_cast<int>(response.getStatus());
    reply.content_type = response.getContentType();
    Poco::StreamCopier::copyToString(in, reply.body);
    return reply;
}

std::vector<Reply> post_cobatched(MockServer& server, const std::string& path,
                                  const std::vector<Json>& bodies) {
    const int n = static_cast<int>(bodies.size());
    std::vector<Reply> replies(bodies.size());
    std::vector<std::thread> threads;
    server.pause();
    for (std::size_t i = 0; i < bodies.size(); ++i)
        threads.emplace_back([&, i] {
            try {
                Client client(server.port());
                replies[i] = client.post(path, bodies[i]);
            } catch (const std::exception& e) {
                replies[i].status = -1;  // asserted on the main thread
                replies[i].body = e.what();
            }
        });
    const bool lined_up =
        wait_for_stats(server, [n](const SchedulerStats& s) { return s.requests_processing == n; });
    server.resume();
    for (auto& thread : threads) thread.join();
    REQUIRE(lined_up);
    for (const auto& reply : replies) REQUIRE(reply.status == 200);
    return replies;
}

namespace {

void walk(const Json& reference, const Json& actual, const std::string& path,
          const std::vector<std::string>& skip, std::vector<std::string>& out) {
    using T = Json::Type;
    switch (reference.type()) {
        case T::Null:
            return;  // llama-server sends null for "absent"; any value is acceptable
        case T::Object:
            if (!actual.is_object()) {
                out.push_back(path + " (not an object)");
                return;
            }
            for (const auto& [key, value] : reference.as_object()) {
                const Json* found = actual.find(key);
                const std::string child = path.empty() ? key : path + "." + key;
                if (!found) {
                    out.push_back(child);
                    continue;
                }
                if (std::find(skip.begin(), skip.end(), key) == skip.end())
                    walk(value, *found, child, skip, out);
            }
            return;
        case T::Array:
            if (!actual.is_array()) {
                out.push_back(path + " (not an array)");
                return;
            }
            if (reference.size() > 0 && actual.size() > 0)
                walk(reference.as_array()[0], actual.as_array()[0], path + "[0]", skip, out);
            return;
        case T::Int:
        case T::Double:
            if (!actual.is_number()) out.push_back(path + " (not a number)");
            return;
        default:
            if (actual.type() != reference.type())
                out.push_back(path + " (is " + core::type_name(actual.type()) + ")");
            return;
    }
}

}  // namespace

std::vector<std::string> shape_mismatches(const Json& reference, const Json& actual,
                                          const std::vector<std::string>& skip) {
    std::vector<std::string> out;
    walk(reference, actual, "", skip, out);
    return out;
}

std::string read_fixture_text(const std::string& name) {
    std::ifstream in(std::string(BI_FIXTURES_DIR) + "/" + name, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

Json read_fixture(const std::string& name) {
    return io::parse_json(read_fixture_text(name), name);
}

MockConfig fast_config(int slots) {
    MockConfig config;
    config.slots = slots;
    config.tick_ms = 0.0;
    config.metrics = true;
    return config;
}

}  // namespace bi::mock::test
