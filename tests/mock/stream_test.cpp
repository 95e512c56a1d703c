// The mock streams as llama-server does: one chunk per token with the generation clock on it,
// the answer assembled from the chunks equal to the unstreamed one, and concurrent streams of
// one batch in lockstep, told apart from streams decoded one after another.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/lockstep.hpp"
#include "http/completion_client.hpp"
#include "io/server_kind_io.hpp"
#include "test_client.hpp"

using namespace bi;
using Clock = std::chrono::steady_clock;

namespace {

http::RequestOptions request_options(http::EndpointKind endpoint) {
    http::RequestOptions options;
    options.endpoint = endpoint;
    options.n_predict = 16;
    options.logprobs = 2;
    options.dialect = io::default_server_kind().request;
    return options;
}

std::string prompt(int i) {
    return "Request " + std::to_string(i) + ": describe a river in a few words.";
}

// What must be equal streamed or not: the text, the ids and the logprobs.
struct Answer {
    std::string content;
    std::optional<std::vector<std::int64_t>> ids;
    std::optional<std::vector<double>> logprobs;
    bool operator==(const Answer& o) const {
        return content == o.content && ids == o.ids && logprobs == o.logprobs;
    }
};

Answer answer_of(const http::CompletionOutcome& outcome) {
    INFO((outcome.failure ? outcome.failure->message : std::string()));
    REQUIRE(outcome.ok());
    return {outcome.result.content, outcome.result.token_ids, outcome.result.token_logprobs};
}

http::Endpoint endpoint_of(const mock::MockServer& server) {
    return {"127.0.0.1", server.port()};
}

// N streams sent at once: the scheduler is held until each has its slot, so they share every
// decode step from the first.
std::vector<http::StreamedCompletion> stream_together(mock::MockServer& server,
                                                      const http::RequestOptions& options, int n) {
    std::vector<http::StreamedCompletion> done(static_cast<std::size_t>(n));
    server.pause();
    std::vector<std::thread> workers;
    for (int i = 0; i < n; ++i)
        workers.emplace_back([&, i] {
            http::HttpSession session(endpoint_of(server), std::chrono::seconds(30));
            done[static_cast<std::size_t>(i)] =
                http::complete_streamed(session, options, "", prompt(i), 7);
        });
    const bool lined_up = testing::wait_until([&] { return server.stats().slots_held == n; });
    server.resume();
    for (auto& worker : workers) worker.join();
    CHECK(lined_up);
    return done;
}

std::vector<core::StreamTimeline> timelines(const std::vector<http::StreamedCompletion>& done,
                                            Clock::time_point origin) {
    std::vector<core::StreamTimeline> pass;
    for (std::size_t i = 0; i < done.size(); ++i)
        pass.push_back({"id" + std::to_string(i), http::chunk_times_ms(done[i].trace, origin)});
    return pass;
}

}  // namespace

TEST_CASE("mock stream: assembled answers equal unstreamed ones, and a batch is in lockstep",
          "[mock][stream]") {
    // Steps of 10 ms, as a small real model's: under a sanitizer on a loaded machine the
    // client's reads still fall well inside g / (2N) of when each token was made.
    auto config = mock::test::fast_config(4);
    config.tick_ms = 10.0;
    mock::MockServer server(config);
    server.start();
    for (const auto endpoint : {http::EndpointKind::Completion, http::EndpointKind::Chat}) {
        INFO("endpoint " << http::endpoint_name(endpoint));
        const auto options = request_options(endpoint);
        http::HttpSession session(endpoint_of(server), std::chrono::seconds(30));
        std::vector<Answer> unstreamed;
        for (int i = 0; i < 4; ++i)
            unstreamed.push_back(answer_of(http::complete(session, options, "", prompt(i), 7)));
        const auto origin = Clock::now();
        const auto streamed = stream_together(server, options, 4);
        for (std::size_t i = 0; i < streamed.size(); ++i) {
            CHECK(answer_of(streamed[i].outcome) == unstreamed[i]);
            REQUIRE(streamed[i].trace.chunks.size() == 16);
            CHECK(streamed[i].trace.chunks.back().server_ms.has_value());
        }
        const auto e = core::judge_lockstep(timelines(streamed, origin), 4);
        CHECK(e.lockstep_at_n());
        CHECK(e.cobatched_ids.size() == 4);
        CHECK(e.peak == 4);
    }
}

TEST_CASE("mock stream: streams decoded one after another are not co-batched", "[mock][stream]") {
    auto config = mock::test::fast_config(4);
    config.tick_ms = 2.0;
    mock::MockServer server(config);
    server.start();
    const auto options = request_options(http::EndpointKind::Completion);
    const auto origin = Clock::now();
    std::vector<http::StreamedCompletion> done;
    http::HttpSession session(endpoint_of(server), std::chrono::seconds(30));
    for (int i = 0; i < 4; ++i)
        done.push_back(http::complete_streamed(session, options, "", prompt(i), 7));
    const auto e = core::judge_lockstep(timelines(done, origin), 4);
    CHECK(e.cobatched_ids.empty());
    CHECK_FALSE(e.lockstep_at_n());
    CHECK(e.phase == -1.0);
}

namespace {

// Four streams sent at once to a mock decoding with `schedule`; the pass's lockstep evidence and
// the busy slots per decode its /metrics counters claim over the pass.
struct SchedulePass {
    core::LockstepEvidence lockstep;
    double claimed_per_decode = 0.0;
    int reported_busy_peak = 0;
};

SchedulePass run_schedule(mock::Schedule schedule, bool claims_batched, double tick_ms = 2.0) {
    auto config = mock::test::fast_config(4);
    config.tick_ms = tick_ms;
    config.schedule = schedule;
    config.claims_batched = claims_batched;
    mock::MockServer server(config);
    server.start();
    const auto options = request_options(http::EndpointKind::Completion);
    const auto origin = Clock::now();
    const auto before = server.stats();
    SchedulePass pass;
    std::atomic<bool> done{false};
    std::thread watcher([&] {  // the most slots /slots says compute at once
        while (!done) {
            int busy = 0;
            for (const auto& slot : server.slots()) busy += slot.is_processing;
            pass.reported_busy_peak = std::max(pass.reported_busy_peak, busy);
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    });
    const auto streamed = stream_together(server, options, 4);
    done = true;
    watcher.join();
    const auto after = server.stats();
    pass.lockstep = core::judge_lockstep(timelines(streamed, origin), 4);
    pass.claimed_per_decode =
        static_cast<double>(after.n_busy_slots_total - before.n_busy_slots_total) /
        static_cast<double>(after.n_decode_total - before.n_decode_total);
    for (const auto& s : streamed) REQUIRE(s.outcome.ok());
    return pass;
}

}  // namespace

TEST_CASE(
    "mock stream: one-at-a-time and round-robin servers are not in lockstep, even when "
    "their counters claim a batch",
    "[mock][stream][adversarial]") {
    for (const bool claims : {false, true}) {
        INFO("claims_batched " << claims);
        const auto serial = run_schedule(mock::Schedule::Serial, claims);
        CHECK_FALSE(serial.lockstep.lockstep_at_n());
        CHECK(serial.lockstep.cobatched_ids.empty());
        const auto rr = run_schedule(mock::Schedule::RoundRobin, claims);
        CHECK_FALSE(rr.lockstep.lockstep_at_n());
        CHECK(rr.lockstep.cobatched_ids.empty());
        CHECK(rr.lockstep.phase > 0.2);     // time-slicing over four: a quarter of a step apart
        CHECK(rr.reported_busy_peak == 4);  // /slots truthfully shows four in progress
        if (claims) {
            // The counters claim a batch (above N/2 per decode, what the server-signal check
            // asks; the serial one's claim falls as its requests end): only the streams show
            // that no two requests ever shared a step.
            CHECK(serial.claimed_per_decode > 2.0);
            CHECK(rr.claimed_per_decode == Approx(4.0).margin(0.6));
            CHECK(serial.reported_busy_peak == 4);
        } else {
            CHECK(serial.claimed_per_decode == Approx(1.0));
            CHECK(rr.claimed_per_decode == Approx(1.0));
            CHECK(serial.reported_busy_peak == 1);
        }
    }
    // The batch, the control, at 10 ms a step: each stream's offset to the server's clock comes
    // from its promptest chunk, and under a sanitizer on a loaded machine every chunk of a 2 ms
    // stream can arrive later than g / (2N) = 0.25 ms.
    const auto batched = run_schedule(mock::Schedule::Batched, false, 10.0);
    CHECK(batched.lockstep.lockstep_at_n());
    CHECK(batched.claimed_per_decode > 3.0);
}
