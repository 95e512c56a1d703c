#include <catch2/catch.hpp>

#include "fake_llama_server.hpp"
#include "http/server_poller.hpp"
#include "io/files.hpp"

using bi::http::Endpoint;
using bi::http::ServerPoller;
using bi::test::FakeLlamaServer;
using bi::test::FakeScript;

namespace {

std::string fixture(const std::string& name) {
    return bi::io::read_file(std::string(BI_FIXTURES_DIR) + "/" + name);
}

std::string metrics_text(int decodes, double busy_per_decode, int processing) {
    return "llamacpp:n_decode_total " + std::to_string(decodes) +
           "\nllamacpp:n_busy_slots_per_decode " + std::to_string(busy_per_decode) +
           "\nllamacpp:requests_processing " + std::to_string(processing) + "\n";
}

// Runs a poller until the fake has answered `calls` /slots requests.
bi::core::ServerOverlapEvidence poll_until(const FakeLlamaServer& server, int calls) {
    ServerPoller poller(Endpoint{"127.0.0.1", server.port()});
    poller.start();
    REQUIRE(
        server.wait_until([calls](const FakeLlamaServer& s) { return s.slots_calls() >= calls; }));
    return poller.stop();
}

}  // namespace

TEST_CASE("the poller takes peaks from is_processing and the mean from deltas", "[poller]") {
    FakeScript script;
    script.slots_bodies = {fixture("slots_after.json"), fixture("slots_busy.json"),
                           fixture("slots_after.json")};
    script.metrics_bodies = {fixture("metrics.txt"), fixture("metrics_busy.txt")};
    FakeLlamaServer server(script);
    const auto e = poll_until(server, 4);
    CHECK(e.peak_busy_slots == 4);
    CHECK(e.peak_requests_processing == 4);
    REQUIRE(e.mean_busy_slots_per_decode);
    CHECK(*e.mean_busy_slots_per_decode == Approx(3.99631));
    CHECK(e.n_samples >= 4);
    CHECK(e.shows_overlap());
}

TEST_CASE("a stale id_task is never counted as a busy slot", "[poller]") {
    FakeScript script;
    script.slots_bodies = {fixture("slots_after.json")};
    script.metrics_bodies = {fixture("metrics.txt")};
    FakeLlamaServer server(script);
    const auto e = poll_until(server, 3);
    CHECK(e.peak_busy_slots == 0);
    CHECK(e.peak_requests_processing == 0);
    CHECK_FALSE(e.mean_busy_slots_per_decode);  // no decode in the window
    CHECK_FALSE(e.shows_overlap());
}

TEST_CASE("the window mean uses the first and last counters of the window", "[poller]") {
    FakeScript script;
    script.slots_bodies = {fixture("slots_idle.json")};
    script.metrics_bodies = {metrics_text(100, 1.0, 0), metrics_text(200, 2.0, 2)};
    FakeLlamaServer server(script);
    const auto e = poll_until(server, 3);
    REQUIRE(e.mean_busy_slots_per_decode);
    CHECK(*e.mean_busy_slots_per_decode == Approx(3.0));  // (400 - 100) / (200 - 100)
    CHECK(e.peak_requests_processing == 2);
}

TEST_CASE("metrics that answer 501 are unavailable (not an error) and asked once", "[poller]") {
    FakeScript script;
    script.slots_bodies = {fixture("slots_busy.json")};
    FakeLlamaServer server(script);
    const auto e = poll_until(server, 3);
    CHECK(e.peak_busy_slots == 4);
    CHECK(e.peak_requests_processing == 0);
    CHECK_FALSE(e.mean_busy_slots_per_decode);
    CHECK(server.metrics_calls() == 1);
}

TEST_CASE("a poller against no server gathers nothing and still stops", "[poller]") {
    ServerPoller poller(Endpoint{"127.0.0.1", bi::test::unused_port()});
    poller.start();
    CHECK(poller.running());
    const auto e = poller.stop();
    CHECK_FALSE(poller.running());
    CHECK(e.n_samples == 0);
    CHECK(e.peak_busy_slots == 0);
    CHECK_FALSE(e.mean_busy_slots_per_decode);
}
