#include "mock_throughput.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_items.hpp"
#include "core/error.hpp"
#include "http/completion_request.hpp"
#include "http/http_session.hpp"
#include "mock/mock_server.hpp"
#include "process_usage.hpp"

namespace bi::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kTargetRequestsPerSecond = 20000.0;

// Holds every client until all have started, so the clock starts with full concurrency.
class StartGate {
public:
    explicit StartGate(int parties) : waiting_(parties) {}
    void arrive_and_wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        if (--waiting_ == 0) {
            start_ = Clock::now();
            open_.notify_all();
        }
        open_.wait(lock, [this] { return waiting_ <= 0; });
    }
    Clock::time_point start() const { return start_; }

private:
    std::mutex mutex_;
    std::condition_variable open_;
    int waiting_;
    Clock::time_point start_;
};

struct Tally {
    std::atomic<long> next{0};
    std::atomic<long> ok{0};
    std::atomic<long> failed{0};
};

}  // namespace

Measurement measure_mock_throughput(const BenchLimits& limits, MockRoute route) {
    const int clients = limits.clients;
    const long requests = limits.requests;
    mock::MockConfig config;
    config.slots = clients;
    config.tick_ms = 0.0;
    mock::MockServer server(config);
    const http::Endpoint endpoint{"127.0.0.1", server.start()};

    // Bodies are built before the clock starts: the client loop only sends and reads.
    const auto items = make_bench_items(static_cast<std::size_t>(clients));
    http::RequestOptions options;
    options.n_predict = limits.n_predict;
    std::vector<std::string> bodies;
    bodies.reserve(items.size());
    for (const auto& item : items)
        bodies.push_back(http::build_request_body(options, item.system, item.prompt, item.seed));
    const std::string path(http::request_path(options.endpoint));

    const double load = load_average()[0];
    StartGate gate(clients);
    Tally tally;
    const auto limit = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(limits.time_limit_s));
    const double cpu0 = process_cpu_seconds();
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(clients));
    for (int k = 0; k < clients; ++k) {
        threads.emplace_back([&, k] {
            http::HttpSession session(endpoint, std::chrono::seconds(30));
            const std::string& body = bodies[static_cast<std::size_t>(k) % bodies.size()];
            gate.arrive_and_wait();
            while (tally.next.fetch_add(1) < requests) {
                if (Clock::now() - gate.start() > limit) break;
                const http::HttpOutcome outcome = route == MockRoute::Completion
                                                      ? session.post_json(path, body)
                                                      : session.get("/health");
                (outcome.ok() ? tally.ok : tally.failed).fetch_add(1);
            }
        });
    }
    for (auto& thread : threads) thread.join();
    const double wall_s = std::chrono::duration<double>(Clock::now() - gate.start()).count();
    const double cpu_s = process_cpu_seconds() - cpu0;
    if (tally.ok.load() == 0)
        throw Error(ErrorCategory::Server, "bi-bench: the mock answered no request");

    Measurement m;
    const bool completion = route == MockRoute::Completion;
    m.key =
        std::string(completion ? "mock_completions_c" : "mock_health_c") + std::to_string(clients);
    m.title = std::string(completion ? "mock completions, " : "mock GET /health, ") +
              std::to_string(clients) + " clients";
    m.value = wall_s > 0 ? static_cast<double>(tally.ok.load()) / wall_s : 0.0;
    m.unit = "requests/s";
    if (completion) m.target = Target{true, kTargetRequestsPerSecond};
    m.setup = std::to_string(requests) + " requests, " + std::to_string(clients) +
              " client threads each looping on one keep-alive HttpSession, " +
              (completion ? "POST " + path + " n_predict " + std::to_string(limits.n_predict)
                          : std::string("GET /health")) +
              ", in-process mock tick_ms 0 with " + std::to_string(clients) + " slots";
    m.load_1m = load;
    m.add("answered", static_cast<double>(tally.ok.load()));
    m.add("failed", static_cast<double>(tally.failed.load()));
    m.add("wall", wall_s, "s");
    m.add("cpu_per_1000_requests", cpu_s * 1000.0 / static_cast<double>(tally.ok.load()),
          "s (clients + mock)");
    return m;
}

}  // namespace bi::bench
