#include "stream_parse.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/lockstep.hpp"
#include "http/completion_stream.hpp"
#include "http/sse_reader.hpp"
#include "process_usage.hpp"

namespace bi::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kTokens = 256;             // token chunks per stream
constexpr std::size_t kReadSize = 4096;  // bytes per socket read, as the client reads them
constexpr int kPassIds = 32;             // a C pass of the built-in work-set
constexpr int kConcurrency = 4;

// One llama-server /completion stream with the server's clock on every chunk, as
// timings_per_token sends it (the shape of the captures in tests/fixtures/llama-server).
std::string completion_stream_text() {
    std::string text;
    for (int k = 0; k < kTokens; ++k) {
        const std::string n = std::to_string(k + 1);
        text += "data: {\"index\":0,\"content\":\" word" + std::to_string(k % 50) +
                "\",\"tokens\":[" + std::to_string(1000 + k % 300) +
                "],\"stop\":false,\"id_slot\":-1,\"tokens_predicted\":" + n +
                ",\"tokens_evaluated\":24,\"timings\":{\"prompt_n\":24,\"prompt_ms\":3.5,"
                "\"predicted_n\":" +
                n + ",\"predicted_ms\":" + std::to_string(2.0 * (k + 1)) + "}}\n\n";
    }
    const std::string n = std::to_string(kTokens);
    text +=
        "data: {\"index\":0,\"content\":\"\",\"tokens\":[],\"id_slot\":0,\"stop\":true,"
        "\"model\":\"bench\",\"tokens_predicted\":" +
        n +
        ",\"tokens_evaluated\":24,\"stop_type\":\"limit\",\"timings\":{\"prompt_n\":24,"
        "\"prompt_ms\":3.5,\"predicted_n\":" +
        n + ",\"predicted_ms\":" + std::to_string(2.0 * kTokens) + "}}\n\n";
    return text;
}

// A C pass as the judge sees it: closed-loop requests of kTokens steps, N at once.
std::vector<core::StreamTimeline> pass_timelines() {
    std::vector<core::StreamTimeline> pass;
    for (int r = 0; r < kPassIds; ++r) {
        core::StreamTimeline t{"id" + std::to_string(r), {}};
        const int wave = r / kConcurrency;
        for (int k = 0; k < kTokens; ++k)
            t.steps_ms.push_back(2.0 * (wave * (kTokens + 2) + k) + 0.01 * (r % kConcurrency));
        pass.push_back(std::move(t));
    }
    return pass;
}

}  // namespace

Measurement measure_stream_parse(const BenchLimits& limits) {
    const std::string text = completion_stream_text();
    const double load = load_average()[0];
    const auto origin = Clock::now();
    const auto stop_at = origin + std::chrono::duration<double>(limits.time_limit_s);
    const int streams_wanted = std::max(1, limits.trials / 10);
    std::int64_t chunks = 0;
    int streams = 0;
    std::size_t kept_bytes = 0;
    bool all_ok = true;
    const Clock::time_point t0 = Clock::now();
    while (streams < streams_wanted && Clock::now() < stop_at) {
        http::SseReader reader;
        http::CompletionStream stream(http::EndpointKind::Completion, "id_slot", 1u << 20);
        std::vector<http::SseEvent> events;
        for (std::size_t at = 0; at < text.size(); at += kReadSize) {
            events.clear();
            reader.feed(std::string_view(text).substr(at, kReadSize), Clock::now(), events);
            for (const auto& event : events) stream.add(event);
        }
        const auto outcome = stream.finish(reader.pending());
        all_ok = all_ok && outcome.ok();
        const auto times = http::chunk_times_ms(stream.trace(), origin);
        chunks += static_cast<std::int64_t>(times.size());
        // What a finished trial keeps: its token times (the trace goes with the stream).
        kept_bytes = times.capacity() * sizeof(double);
        ++streams;
    }
    const double parse_s = std::chrono::duration<double>(Clock::now() - t0).count();

    const auto pass = pass_timelines();
    const Clock::time_point j0 = Clock::now();
    const auto judged = core::judge_lockstep(pass, kConcurrency);
    const double judge_ms = std::chrono::duration<double, std::milli>(Clock::now() - j0).count();

    Measurement m;
    m.key = "stream_parse";
    m.title = "stream chunks read (one core)";
    m.value = parse_s > 0 ? static_cast<double>(chunks) / parse_s : 0.0;
    m.unit = "chunks/s";
    m.setup = std::to_string(streams) + " llama-server /completion streams of " +
              std::to_string(kTokens) + " tokens with timings per token, read " +
              std::to_string(kReadSize) + " bytes at a time; the judge on " +
              std::to_string(kPassIds) + " streams at N " + std::to_string(kConcurrency);
    m.load_1m = load;
    m.add("streams", static_cast<double>(streams));
    m.add("answers_assembled", all_ok ? 1.0 : 0.0);
    m.add("bytes_kept_per_stream", static_cast<double>(kept_bytes), "B");
    m.add("us_per_chunk", chunks > 0 ? parse_s * 1e6 / static_cast<double>(chunks) : 0.0, "us");
    m.add("judge_per_pass", judge_ms, "ms");
    m.add("judge_lockstep_at_n", judged.lockstep_at_n() ? 1.0 : 0.0);
    return m;
}

}  // namespace bi::bench
