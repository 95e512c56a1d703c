// bi-bench: speed and memory of the client path and the mock, each number printed with its setup
// and target. A benchmark, not a test: a missed target is reported, only errors fail the run.
#include <cxxopts.hpp>

#include <algorithm>
#include <functional>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/text.hpp"
#include "dispatch_bench.hpp"
#include "driver_rss.hpp"
#include "external_mock.hpp"
#include "mock_throughput.hpp"
#include "plugin_score.hpp"
#include "process_usage.hpp"
#include "report.hpp"
#include "stream_parse.hpp"
#include "verdict_speed.hpp"

#ifndef BI_BENCH_VERSION
#define BI_BENCH_VERSION "0"
#endif

namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

// "mock" selects both mock-throughput runs.
const std::vector<std::string> kMeasurementNames = {
    "rss",         "verdict",      "dispatch", "dispatch-external", "mock", "mock-completions",
    "mock-health", "plugin-score", "streams"};

struct Invocation {
    bi::bench::BenchLimits limits;
    std::set<std::string> only;
    std::string mock_server;
    bool json = false;
    bool quick = false;
};

bi::bench::BenchLimits quick_limits() {
    bi::bench::BenchLimits limits;
    limits.trials = 200;
    limits.workers = {4, 16};
    limits.clients = 8;
    limits.requests = 400;
    limits.verdict_ids = 500;
    limits.rss_concurrency = 4;
    limits.time_limit_s = 20.0;
    return limits;
}

void require_positive(const std::string& flag, long value) {
    if (value < 1) throw bi::Error(bi::ErrorCategory::Usage, "--" + flag + " must be at least 1");
}

Invocation parse(int argc, char** argv, bool& exit_now) {
    cxxopts::Options options(
        "bi-bench",
        "Measures the client path and the mock (tick_ms 0); prints each number with "
        "its setup and target.");
    // clang-format off
    options.add_options()
        ("trials", "trials per dispatcher run; the RSS run holds this many (default 10000)",
         cxxopts::value<int>())
        ("workers", "dispatcher worker counts, comma-separated (default 4,16,64)",
         cxxopts::value<std::vector<int>>())
        ("clients", "concurrent clients for mock throughput (default 64)", cxxopts::value<int>())
        ("requests", "requests per mock-throughput run (default 20000)", cxxopts::value<int>())
        ("n-predict", "tokens generated per request (default 8)", cxxopts::value<int>())
        ("time-limit", "seconds after which a run stops early (default 30)",
         cxxopts::value<double>())
        ("only", "comma-separated subset of: rss, verdict, dispatch, dispatch-external, mock "
                 "(= mock-completions + mock-health), plugin-score, streams",
         cxxopts::value<std::vector<std::string>>())
        ("mock-server", "bi-mock-server binary (default: beside bi-bench)",
         cxxopts::value<std::string>())
        ("quick", "small counts, for a smoke run")
        ("json", "print one JSON line on stdout; the table goes to stderr")
        ("version", "print the version")
        ("h,help", "print this help");
    // clang-format on
    const auto result = options.parse(argc, argv);
    exit_now = false;
    if (result.count("help")) {
        std::cout << options.help() << "\n";
        exit_now = true;
        return {};
    }
    if (result.count("version")) {
        std::cout << "bi-bench " << BI_BENCH_VERSION << "\n";
        exit_now = true;
        return {};
    }
    if (!result.unmatched().empty())
        throw bi::Error(bi::ErrorCategory::Usage,
                        "unexpected argument '" + result.unmatched().front() + "'");

    Invocation inv;
    inv.quick = result.count("quick") > 0;
    inv.json = result.count("json") > 0;
    if (inv.quick) inv.limits = quick_limits();
    bi::bench::BenchLimits& limits = inv.limits;
    if (result.count("trials")) limits.trials = result["trials"].as<int>();
    if (result.count("workers")) limits.workers = result["workers"].as<std::vector<int>>();
    if (result.count("clients")) limits.clients = result["clients"].as<int>();
    if (result.count("requests")) limits.requests = result["requests"].as<int>();
    if (result.count("n-predict")) limits.n_predict = result["n-predict"].as<int>();
    if (result.count("time-limit")) limits.time_limit_s = result["time-limit"].as<double>();
    if (result.count("mock-server")) inv.mock_server = result["mock-server"].as<std::string>();
    require_positive("trials", limits.trials);
    require_positive("clients", limits.clients);
    require_positive("requests", limits.requests);
    require_positive("n-predict", limits.n_predict);
    if (limits.time_limit_s <= 0)
        throw bi::Error(bi::ErrorCategory::Usage, "--time-limit must be positive");
    if (limits.workers.empty())
        throw bi::Error(bi::ErrorCategory::Usage, "--workers needs at least one count");
    for (int n : limits.workers) require_positive("workers", n);
    if (result.count("only")) {
        for (const auto& name : result["only"].as<std::vector<std::string>>()) {
            if (std::find(kMeasurementNames.begin(), kMeasurementNames.end(), name) ==
                kMeasurementNames.end())
                throw bi::Error(bi::ErrorCategory::Usage,
                                "--only: unknown measurement '" + name + "'");
            inv.only.insert(name);
        }
    }
    return inv;
}

std::vector<bi::bench::Measurement> run_all(const Invocation& inv) {
    using namespace bi::bench;
    const auto wanted = [&](const std::string& name) {
        return inv.only.empty() || inv.only.count(name) > 0;
    };
    const auto say = [](const std::string& what) {
        std::cerr << "bi-bench: measuring " << what << " (load "
                  << bi::core::format_fixed(load_average()[0], 2) << ")" << std::endl;
    };
    const std::optional<std::string> mock_binary = find_mock_server_binary(inv.mock_server);
    if (!mock_binary && !inv.mock_server.empty())
        throw bi::Error(bi::ErrorCategory::Usage,
                        "--mock-server: " + inv.mock_server + " is not an executable file");
    if (!mock_binary)
        std::cerr << "bi-bench: bi-mock-server not found beside bi-bench; skipping the "
                     "separate-process runs"
                  << std::endl;

    const BenchLimits& limits = inv.limits;
    std::vector<Measurement> results;
    // First, while the high-water mark still belongs to this run alone.
    if (wanted("rss")) {
        say("driver RSS");
        results.push_back(measure_driver_rss(limits, mock_binary));
    }
    if (wanted("verdict")) {
        say("decide_verdict");
        results.push_back(measure_verdict_speed(limits));
    }
    if (wanted("dispatch"))
        for (int n : limits.workers) {
            say("dispatcher, in-process mock, N=" + std::to_string(n));
            results.push_back(measure_dispatch_in_process(limits, n));
        }
    if (wanted("dispatch-external") && mock_binary)
        for (int n : limits.workers) {
            say("dispatcher, mock process, N=" + std::to_string(n));
            results.push_back(measure_dispatch_external(limits, n, *mock_binary));
        }
    if (wanted("mock") || wanted("mock-completions")) {
        say("mock throughput (completions)");
        results.push_back(measure_mock_throughput(limits, MockRoute::Completion));
    }
    if (wanted("mock") || wanted("mock-health")) {
        say("mock throughput (GET /health)");
        results.push_back(measure_mock_throughput(limits, MockRoute::Health));
    }
    if (wanted("streams")) {
        say("stream parsing and the lockstep judge");
        results.push_back(measure_stream_parse(limits));
    }
    if (wanted("plugin-score")) {
        say("scorer calls, in process and in the plugin host");
        results.push_back(measure_plugin_score(limits, false));
        results.push_back(measure_plugin_score(limits, true));
    }
    return results;
}

}  // namespace

int main(int argc, char** argv) {
    Invocation inv;
    try {
        bool exit_now = false;
        inv = parse(argc, argv, exit_now);
        if (exit_now) return 0;
    } catch (const cxxopts::exceptions::exception& e) {
        std::cerr << "bi-bench: " << e.what() << "\n";
        return kExitUsage;
    } catch (const bi::Error& e) {
        std::cerr << "bi-bench: " << e.what() << "\n";
        return kExitUsage;
    }
    try {
        bi::bench::BenchContext context;
        context.version = BI_BENCH_VERSION;
        context.quick = inv.quick;
        context.cpus = bi::bench::online_cpus();
        context.load_at_start = bi::bench::load_average();
        const auto results = run_all(inv);
        context.load_at_end = bi::bench::load_average();
        bi::bench::print_table(inv.json ? std::cerr : std::cout, context, results);
        if (inv.json) std::cout << bi::bench::json_line(context, results) << std::endl;
        return 0;
    } catch (const bi::Error& e) {
        const std::string message = e.what();
        std::cerr << (message.rfind("bi-bench:", 0) == 0 ? "" : "bi-bench: ") << message << "\n";
        return e.category() == bi::ErrorCategory::Usage ? kExitUsage : kExitError;
    } catch (const std::exception& e) {
        std::cerr << "bi-bench: " << e.what() << "\n";
        return kExitError;
    }
}
