// Co-batching over HTTP: concurrent requests really share decode steps, /slots and /metrics show
// it while it happens, and without divergence the outputs equal the serial ones byte for byte.
#include <catch2/catch.hpp>

#include <sstream>
#include <thread>

#include "io/json_text.hpp"
#include "test_client.hpp"

using namespace bi::mock;
using namespace bi::mock::test;
using bi::core::Json;

namespace {

Json completion_request(int i, int n_predict) {
    return Json::Object{{"prompt", "Request " + std::to_string(i) + ": describe a river."},
                        {"n_predict", n_predict},
                        {"n_probs", 2},
                        {"return_tokens", true},
                        {"temperature", 0},
                        {"cache_prompt", false}};
}

// The fields that must be identical run to run: text, ids and logprobs.
std::string invariant_part(const Json& body) {
    return bi::io::to_json_text(Json::Object{{"content", *body.find("content")},
                                             {"tokens", *body.find("tokens")},
                                             {"probs", *body.find("completion_probabilities")}});
}

// Values of the metric lines that start with `prefix` (HELP/TYPE lines never do).
std::vector<std::string> lines_with(const std::string& text, const std::string& prefix) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(prefix, 0) == 0) out.push_back(line.substr(prefix.size()));
    return out;
}

}  // namespace

TEST_CASE("serial and concurrent runs are byte-identical without divergence", "[mock][http]") {
    auto config = fast_config(4);
    config.tick_ms = 0.2;
    MockServer server(config);
    server.start();
    constexpr int kRequests = 12;

    std::vector<std::string> serial;
    Client client(server.port());
    for (int i = 0; i < kRequests; ++i)
        serial.push_back(
            invariant_part(client.post("/completion", completion_request(i, 24)).json()));
    for (int i = 0; i < kRequests; ++i)  // again: the serial self-check
        CHECK(invariant_part(client.post("/completion", completion_request(i, 24)).json()) ==
              serial[static_cast<std::size_t>(i)]);

    std::vector<std::string> concurrent(kRequests);
    std::vector<std::thread> threads;
    for (int worker = 0; worker < 6; ++worker)
        threads.emplace_back([&, worker] {
            Client own(server.port());
            for (int i = worker; i < kRequests; i += 6)
                concurrent[static_cast<std::size_t>(i)] =
                    invariant_part(own.post("/completion", completion_request(i, 24)).json());
        });
    for (auto& thread : threads) thread.join();
    CHECK(concurrent == serial);
    // Six clients on four slots: the stats prove some decode steps held several requests.
    const auto stats = server.stats();
    CHECK(stats.n_busy_slots_total > stats.n_decode_total);
}

TEST_CASE("/slots and /metrics show co-batched requests while they run", "[mock][http]") {
    MockServer server(fast_config(4));
    server.start();
    Client observer(server.port());
    server.pause();
    std::vector<std::thread> threads;
    std::vector<int> statuses(3, 0);
    for (int i = 0; i < 3; ++i)
        threads.emplace_back([&, i] {
            Client client(server.port());
            statuses[static_cast<std::size_t>(i)] =
                client.post("/completion", completion_request(i, 10)).status;
        });
    const bool lined_up =
        wait_for_stats(server, [](const SchedulerStats& s) { return s.requests_processing == 3; });

    const auto slots = observer.get("/slots").json();
    const auto metrics = observer.get("/metrics").body;
    server.resume();
    for (auto& thread : threads) thread.join();
    REQUIRE(lined_up);
    CHECK(statuses == std::vector<int>{200, 200, 200});

    int busy = 0;
    for (const auto& slot : slots.as_array()) {
        if (!slot.bool_or("is_processing", false)) continue;
        ++busy;
        CHECK(slot.int_or("id_task", -1) >= 0);
        CHECK(slot.find("next_token")->as_array()[0].int_or("n_decoded", -1) == 0);
    }
    CHECK(busy == 3);
    CHECK(lines_with(metrics, "llamacpp:requests_processing ") == std::vector<std::string>{"3"});

    // Afterwards: task ids stay (stale) but nothing is processing; every decode held all three.
    const auto after = observer.get("/slots").json();
    int stale = 0;
    for (const auto& slot : after.as_array()) {
        CHECK_FALSE(slot.bool_or("is_processing", true));
        if (slot.find("id_task")) ++stale;
    }
    CHECK(stale == 3);
    const auto final_metrics = observer.get("/metrics").body;
    CHECK(lines_with(final_metrics, "llamacpp:n_busy_slots_per_decode ") ==
          std::vector<std::string>{"3"});
    CHECK(lines_with(final_metrics, "llamacpp:n_decode_total ") == std::vector<std::string>{"11"});
    CHECK(lines_with(final_metrics, "llamacpp:tokens_predicted_total ") ==
          std::vector<std::string>{"30"});
    CHECK(lines_with(final_metrics, "llamacpp:requests_processing ") ==
          std::vector<std::string>{"0"});
}

TEST_CASE("requests beyond the slots are deferred, then served", "[mock][http]") {
    MockServer server(fast_config(1));
    server.start();
    server.pause();
    std::vector<std::thread> threads;
    std::vector<int> slots_used(3, -1);
    for (int i = 0; i < 3; ++i)
        threads.emplace_back([&, i] {
            Client client(server.port());
            slots_used[static_cast<std::size_t>(i)] = static_cast<int>(
                client.post("/completion", completion_request(i, 4)).json().int_or("id_slot", -1));
        });
    const bool queued = wait_for_stats(server, [](const SchedulerStats& s) {
        return s.requests_processing == 1 && s.requests_deferred == 2;
    });
    Client observer(server.port());
    const auto metrics = observer.get("/metrics").body;
    server.resume();
    for (auto& thread : threads) thread.join();
    REQUIRE(queued);
    CHECK(lines_with(metrics, "llamacpp:requests_deferred ") == std::vector<std::string>{"2"});
    CHECK(slots_used == std::vector<int>{0, 0, 0});
}
