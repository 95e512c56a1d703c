#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <set>

#include "core/coverage.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/permutation.hpp"
#include "core/sha256.hpp"
#include "driver/dispatcher.hpp"
#include "fake_llama_server.hpp"
#include "io/json_text.hpp"

using namespace std::chrono_literals;
using bi::core::Json;
using bi::core::TrialRecord;
using bi::core::WorkItem;
using bi::driver::ArmRequest;
using bi::driver::run_arm;
using bi::test::FakeLlamaServer;
using bi::test::FakeScript;

namespace {

std::vector<WorkItem> make_items(std::size_t n) {
    std::vector<WorkItem> items;
    for (std::size_t i = 0; i < n; ++i) {
        WorkItem item;
        item.test_id = "m|512|F|" + std::to_string(i);
        item.prompt = "prompt number " + std::to_string(i);
        item.system = i % 2 ? "be brief" : "";
        item.family = i % 3 ? "E1" : "A4";
        item.fill = 0.05 * static_cast<double>(i);
        item.expected_answer = Json(static_cast<std::int64_t>(i));
        item.seed = 1000 + i;
        items.push_back(std::move(item));
    }
    return items;
}

ArmRequest arm_request(const std::vector<WorkItem>& items, int concurrency) {
    ArmRequest request;
    request.arm = "C";
    request.pass = 2;
    request.items = &items;
    for (std::size_t i = 0; i < items.size(); ++i) request.order.push_back(i);
    request.concurrency = concurrency;
    request.request.timeout = 20s;
    request.origin = std::chrono::steady_clock::now();
    return request;
}

bi::http::Endpoint endpoint_of(const FakeLlamaServer& server) {
    return bi::http::Endpoint{"127.0.0.1", server.port()};
}

std::size_t client_depth(const std::vector<TrialRecord>& records) {
    std::vector<bi::core::Interval> intervals;
    for (const auto& r : records)
        if (r.has_interval()) intervals.push_back({*r.dispatch_ns, *r.complete_ns});
    return bi::core::max_overlap_depth(intervals);
}

std::string prompt_of(const std::string& body) {
    const Json json = bi::io::parse_json(body, "body");
    if (const Json* prompt = json.find("prompt")) return prompt->as_string();
    return json.find("messages")->as_array().back().string_or("content", "");
}

void check_completed(const std::vector<TrialRecord>& records, const ArmRequest& request) {
    REQUIRE(records.size() == request.order.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const WorkItem& item = (*request.items)[request.order[i]];
        const TrialRecord& r = records[i];
        CHECK(r.test_id == item.test_id);
        CHECK(r.family == item.family);
        CHECK(r.fill == item.fill);
        CHECK(bi::core::canonical_equal(r.expected_answer, item.expected_answer));
        CHECK(r.arm == "C");
        CHECK(r.pass == 2);
        CHECK_FALSE(r.failure_mode.is_set());  // left for the scorer
        CHECK(r.error.empty());
        CHECK(r.content == "echo:" + std::string(request.request.endpoint ==
                                                             bi::http::EndpointKind::Completion &&
                                                         !item.system.empty()
                                                     ? item.system + "\n\n" + item.prompt
                                                     : item.prompt));
        CHECK(r.content_sha == bi::core::content_sha(r.content));
        const bool chat = request.request.endpoint == bi::http::EndpointKind::Chat;
        CHECK(r.reasoning_content == (chat ? "why:" + item.prompt : std::string()));
        CHECK(r.tool_calls.is_null());
        CHECK(r.completion_tokens == 3);
        CHECK(r.finish_reason == (chat ? "length" : "limit"));
        CHECK(r.prompt_tokens_measured.has_value());
        CHECK(r.has_interval());
        CHECK(r.wall_ms >= 0.0);
    }
}

}  // namespace

TEST_CASE("a serial arm never has two requests in flight", "[dispatcher]") {
    FakeScript script;
    script.completion_delay = 5ms;
    FakeLlamaServer server(script);
    const auto items = make_items(6);
    ArmRequest request = arm_request(items, 1);
    request.order = bi::core::pass_order(items.size(), 7, 1);
    const auto records = run_arm(endpoint_of(server), request);
    check_completed(records, request);
    CHECK(server.max_in_flight() == 1);
    CHECK(client_depth(records) == 1);
    // Sent in the given order.
    const auto bodies = server.completion_bodies();
    REQUIRE(bodies.size() == items.size());
    for (std::size_t i = 0; i < bodies.size(); ++i)
        CHECK(prompt_of(bodies[i]) == items[request.order[i]].prompt);
}

TEST_CASE("a concurrent arm reaches N in flight and never exceeds it", "[dispatcher]") {
    FakeScript script;
    script.hold_first = 4;  // the first wave waits until four are in flight together
    script.completion_delay = 3ms;
    FakeLlamaServer server(script);
    const auto items = make_items(16);
    ArmRequest request = arm_request(items, 4);
    request.order = bi::core::pass_order(items.size(), 99, 3);
    const auto records = run_arm(endpoint_of(server), request);
    check_completed(records, request);
    CHECK(server.max_in_flight() == 4);
    CHECK(client_depth(records) == 4);
    CHECK(server.completion_calls() == 16);
    CHECK(server.client_addresses().size() == 4);  // one keep-alive connection per worker
    std::set<std::string> ids;
    for (const auto& r : records) ids.insert(r.test_id);
    CHECK(ids.size() == 16);
}

TEST_CASE("more workers than items: each item once and in flight at most the item count",
          "[dispatcher]") {
    FakeScript script;
    script.hold_first = 3;
    FakeLlamaServer server(script);
    const auto items = make_items(3);
    const ArmRequest request = arm_request(items, 8);
    const auto records = run_arm(endpoint_of(server), request);
    check_completed(records, request);
    CHECK(server.max_in_flight() == 3);
    CHECK(server.completion_calls() == 3);
}

TEST_CASE("worker k sends its first request k * stagger after the release", "[dispatcher]") {
    FakeScript script;
    script.hold_first = 3;  // no worker finishes before all three have sent
    FakeLlamaServer server(script);
    const auto items = make_items(3);
    ArmRequest request = arm_request(items, 3);
    request.stagger = 150ms;
    const auto records = run_arm(endpoint_of(server), request);
    check_completed(records, request);
    std::vector<std::int64_t> dispatch;
    dispatch.reserve(records.size());
    for (const auto& r : records) dispatch.push_back(*r.dispatch_ns);
    std::sort(dispatch.begin(), dispatch.end());
    // The origin precedes the release, so the k-th dispatch is at least k staggers in.
    for (std::size_t k = 0; k < dispatch.size(); ++k)
        CHECK(dispatch[k] >= static_cast<std::int64_t>(k) * 150'000'000);
}

TEST_CASE("chat bodies and records carry logprobs and seeds and the like-for-like fields",
          "[dispatcher]") {
    FakeLlamaServer server(FakeScript{});
    const auto items = make_items(4);
    ArmRequest request = arm_request(items, 2);
    request.request.logprobs = 3;
    request.request.n_predict = 32;
    const auto records = run_arm(endpoint_of(server), request);
    check_completed(records, request);
    for (const auto& r : records) {
        REQUIRE(r.token_ids);
        CHECK(r.token_ids->size() == 3);
        REQUIRE(r.token_logprobs);
        CHECK(r.token_logprobs->front() == -0.5);
    }
    for (const auto& text : server.completion_bodies()) {
        const Json body = bi::io::parse_json(text, "body");
        const std::string prompt = prompt_of(text);
        const auto item = std::find_if(items.begin(), items.end(),
                                       [&](const WorkItem& w) { return w.prompt == prompt; });
        REQUIRE(item != items.end());
        CHECK(bi::core::canonical_equal(*body.find("seed"),
                                        Json(static_cast<std::int64_t>(item->seed))));
        CHECK(bi::core::canonical_equal(*body.find("temperature"), Json(0)));
        CHECK(bi::core::canonical_equal(*body.find("top_k"), Json(1)));
        CHECK(bi::core::canonical_equal(*body.find("cache_prompt"), Json(false)));
        CHECK(bi::core::canonical_equal(*body.find("n_predict"), Json(32)));
        CHECK(bi::core::canonical_equal(*body.find("max_tokens"), Json(32)));
        CHECK(bi::core::canonical_equal(*body.find("logprobs"), Json(true)));
        CHECK(bi::core::canonical_equal(*body.find("top_logprobs"), Json(3)));
    }
}

TEST_CASE("the /completion endpoint records token ids and the slot", "[dispatcher]") {
    FakeLlamaServer server(FakeScript{});
    const auto items = make_items(3);
    ArmRequest request = arm_request(items, 1);
    request.request.endpoint = bi::http::EndpointKind::Completion;
    request.request.logprobs = 2;
    const auto records = run_arm(endpoint_of(server), request);
    check_completed(records, request);
    for (const auto& r : records) {
        REQUIRE(r.token_ids);
        CHECK(r.token_ids->size() == 3);
        CHECK(r.id_slot == 0);
        CHECK(r.token_logprobs.has_value());
    }
    for (const auto& text : server.completion_bodies()) {
        const Json body = bi::io::parse_json(text, "body");
        CHECK(bi::core::canonical_equal(*body.find("return_tokens"), Json(true)));
        CHECK(bi::core::canonical_equal(*body.find("n_probs"), Json(2)));
        CHECK(bi::core::canonical_equal(*body.find("cache_prompt"), Json(false)));
    }
}

TEST_CASE("a request timeout becomes http_timeout and the arm goes on", "[dispatcher]") {
    FakeScript script;
    script.hang_after = 0;
    FakeLlamaServer server(script);
    const auto items = make_items(2);
    ArmRequest request = arm_request(items, 1);
    request.request.timeout = 200ms;
    const auto records = run_arm(endpoint_of(server), request);
    REQUIRE(records.size() == 2);
    for (const auto& r : records) {
        CHECK(r.failure_mode == bi::core::FailureMode::HttpTimeout);
        CHECK_THAT(r.error, Catch::Contains("no complete response within 200 ms"));
        CHECK(r.has_interval());
        CHECK(r.content_sha.empty());
    }
    CHECK(server.completion_calls() == 2);
}

TEST_CASE("a wedged server: the arm is given up once its first requests all time out",
          "[dispatcher]") {
    FakeScript script;
    script.hang_after = 0;  // takes every request, answers none
    FakeLlamaServer server(script);
    const auto items = make_items(12);
    for (const int concurrency : {1, 3}) {
        ArmRequest request = arm_request(items, concurrency);
        request.request.timeout = 200ms;
        request.first_timeouts = concurrency == 1 ? 2 : 3;
        const auto outcome = bi::driver::run_arm_outcome(endpoint_of(server), request);
        REQUIRE(outcome.records.size() == items.size());
        CHECK_THAT(outcome.gave_up,
                   Catch::Contains("the first " + std::to_string(request.first_timeouts) +
                                   " request(s) to finish all timed out"));
        std::size_t timed_out = 0;
        for (const auto& r : outcome.records) {
            if (r.failure_mode == bi::core::FailureMode::HttpTimeout) {
                ++timed_out;
                continue;
            }
            // The rest were never sent, or cut off in flight: incomplete, never a failure.
            CHECK(r.failure_mode == bi::core::FailureMode::Incomplete);
            CHECK_THAT(r.error, Catch::StartsWith("gave up on the arm: "));
        }
        CHECK(timed_out >= request.first_timeouts);
        CHECK(timed_out < items.size());
    }
}

TEST_CASE("a server that stops answering mid-arm: given up once its latest requests time out",
          "[dispatcher]") {
    FakeScript script;
    script.hang_after = 3;  // answers three, then takes every request and answers none
    FakeLlamaServer server(script);
    const auto items = make_items(12);
    ArmRequest request = arm_request(items, 1);
    request.request.timeout = 200ms;
    request.first_timeouts = 2;
    const auto outcome = bi::driver::run_arm_outcome(endpoint_of(server), request);
    CHECK(outcome.gave_up ==
          "the last 2 request(s) to finish all timed out (0.2 s each) after 3 finished: the "
          "server stopped answering");
    CHECK(outcome.stopped_answering);
    CHECK(outcome.answered);
    CHECK(server.completion_calls() == 5);
}

TEST_CASE("a long prompt's first token may take as much longer as its prompt is longer",
          "[dispatcher]") {
    using namespace std::chrono_literals;
    using bi::driver::expected_silence;
    // The slowest first token so far took 2 ms a prompt byte; gaps between pieces 300 ms.
    CHECK(expected_silence(300ms, 2.0, 100) == 300ms);     // a short prompt: the gaps rule
    CHECK(expected_silence(300ms, 2.0, 5000) == 10000ms);  // fifty times longer: 10 s
    CHECK(expected_silence(300ms, 0.0, 5000) == 300ms);    // nothing answered yet
    CHECK(expected_silence(0ms, 0.25, 3) == 1ms);          // rounded up, never zero
    // What the stall limit then allows, with two requests in flight.
    CHECK(bi::driver::stall_limit(expected_silence(300ms, 2.0, 5000), 2) == 200s);
}

TEST_CASE("the stall limit: ten times the longest silence per request in flight, at least 20 s",
          "[dispatcher]") {
    using bi::driver::stall_limit;
    CHECK(stall_limit(3ms, 1) == 20s);
    CHECK(stall_limit(5s, 1) == 50s);
    CHECK(stall_limit(1s, 4) == 40s);
}

TEST_CASE("an arm is given up once its completion floor is out of reach, not before",
          "[dispatcher]") {
    FakeScript script;
    script.completion_status = 500;
    script.completion_error_body = R"({"error":{"code":500,"message":"failed to allocate KV"}})";
    FakeLlamaServer server(script);
    const auto items = make_items(10);
    ArmRequest request = arm_request(items, 1);
    request.completion_floor = 0.8;  // 8 of 10 must complete: the third failure ends it
    const auto outcome = bi::driver::run_arm_outcome(endpoint_of(server), request);
    // The first failure's item and the server's own words close the line.
    CHECK(outcome.gave_up ==
          "3 of 10 request(s) failed (oom x3): at most 2 may fail for the 80% completion floor; "
          "the first: " +
              items[0].test_id + ": POST /v1/chat/completions: HTTP 500: failed to allocate KV");
    CHECK(outcome.answered);
    CHECK_FALSE(outcome.stopped_answering);
    CHECK(server.completion_calls() == 3);
    REQUIRE(outcome.records.size() == 10);
    for (std::size_t i = 0; i < 3; ++i)
        CHECK(outcome.records[i].failure_mode == bi::core::FailureMode::Oom);
    for (std::size_t i = 3; i < 10; ++i)
        CHECK(outcome.records[i].error == "gave up on the arm: not sent");
    // Without a floor the same arm runs to the end, and says it was not given up.
    request.completion_floor.reset();
    const auto full = bi::driver::run_arm_outcome(endpoint_of(server), request);
    CHECK(full.gave_up.empty());
    CHECK(server.completion_calls() == 13);
}

TEST_CASE("a refused port is http_error for every item", "[dispatcher]") {
    const auto items = make_items(3);
    ArmRequest request = arm_request(items, 2);
    int alive_calls = 0;
    request.server_alive = [&] {
        ++alive_calls;
        return true;
    };
    const auto records = run_arm(bi::http::Endpoint{"127.0.0.1", bi::test::unused_port()}, request);
    REQUIRE(records.size() == 3);
    for (const auto& r : records) {
        CHECK(r.failure_mode == bi::core::FailureMode::HttpError);
        CHECK(r.has_interval());
    }
    CHECK(alive_calls == 3);
}

TEST_CASE("a dead server ends the arm: server_died for the failed and the unsent", "[dispatcher]") {
    const auto items = make_items(5);
    ArmRequest request = arm_request(items, 1);
    int alive_calls = 0;
    request.server_alive = [&] {
        ++alive_calls;
        return false;
    };
    const auto records = run_arm(bi::http::Endpoint{"127.0.0.1", bi::test::unused_port()}, request);
    REQUIRE(records.size() == 5);
    CHECK(alive_calls == 1);
    CHECK(records[0].failure_mode == bi::core::FailureMode::ServerDied);
    CHECK(records[0].has_interval());
    CHECK_THAT(records[0].error, Catch::StartsWith("server not running"));
    for (std::size_t i = 1; i < records.size(); ++i) {
        CHECK(records[i].failure_mode == bi::core::FailureMode::ServerDied);
        CHECK(records[i].error == "server not running: not sent");
        CHECK_FALSE(records[i].dispatch_ns);
    }
}

TEST_CASE("a 500 out-of-memory answer is oom", "[dispatcher]") {
    FakeScript script;
    script.completion_status = 500;
    script.completion_error_body = R"({"error":{"code":500,"message":"failed to allocate KV"}})";
    FakeLlamaServer server(script);
    const auto items = make_items(2);
    ArmRequest request = arm_request(items, 2);
    request.server_alive = [] { return true; };
    const auto records = run_arm(endpoint_of(server), request);
    REQUIRE(records.size() == 2);
    for (const auto& r : records) CHECK(r.failure_mode == bi::core::FailureMode::Oom);
}

TEST_CASE("cancel cuts the request in flight and leaves the rest unsent", "[dispatcher]") {
    FakeScript script;
    script.hang_after = 1;  // the second request would never be answered
    FakeLlamaServer server(script);
    const auto items = make_items(6);
    ArmRequest request = arm_request(items, 1);
    request.request.timeout = 60s;
    std::atomic<bool> cancel{false};
    request.cancel = &cancel;
    std::vector<std::size_t> seen_done;
    request.progress = [&](std::size_t done, std::size_t total) {
        CHECK(total == 6);
        seen_done.push_back(done);
        if (done >= 1) cancel = true;
    };
    const auto records = run_arm(endpoint_of(server), request);
    REQUIRE(records.size() == 6);
    CHECK_FALSE(records[0].failure_mode.is_set());
    CHECK(records[1].failure_mode == bi::core::FailureMode::Incomplete);
    CHECK(records[1].error == "cancelled: request cancelled");
    CHECK(records[1].has_interval());
    for (std::size_t i = 2; i < records.size(); ++i) {
        CHECK(records[i].failure_mode == bi::core::FailureMode::Incomplete);
        CHECK(records[i].error == "cancelled: not sent");
        CHECK_FALSE(records[i].dispatch_ns);
    }
    CHECK(server.completion_calls() == 2);
    REQUIRE_FALSE(seen_done.empty());
    CHECK(std::is_sorted(seen_done.begin(), seen_done.end()));
    CHECK(seen_done.back() == 6);
}

TEST_CASE("the arm deadline stops the arm and nothing is lost", "[dispatcher]") {
    FakeScript script;
    script.hang_after = 1;
    FakeLlamaServer server(script);
    const auto items = make_items(5);
    ArmRequest request = arm_request(items, 1);
    request.request.timeout = 60s;
    request.deadline = std::chrono::steady_clock::now() + 1s;
    const auto records = run_arm(endpoint_of(server), request);
    REQUIRE(records.size() == 5);
    std::size_t stopped = 0;
    for (const auto& r : records) {
        if (!r.failure_mode.is_set()) continue;
        CHECK(r.failure_mode == bi::core::FailureMode::Incomplete);
        CHECK_THAT(r.error, Catch::StartsWith("arm deadline"));
        ++stopped;
    }
    CHECK(stopped >= 4);
    CHECK(server.completion_calls() <= 2);
}

TEST_CASE("an arm already cancelled sends nothing", "[dispatcher]") {
    FakeLlamaServer server(FakeScript{});
    const auto items = make_items(3);
    ArmRequest request = arm_request(items, 2);
    std::atomic<bool> cancel{true};
    request.cancel = &cancel;
    const auto records = run_arm(endpoint_of(server), request);
    REQUIRE(records.size() == 3);
    for (const auto& r : records) CHECK(r.error == "cancelled: not sent");
    CHECK(server.completion_calls() == 0);
}

TEST_CASE("bad arm requests are refused before anything is sent", "[dispatcher]") {
    const auto items = make_items(3);
    const bi::http::Endpoint nowhere{"127.0.0.1", 1};
    ArmRequest request = arm_request(items, 1);
    request.order = {0, 3};
    CHECK_THROWS_AS(run_arm(nowhere, request), bi::Error);
    request.order = {0, 1, 0};
    CHECK_THROWS_AS(run_arm(nowhere, request), bi::Error);
    request.order = {0};
    request.concurrency = 0;
    CHECK_THROWS_AS(run_arm(nowhere, request), bi::Error);
    request.concurrency = 1;
    request.items = nullptr;
    CHECK_THROWS_AS(run_arm(nowhere, request), bi::Error);
}

TEST_CASE("an empty order gives no records", "[dispatcher]") {
    const auto items = make_items(2);
    ArmRequest request = arm_request(items, 2);
    request.order.clear();
    CHECK(run_arm(bi::http::Endpoint{"127.0.0.1", 1}, request).empty());
}
