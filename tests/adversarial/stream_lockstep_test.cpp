// The lockstep statistic (docs/design.md §5.2.1) on fake_llama_server.py's own schedules: four
// streamed requests sent at once show lockstep at N = 4 when the fake batches them, and none when
// it computes them one at a time or one token per tick in turn, however its /slots, its
// requests_processing gauge and its busy-slots-per-decode counter claim all four compute.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/json.hpp"
#include "core/lockstep.hpp"
#include "http/completion_client.hpp"
#include "io/json_text.hpp"
#include "stream_fake_server.hpp"
#include "wait_until.hpp"

using namespace bi;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kN = 4;
constexpr int kTokens = 12;

struct Pass {
    core::LockstepEvidence evidence;
    int peak_busy_slots = 0;  // the most /slots said were computing, polled during the pass
};

int busy_slots(http::HttpSession& session) {
    const auto answer = session.get("/slots");
    if (!answer.ok()) return 0;
    const core::Json slots = io::parse_json(answer.response.body, "/slots");
    int busy = 0;
    for (const auto& slot : slots.as_array())
        if (slot.bool_or("is_processing", false)) ++busy;
    return busy;
}

// kN streamed requests sent at once from their own sessions, judged together; /slots is polled
// meanwhile (until it shows all kN computing, or the pass ends).
Pass run_pass(const testing::StreamFakeServer& fake, const http::RequestOptions& options) {
    std::vector<http::StreamedCompletion> answers(kN);
    std::atomic<int> finished{0};
    const auto origin = Clock::now();
    std::vector<std::thread> clients;
    for (int i = 0; i < kN; ++i)
        clients.emplace_back([&, i] {
            http::HttpSession session(fake.endpoint(), std::chrono::seconds(20));
            answers[i] = http::complete_streamed(session, options, "",
                                                 "prompt number " + std::to_string(i), 1 + i);
            ++finished;
        });
    Pass pass;
    http::HttpSession poller(fake.endpoint(), std::chrono::seconds(5));
    testing::wait_until([&] {
        pass.peak_busy_slots = std::max(pass.peak_busy_slots, busy_slots(poller));
        return pass.peak_busy_slots == kN || finished == kN;
    });
    for (auto& client : clients) client.join();
    std::vector<core::StreamTimeline> timelines;
    for (int i = 0; i < kN; ++i) {
        const auto& outcome = answers[i].outcome;
        INFO("request " << i << ": " << (outcome.failure ? outcome.failure->message : "ok"));
        REQUIRE(outcome.ok());
        REQUIRE(answers[i].trace.chunks.size() == static_cast<std::size_t>(kTokens));
        timelines.push_back(
            {"r" + std::to_string(i), http::chunk_times_ms(answers[i].trace, origin)});
    }
    pass.evidence = core::judge_lockstep(timelines, kN);
    return pass;
}

// n_busy_slots_per_decode as the fake's /metrics says it now.
double busy_per_decode(const testing::StreamFakeServer& fake) {
    http::HttpSession session(fake.endpoint(), std::chrono::seconds(5));
    const auto answer = session.get("/metrics");
    REQUIRE(answer.ok());
    const std::string name = "llamacpp:n_busy_slots_per_decode ";
    const auto at = answer.response.body.find(name);
    REQUIRE(at != std::string::npos);
    return std::stod(answer.response.body.substr(at + name.size()));
}

http::RequestOptions llama_completion() {
    return testing::kind_request("llama-server", http::EndpointKind::Completion, kTokens);
}

std::string describe(const core::LockstepEvidence& e) {
    return "full steps " + std::to_string(e.full_steps) + ", together " +
           std::to_string(e.lockstep_full_steps) + ", peak " + std::to_string(e.peak) + ", phase " +
           std::to_string(e.phase);
}

}  // namespace

TEST_CASE("lockstep: the batching fake's streams are in lockstep at N, on its own clock",
          "[adversarial][stream][lockstep]") {
    testing::StreamFakeServer fake({"--fake-tick-ms=10"});
    const auto pass = run_pass(fake, llama_completion());
    INFO(describe(pass.evidence));
    CHECK(pass.evidence.lockstep_at_n());
    CHECK(pass.evidence.cobatched_ids.size() == static_cast<std::size_t>(kN));
    CHECK(pass.peak_busy_slots == kN);
}

TEST_CASE("lockstep: a consistent liar computing one request at a time shows no lockstep",
          "[adversarial][stream][lockstep]") {
    // /slots, requests_processing and n_busy_slots_per_decode all say every admitted request
    // computes; the streams say one at a time: no two decode windows overlap.
    testing::StreamFakeServer fake(
        {"--fake-schedule=serial", "--fake-lie-slots", "--fake-lie-counters", "--fake-tick-ms=10"});
    const auto pass = run_pass(fake, llama_completion());
    INFO(describe(pass.evidence));
    CHECK_FALSE(pass.evidence.lockstep_at_n());
    CHECK(pass.evidence.full_steps == 0);
    CHECK(pass.evidence.phase == -1.0);
    CHECK(pass.peak_busy_slots == kN);
    // Four requests of 12 tokens one after another, each step counting those still admitted:
    // (4 + 3 + 2 + 1) / 4, where an honest serial server says 1.
    CHECK(busy_per_decode(fake) > 2.0);
}

TEST_CASE("lockstep: a round-robin liar, one token per tick in turn, shows no lockstep",
          "[adversarial][stream][lockstep]") {
    testing::StreamFakeServer fake(
        {"--fake-schedule=round-robin", "--fake-lie-slots", "--fake-tick-ms=10"});
    const auto pass = run_pass(fake, llama_completion());
    INFO(describe(pass.evidence));
    CHECK_FALSE(pass.evidence.lockstep_at_n());
    CHECK(pass.evidence.full_steps > 0);  // their windows overlap, their tokens alternate
    CHECK(pass.evidence.phase >= 0.125);  // a quarter step apart, where a batch has none
    CHECK(pass.peak_busy_slots == kN);
}

TEST_CASE("lockstep: an honest serial schedule shows neither lockstep nor busy slots",
          "[adversarial][stream][lockstep]") {
    testing::StreamFakeServer fake({"--fake-schedule=serial", "--fake-tick-ms=10"});
    const auto pass = run_pass(fake, llama_completion());
    INFO(describe(pass.evidence));
    CHECK_FALSE(pass.evidence.lockstep_at_n());
    CHECK(pass.peak_busy_slots == 1);
    CHECK(busy_per_decode(fake) == Approx(1.0));
}

TEST_CASE("lockstep: without a server clock, the arrival times tell batched from round-robin",
          "[adversarial][stream][lockstep]") {
    // vLLM's chat stream carries no per-chunk clock: the client's arrival times are judged, and
    // the fake's 20 ms step leaves the timing noise well below g / (2N) = 2.5 ms.
    const auto options = testing::kind_request("vllm", http::EndpointKind::Chat, kTokens);
    {
        testing::StreamFakeServer fake({"--fake-surface=vllm", "--fake-tick-ms=20"});
        const auto pass = run_pass(fake, options);
        INFO(describe(pass.evidence));
        CHECK(pass.evidence.lockstep_at_n());
    }
    testing::StreamFakeServer fake(
        {"--fake-surface=vllm", "--fake-schedule=round-robin", "--fake-tick-ms=20"});
    const auto pass = run_pass(fake, options);
    INFO(describe(pass.evidence));
    CHECK_FALSE(pass.evidence.lockstep_at_n());
}
