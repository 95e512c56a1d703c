// bi-run run-live against fake_llama_server.py attacking the HTTP layer: a /health or completion
// that drips, an endless body, a 1 TiB Content-Length, deeply nested JSON. Each run must end
// within its deadline with the documented exit status, leave no process behind and never crash;
// no verdict means no cert (an existing one untouched), a verdict is never GREEN.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "core/json.hpp"
#include "fake_cell.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"
#include "wait_until.hpp"

using namespace bi;
using namespace std::chrono_literals;

namespace {

// Launching and stopping the fake twice (python start-up, teardown) on a loaded 2-core machine.
constexpr auto kMargin = 10s;
const std::string kOldCert = "{\"an\": \"earlier cert\"}\n";

struct HostileRun {
    testing::CommandResult result;
    std::chrono::milliseconds elapsed{0};
    bool cert_exists = false;
    std::string cert_path;
    std::string cert_text;
    core::Json cert;          // null when none was written or it does not read back
    std::vector<pid_t> left;  // processes still running that mention the run's directory
};

// Processes whose command line names `needle` (the scratch directory is in the fake's argv).
std::vector<pid_t> processes_mentioning(const std::string& needle) {
    std::vector<pid_t> found;
    DIR* proc = ::opendir("/proc");
    if (!proc) return found;
    while (const dirent* entry = ::readdir(proc)) {
        const std::string name = entry->d_name;
        if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
        std::string cmdline = testing::read_text("/proc/" + name + "/cmdline");
        std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
        const pid_t pid = std::stoi(name);
        if (pid != ::getpid() && cmdline.find(needle) != std::string::npos) found.push_back(pid);
    }
    ::closedir(proc);
    return found;
}

// Runs the cell `argv`, whose fake server's command line names `dir`: its time, the cert at
// `cert_path` (as text, and as a cert where it reads back) and the processes it left running.
HostileRun watch_run(const testing::ScratchDir& dir, const std::vector<std::string>& argv,
                     const std::string& cert_path) {
    HostileRun run;
    const auto start = std::chrono::steady_clock::now();
    run.result = testing::run_command(argv);
    run.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    run.cert_exists = std::filesystem::exists(cert_path);
    run.cert_path = cert_path;
    run.cert_text = testing::read_text(cert_path);
    try {
        auto loaded = io::read_cert(cert_path);
        if (loaded.digest_intact && loaded.shape_problem.empty()) run.cert = loaded.document;
    } catch (const std::exception&) {
        // not a cert: run.cert stays null
    }
    // bi-run reaps its server before it exits; the wait only absorbs /proc's own lag.
    testing::wait_until([&] { return processes_mentioning(dir.path()).empty(); }, 5000ms);
    run.left = processes_mentioning(dir.path());
    return run;
}

// One N=2 cell over a one-item work-set, one C pass; `fake` tokens go to the fake server.
HostileRun run_hostile(const std::vector<std::string>& fake, const std::vector<std::string>& extra,
                       bool existing_cert = false) {
    testing::ScratchDir dir;
    const std::string model = dir.write("model.gguf", "not really a model");
    const std::string workset = dir.write(
        "ws.json",
        R"([{"family": "recall", "fill": 0.1, "prompt": "Say 7.", "expected_answer": "7"}])");
    const std::string cert_path = dir.file("o/m__ctx512__N2.json");
    if (existing_cert) {
        std::filesystem::create_directories(dir.file("o"));
        dir.write("o/m__ctx512__N2.json", kOldCert);
    }
    std::vector<std::string> argv{BI_RUN_PATH, "run-live",    "--server-bin",  BI_FAKE_SERVER,
                                  "--model",   model,         "--model-alias", "m",
                                  "--out-dir", dir.file("o"), "--workset",     workset,
                                  "--ctx",     "512",         "--parallel",    "2",
                                  "--passes",  "1",           "--n-predict",   "4",
                                  "--quiet"};
    for (const auto& token : fake) argv.push_back("--server-flag=" + token);
    argv.insert(argv.end(), extra.begin(), extra.end());
    return watch_run(dir, argv, cert_path);
}

// The fake_cell_argv cell (N=4, eight items) with `fake` tokens for the fake server.
HostileRun run_fake_cell(const std::vector<std::string>& fake,
                         const std::vector<std::string>& extra) {
    testing::ScratchDir dir;
    auto argv =
        testing::fake_cell_argv(dir.write("model.gguf", "not really a model"), dir.file("o"));
    for (const auto& token : fake) argv.push_back("--server-flag=" + token);
    argv.insert(argv.end(), extra.begin(), extra.end());
    return watch_run(dir, argv, dir.file("o/m__ctx512__N4.json"));
}

std::size_t lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string status_of(const core::Json& cert) {
    const core::Json* v = cert.find("status");
    return v && v->is_string() ? v->as_string() : "";
}

std::string text_at(const core::Json& json, const std::string& path) {
    const core::Json* v = json.find_path(path);
    return v && v->is_string() ? v->as_string() : "";
}

// The decision reasons joined into one text, for Contains checks.
std::string reasons_of(const core::Json& cert) {
    std::string text;
    if (const core::Json* reasons = cert.find("decision_reasons"); reasons && reasons->is_array())
        for (const auto& line : reasons->as_array())
            if (line.is_string()) text += line.as_string() + "\n";
    return text;
}

// A cert UNVERIFIED because arm A was given up on its completion floor, the earlier cert kept in
// history: what a server that answered, but failed too much, leaves.
void check_given_up_cert(const HostileRun& run, const std::string& error) {
    CHECK(run.result.exit_code == 3);
    REQUIRE(run.cert.is_object());
    CHECK(status_of(run.cert) == "green_unverified");
    CHECK(text_at(run.cert, "rule.name") == "serial_given_up");
    CHECK(text_at(run.cert, "completion_floor.given_up.arm") == "A");
    const core::Json* failures = run.cert.find_path("completion_floor.given_up.census.failures");
    REQUIRE(failures);
    REQUIRE(failures->size() == 1);
    CHECK_THAT(text_at(failures->as_array().front(), "error"), Catch::Contains(error));
    CHECK_THAT(reasons_of(run.cert), Catch::Contains("completion floor out of reach: arm A given "
                                                     "up: 1 of 1 request(s) failed") &&
                                         Catch::Contains(error));
    CHECK(run.cert_text != kOldCert);
}

}  // namespace

TEST_CASE("a /health that drips ends at --ready-timeout: exit 1, one line, no cert written",
          "[adversarial][hostile]") {
    const auto run = run_hostile({"--fake-drip-health"}, {"--ready-timeout", "2"}, true);
    INFO(run.result.err);
    CHECK(run.result.exit_code == 1);
    CHECK_THAT(run.result.err,
               Catch::StartsWith("bi-run run-live: server not ready after 2 s (last /health "
                                 "answer: GET /health: no complete response within"));
    CHECK(lines(run.result.err) == 1);
    CHECK(run.cert_text == kOldCert);  // the earlier cert is untouched
    CHECK(run.elapsed < 2s + kMargin);
    CHECK(run.left.empty());
}

TEST_CASE("a completion that drips: arm A is given up at --req-timeout, no cert, the old one kept",
          "[adversarial][hostile]") {
    // One item: its timeout leaves arm A short of the completion floor, so no verdict is
    // possible. A byte every 100 ms would take a day; the run ends after one 1 s timeout.
    const auto run = run_hostile({"--fake-drip-completion"}, {"--req-timeout", "1"}, true);
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 1);
    CHECK_THAT(run.result.err,
               Catch::StartsWith("bi-run run-live: arm A (serial, 1 slot) given up: the first 1 "
                                 "request(s) to finish all timed out (1 s each)") &&
                   Catch::Contains("no verdict is possible, so no cert is written"));
    CHECK(lines(run.result.err) == 1);
    CHECK(run.cert_text == kOldCert);
    CHECK(run.elapsed < 1s + kMargin);
    CHECK(run.left.empty());
}

TEST_CASE("a wedged server costs two request timeouts, not one per item",
          "[adversarial][hostile]") {
    const auto run = run_fake_cell({"--fake-drip-completion"}, {"--req-timeout", "1"});
    INFO(run.result.err);
    CHECK(run.result.exit_code == 1);
    CHECK_THAT(run.result.err, Catch::Contains("arm A (serial, 1 slot) given up: the first 2 "
                                               "request(s) to finish all timed out (1 s each): "
                                               "the server takes requests but does not answer "
                                               "them"));
    CHECK_FALSE(run.cert_exists);
    CHECK(run.elapsed < 2s + kMargin);  // 8 items: over 30 s of timeouts without the give-up
    CHECK(run.left.empty());
}

TEST_CASE("a completion that drips cannot make an arm outlive --arm-deadline",
          "[adversarial][hostile]") {
    const auto run =
        run_hostile({"--fake-drip-completion"}, {"--req-timeout", "600", "--arm-deadline", "1"});
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 3);
    REQUIRE(run.cert.is_object());
    CHECK(status_of(run.cert) == "green_unverified");
    CHECK(run.elapsed < 4s + kMargin);  // four arms of at most 1 s each
    CHECK(run.left.empty());
}

TEST_CASE("an endless completion body stops at --max-response-bytes: an UNVERIFIED cert",
          "[adversarial][hostile]") {
    const auto run = run_hostile({"--fake-endless-body"},
                                 {"--req-timeout", "600", "--max-response-bytes", "100000"}, true);
    INFO(run.result.out << run.result.err);
    // Its one item failed, so arm A cannot reach its completion floor: the server answered, so
    // the cell is UNVERIFIED by it, and the cert says why.
    CHECK_THAT(run.result.err, Catch::Contains("arm A (serial, 1 slot) given up: 1 of 1 "
                                               "request(s) failed (bad_response x1)"));
    CHECK(lines(run.result.err) == 1);
    check_given_up_cert(run, "response larger than 100000 bytes");
    CHECK(run.elapsed < kMargin);  // the limit, not the 600 s deadline, ended each request
    CHECK(run.left.empty());
}

TEST_CASE("a 1 TiB Content-Length is refused unread: bad_response at once, an UNVERIFIED cert",
          "[adversarial][hostile]") {
    const auto run = run_hostile({"--fake-huge-length"}, {"--req-timeout", "600"}, true);
    INFO(run.result.out << run.result.err);
    CHECK_THAT(run.result.err, Catch::Contains("(bad_response x1)"));
    check_given_up_cert(run, "response larger than");
    CHECK(run.elapsed < kMargin);
    CHECK(run.left.empty());
}

TEST_CASE("HTTP 500s beyond the completion floor: an UNVERIFIED cert naming each failure, exit 3",
          "[adversarial][hostile]") {
    const auto run = run_hostile({"--fake-fail-first=1"}, {}, true);
    INFO(run.result.out << run.result.err);
    CHECK_THAT(run.result.err,
               Catch::Contains("arm A (serial, 1 slot) given up: 1 of 1 request(s) failed "
                               "(http_error x1)") &&
                   Catch::Contains("HTTP 500: graph capture not finished") &&
                   Catch::Contains("UNVERIFIED by its completion floor"));
    check_given_up_cert(run, "HTTP 500: graph capture not finished");
    // The cert it replaced is kept in history, and the output says so, as for any new verdict.
    CHECK(run.cert.find("previous"));
    CHECK_THAT(run.result.out + run.result.err,
               Catch::Contains("replaced: moved m__ctx512__N2.json to history/") &&
                   Catch::Contains(": it is no cert this run can read"));
    CHECK(run.left.empty());
}

TEST_CASE("a server that wedges mid-arm ends within a minute at default settings, no cert",
          "[adversarial][hostile]") {
    // Three answers, then every request is taken and never answered. The streams' silences so far
    // were milliseconds, so a request silent for the 20 s stall limit has stalled; two in a row
    // and the server stopped answering. Without that, each waited 60 s (or --req-timeout).
    const auto run = run_fake_cell({"--fake-hang-after=3"}, {});
    INFO(run.result.err);
    CHECK(run.result.exit_code == 1);
    CHECK_THAT(run.result.err,
               Catch::Contains("arm A (serial, 1 slot) given up: the last 2 request(s) to finish "
                               "all timed out (the last: POST ") &&
                   Catch::Contains(": no data for 20 s (stream stalled)) after 3 finished: the "
                                   "server stopped answering") &&
                   Catch::Contains("no verdict is possible, so no cert is written"));
    CHECK(lines(run.result.err) == 1);
    CHECK_FALSE(run.cert_exists);
    CHECK(run.elapsed < 60s);
    CHECK(run.left.empty());
}

TEST_CASE("deeply nested JSON in completions and /props is refused, not a crash",
          "[adversarial][hostile]") {
    const auto run = run_hostile({"--fake-nested-json=100000"}, {}, true);
    INFO(run.result.out << run.result.err);
    CHECK_THAT(run.result.err, Catch::Contains("(bad_response x1)"));
    CHECK(lines(run.result.err) == 1);
    check_given_up_cert(run, "asked to stream, the server answered application/json");
    CHECK(run.left.empty());
}

TEST_CASE("an out-of-range --max-response-bytes is refused before anything starts",
          "[adversarial][hostile]") {
    for (const char* value : {"1023", "1073741825", "-5", "12kb"}) {
        const auto run = run_hostile({}, {std::string("--max-response-bytes=") + value}, true);
        INFO(value << ": " << run.result.err);
        CHECK(run.result.exit_code == 2);
        CHECK_THAT(run.result.err,
                   Catch::StartsWith(std::string("bi-run run-live: --max-response-bytes ") + value +
                                     ": expected a whole number of bytes from 1024 to "
                                     "1073741824"));
        CHECK(lines(run.result.err) == 1);
        CHECK(run.cert_text == kOldCert);
        CHECK(run.left.empty());
    }
}

TEST_CASE(
    "a work-set item longer than the ctx is refused before any arm, naming it and both counts",
    "[adversarial][hostile][workset]") {
    testing::ScratchDir dir;
    const std::string model = dir.write("model.gguf", "not really a model");
    std::string words;
    for (int i = 0; i < 600; ++i) words += "word ";
    const std::string workset =
        dir.write("ws.json",
                  R"([{"family": "recall", "fill": 0.1, "prompt": "Say 7.", "expected_answer": "7"},
                      {"family": "long", "fill": 0.9, "prompt": ")" +
                      words + R"("}])");
    auto argv = testing::fake_cell_argv(model, dir.file("o"));
    *(std::find(argv.begin(), argv.end(), "--workset") + 1) = workset;
    const auto result = testing::run_command(argv);
    INFO(result.out << result.err);
    CHECK(result.exit_code == 2);
    // The fake's tokenizer counts words: 600 of them, for 512 tokens a slot.
    CHECK_THAT(result.err, Catch::StartsWith("bi-run run-live: work-set item m|512|long|") &&
                               Catch::Contains(": its prompt is 600 tokens") &&
                               Catch::Contains("ctx is 512 per slot: it cannot fit"));
    CHECK(lines(result.err) == 1);
    CHECK_FALSE(std::filesystem::exists(dir.file("o/m__ctx512__N4.json")));
    testing::wait_until([&] { return processes_mentioning(dir.path()).empty(); }, 5000ms);
    CHECK(processes_mentioning(dir.path()).empty());
}

TEST_CASE(
    "a request the server refuses says why: its HTTP status and message in the progress, "
    "the reasons and the cert",
    "[adversarial][hostile]") {
    testing::ScratchDir dir;
    const std::string model = dir.write("model.gguf", "not really a model");
    auto argv = testing::fake_cell_argv(model, dir.file("o"));
    argv.erase(std::find(argv.begin(), argv.end(), "--quiet"));
    // One of the 8 items (the lamp's) is refused as too long for the context, in every arm: 7 of
    // 8 meet the completion floor, so the run goes on, and the failure is named wherever counted.
    argv.emplace_back("--server-flag=--fake-reject-prompt=lamp");
    const auto result = testing::run_command(argv);
    INFO(result.out << result.err);
    const std::string words =
        "HTTP 400: the request exceeds the available context size, try increasing it "
        "(n_prompt_tokens 9, n_ctx 512)";
    CHECK_THAT(result.err, Catch::Contains("arm A (serial, 1 slot): 7/8 scored ok; failed: "
                                           "http_error x1 (the first: m|512|recall|") &&
                               Catch::Contains(words));
    const auto loaded = io::read_cert(dir.file("o/m__ctx512__N4.json"));
    const core::Json& cert = loaded.document;
    const core::Json* failures = cert.find_path("completion_floor.arms.A.failures");
    REQUIRE(failures);
    REQUIRE(failures->size() == 1);
    CHECK(text_at(failures->as_array().front(), "failure_mode") == "http_error");
    CHECK_THAT(text_at(failures->as_array().front(), "error"), Catch::Contains(words));
    CHECK_THAT(reasons_of(cert), Catch::Contains("A: m|512|recall|") && Catch::Contains(words));
}
