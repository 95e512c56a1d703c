// Every path to a false GREEN that a misbehaving llama-server work-alike can take, one test each,
// plus the honest controls: bi-run run-live against fake_llama_server.py, asserting the exit
// status, the cert's status and class, and the reason that names what went wrong.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "fake_cell.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

struct LiveRun {
    testing::CommandResult result;
    core::Json cert;  // null when no cert was written
};

// One N=4 cell over the small work-set; each `fake` token is passed to the fake server.
LiveRun run_fake(const std::vector<std::string>& fake, const std::vector<std::string>& extra = {}) {
    testing::ScratchDir dir;
    const std::string model = dir.write("model.gguf", "not really a model");
    auto argv = testing::fake_cell_argv(model, dir.file("o"));
    for (const auto& token : fake) argv.push_back("--server-flag=" + token);
    argv.insert(argv.end(), extra.begin(), extra.end());
    LiveRun run;
    run.result = testing::run_command(argv);
    const std::string path = dir.file("o/m__ctx512__N4.json");
    try {
        auto loaded = io::read_cert(path);
        if (loaded.digest_intact && loaded.shape_problem.empty()) run.cert = loaded.document;
    } catch (const std::exception&) {
        // no cert: run.cert stays null
    }
    return run;
}

std::string str(const core::Json& cert, const char* key) {
    const core::Json* v = cert.find(key);
    return v && v->is_string() ? v->as_string() : "";
}

bool says(const core::Json& cert, const std::string& text) {
    if (const core::Json* reasons = cert.find("decision_reasons"))
        for (const auto& line : reasons->as_array())
            if (line.as_string().find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("control: an honest server is a promotable live GREEN", "[adversarial]") {
    const auto run = run_fake({});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 0);
    CHECK(str(run.cert, "status") == "green");
    CHECK(str(run.cert, "source") == "live");
    CHECK(says(run.cert, "overlap proven at N = 4 in every pass"));
}

TEST_CASE("root cause 1: a server that computes at most 2 of 4 at once is not certified",
          "[adversarial]") {
    // It would diverge only with 3+ in a batch, which it never forms: the old gate saw 2 busy.
    const auto run = run_fake({"--fake-compute-max=2", "--fake-diverge-at=3"});
    INFO(run.result.out);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "server peak busy slots 2 (need 4)"));
}

TEST_CASE("root cause 1: a server running 2 slots when asked for 4 is not certified",
          "[adversarial]") {
    const auto run = run_fake({"--fake-total-slots=2", "--fake-diverge-at=3"});
    INFO(run.result.out);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "reports total_slots 2, asked for N = 4"));
}

TEST_CASE("root cause 2: /slots and /metrics that lie are contradicted by the decode counters",
          "[adversarial]") {
    const auto run = run_fake({"--fake-compute-max=1", "--fake-lie-slots"});
    INFO(run.result.out);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "the decode counters say 1.00 busy slots per decode"));
    CHECK(says(run.cert, "contradicting /slots"));
}

TEST_CASE(
    "root cause 2: a phantom task resident on the other slots does not co-batch a serial "
    "server",
    "[adversarial]") {
    // The server computes one request at a time while /slots shows every other slot busy with a
    // task that never ends: each request has a task on another slot before and after it, and
    // every /slots answer shows N busy. The counters of what was computed contradict it.
    auto run = run_fake({"--fake-compute-max=1", "--fake-phantom-task"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "the decode counters say 1.00 busy slots per decode"));
    // Where the kind has no decode counters (ik_llama.cpp), its requests_processing gauge does.
    run = run_fake({"--fake-ik-surface", "--fake-compute-max=1", "--fake-phantom-task"},
                   {"--server-kind", "ik_llama.cpp"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "requests_processing peaked at 1"));
}

TEST_CASE("root cause 2: a server without /slots, or without /metrics, is never green",
          "[adversarial]") {
    auto run = run_fake({"--fake-no-slots"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "/slots gave no evidence"));
    run = run_fake({"--fake-no-metrics"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "/metrics gave no requests_processing"));
}

TEST_CASE("root cause 3: a change hidden in reasoning_content or tool_calls is caught",
          "[adversarial]") {
    for (const char* knob : {"--fake-reasoning-drift", "--fake-toolcall-drift"}) {
        const auto run = run_fake({knob});
        INFO(knob << "\n" << run.result.out);
        REQUIRE(run.cert.is_object());
        CHECK(run.result.exit_code == 3);
        // exact's extracted answer carries reasoning and tool calls, so this is RED.
        CHECK(str(run.cert, "status") == "failed");
        CHECK(str(run.cert, "divergence_class") == "co_batching");
        CHECK(says(run.cert, "id(s) diverged on at least one of 2 pass(es)"));
    }
}

TEST_CASE("root cause 3: a changed generated-token count is at least AMBER", "[adversarial]") {
    // Streamed, a count that disagrees with the tokens streamed is a contradictory answer: the
    // requests that carried it failed under concurrency, which is RED and named so.
    const auto run = run_fake({"--fake-token-count-drift"});
    INFO(run.result.out);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "failed");
    CHECK(says(run.cert, "failed under concurrency (bad_response"));
}

TEST_CASE("root cause 4: logprobs or token ids missing under concurrency fail closed",
          "[adversarial]") {
    // Streamed, chunks without their logprobs are either missing evidence or, where the counts
    // no longer add up, answers that failed under concurrency: never agreement.
    auto run = run_fake({"--fake-drop-logprobs"}, {"--logprobs", "1"});
    INFO(run.result.out);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") != "green");
    CHECK((says(run.cert, "missing evidence: no token_logprobs in C1") ||
           says(run.cert, "failed under concurrency (bad_response")));
    // Likewise /completion chunks without their token ids.
    run = run_fake({"--fake-drop-logprobs"}, {"--endpoint", "completion"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") != "green");
    CHECK((says(run.cert, "missing evidence: no token_ids in C1") ||
           says(run.cert, "failed under concurrency (bad_response")));
}

TEST_CASE("root cause 5: items the arm deadline never sent are incomplete, not RED",
          "[adversarial]") {
    const auto run =
        run_fake({"--fake-hang-concurrent"}, {"--arm-deadline", "2", "--req-timeout", "60"});
    INFO(run.result.out);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "incomplete run:"));
}

TEST_CASE("root cause 5: requests failing under concurrency are RED and named as failures",
          "[adversarial]") {
    const auto run = run_fake({"--fake-fail-concurrent"});
    INFO(run.result.out);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "failed");
    CHECK(says(run.cert, "failed under concurrency ("));
    CHECK(says(run.cert, "http_error x"));
}

TEST_CASE("root cause 5: answers that depend only on the slot are slot_allocation",
          "[adversarial]") {
    // Four passes: C trials land on their arm-B slot often enough to judge (first-free choice).
    auto run = run_fake({"--fake-slot-dependent"}, {"--endpoint", "completion", "--passes", "4"});
    INFO(run.result.out);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "failed");
    CHECK(str(run.cert, "divergence_class") == "slot_allocation");
    // Slot dependence plus a real co-batching change: both named.
    run = run_fake({"--fake-slot-dependent", "--fake-diverge-at=2"},
                   {"--endpoint", "completion", "--passes", "4"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "divergence_class") == "slot_allocation+co_batching");
}

// A server kind written by the user, in a file bi-run has never seen, launches the work-alike and
// earns its verdict like a shipped kind. The fake takes llama-server's flags; this kind spells
// them its own way, and declares only the running gauge as its evidence.
const char* const kUserKind = R"(schema = "bi-server-kind/1"
name = "my-llama"
description = "a work-alike launched through a user's kind file"
[launch]
argv = ["--model", "{model}", "--host", "{host}", "--port", "{port}", "--ctx-size", "{ctx_total}",
        "-np", "{n}", "--metrics", "--slots"]
managed_flags = ["--model", "--host", "--port", "--ctx-size", "-np", "--metrics", "--slots"]
[request]
limit_fields = ["max_tokens"]
[evidence]
metrics_path = "/metrics"
running_gauge = "llamacpp:requests_processing"
[identity]
props_path = "/props"
)";

TEST_CASE("a user's kind file: the honest work-alike is a promotable GREEN", "[adversarial]") {
    testing::ScratchDir kinds;
    kinds.write("my-llama.toml", kUserKind);
    const auto run = run_fake({}, {"--server-kind", "my-llama", "--server-kind-dir", kinds.path()});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 0);
    CHECK(str(run.cert, "status") == "green");
    // The cert names the kind, its file and the one signal it was judged by; arm B was not
    // pinned (the kind names no slot field).
    const core::Json* kind = run.cert.find("server")->find("kind");
    REQUIRE(kind);
    CHECK(str(*kind, "name") == "my-llama");
    CHECK(str(*kind, "source") == kinds.file("my-llama.toml"));
    CHECK(str(*kind->find("evidence"), "slots_path").empty());
    CHECK(kind->find("slot_pinning")->as_bool() == false);
}

TEST_CASE("a user's kind file that cannot stream: answers read whole, the server's signals decide",
          "[adversarial]") {
    testing::ScratchDir kinds;
    std::string text = kUserKind;
    text.replace(text.find("[request]\n"), 10, "[request]\nstreams = false\n");
    kinds.write("my-llama.toml", text);
    // The time-slicer whose gauge lies: without streams only its one signal speaks, and it says
    // four. This is what a kind gives up by not streaming (docs/servers.md).
    auto run = run_fake({}, {"--server-kind", "my-llama", "--server-kind-dir", kinds.path()});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green");
    CHECK_FALSE(run.cert.find("lockstep"));
    CHECK_FALSE(says(run.cert, "token streams"));
    run = run_fake({"--fake-schedule=round-robin", "--fake-lie-slots"},
                   {"--server-kind", "my-llama", "--server-kind-dir", kinds.path()});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green");
    // Streamed, the same server is caught by its streams.
    kinds.write("my-llama.toml", kUserKind);
    run = run_fake({"--fake-schedule=round-robin", "--fake-lie-slots"},
                   {"--server-kind", "my-llama", "--server-kind-dir", kinds.path()});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(str(*run.cert.find("rule"), "name") == "lockstep");
}

TEST_CASE("a user's kind file that declares no evidence: its token streams decide",
          "[adversarial]") {
    testing::ScratchDir kinds;
    std::string text = kUserKind;
    text = text.substr(0, text.find("[evidence]")) + "[identity]\nprops_path = \"/props\"\n";
    text.replace(text.find("my-llama"), 8, "bare");
    const auto file = kinds.write("bare.toml", text);
    auto run = run_fake({"--fake-tick-ms=10"}, {"--server-kind", file});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green");
    CHECK(says(run.cert, "batching decided by the streams"));
    // One request at a time, with /slots and the counters claiming four: nothing the kind
    // declares is read, and the streams show it.
    run = run_fake({"--fake-schedule=serial", "--fake-lie-slots", "--fake-lie-counters"},
                   {"--server-kind", file});
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "the token streams show one request decoding at a time"));
    // A divergence is still an existence proof.
    run = run_fake({"--fake-diverge-at=2"}, {"--server-kind", file});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "failed");
}

TEST_CASE("a user's kind file: a work-alike that diverges when co-batched is RED",
          "[adversarial]") {
    testing::ScratchDir kinds;
    const auto file = kinds.write("my-llama.toml", kUserKind);
    const auto run = run_fake({"--fake-diverge-at=2"}, {"--server-kind", file});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "failed");
}

TEST_CASE("ik_llama.cpp: its own evidence earns a GREEN, and its lies do not", "[adversarial]") {
    // Its /slots says state, not is_processing, and its /metrics has no decode counters: read as
    // its kind declares, an honest server is a promotable GREEN ...
    SECTION("its own kind") {
        const auto run = run_fake({"--fake-ik-surface"}, {"--server-kind", "ik_llama.cpp"});
        INFO(run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(run.result.exit_code == 0);
        CHECK(str(run.cert, "status") == "green");
        CHECK(str(*run.cert.find("server")->find("kind")->find("evidence"), "slot_busy") ==
              "state");
    }
    // ... read as llama-server's, its /slots entries lack is_processing and show nothing
    // computing, but its streams show all four decoding in lockstep and its gauge says four:
    // the client's observation carries the honest server ...
    SECTION("read as llama-server") {
        const auto run = run_fake({"--fake-ik-surface"}, {});
        INFO(run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(str(run.cert, "status") == "green");
        CHECK(str(*run.cert.find("lockstep"), "decided_by") == "streams and server");
    }
    // ... and one whose slots never reach N (it runs two at a time) is not GREEN either ...
    SECTION("two slots") {
        const auto run = run_fake({"--fake-ik-surface", "--fake-total-slots=2"},
                                  {"--server-kind", "ik_llama.cpp"});
        INFO(run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(str(run.cert, "status") == "green_unverified");
    }
    SECTION("diverging") {
        const auto run = run_fake({"--fake-ik-surface", "--fake-diverge-at=2"},
                                  {"--server-kind", "ik_llama.cpp"});
        INFO(run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(run.result.exit_code == 3);
        CHECK(str(run.cert, "status") == "failed");
    }
}

TEST_CASE("a server whose /tokenize fails while the work-set is sized: no cert, its own words",
          "[adversarial]") {
    // The generator sizes its rows with the first server's tokenizer; the third count fails. Rows
    // sized partly by the server and partly by estimate are neither set, so the cell ends there.
    testing::ScratchDir dir;
    const std::string model = dir.write("model.gguf", "not really a model");
    auto argv = testing::fake_cell_argv(model, dir.file("o"));
    const auto workset = std::find(argv.begin(), argv.end(), "--workset");
    REQUIRE(workset != argv.end());
    argv.erase(workset, workset + 2);
    argv.insert(argv.end(), {"--generator", "spark", "--server-flag=--fake-tokenize-fail-after=2"});
    const auto result = testing::run_command(argv);
    INFO(result.out << result.err);
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.err,
               Catch::Contains("/tokenize failed") && Catch::Contains("tokenizer worker crashed"));
    CHECK_FALSE(std::filesystem::exists(dir.file("o/m__ctx512__N4.json")));
    // The same server counting every row is sized by it and runs to a verdict.
    auto control = testing::fake_cell_argv(model, dir.file("c"));
    const auto at = std::find(control.begin(), control.end(), "--workset");
    control.erase(at, at + 2);
    control.insert(control.end(), {"--generator", "spark"});
    const auto ran = testing::run_command(control);
    INFO(ran.out << ran.err);
    CHECK((ran.exit_code == 0 || ran.exit_code == 3));
    CHECK(std::filesystem::exists(dir.file("c/m__ctx512__N4.json")));
}

// ---- what the token streams show (docs/design.md §5.2.1) ----

TEST_CASE("the consistent liar: serial compute with every llama signal claiming N is not GREEN",
          "[adversarial]") {
    // /slots, requests_processing and the busy-slots-per-decode counter all say four computed
    // together; only one ever did.
    const auto run =
        run_fake({"--fake-schedule=serial", "--fake-lie-slots", "--fake-lie-counters"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(run.result.exit_code == 3);
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(str(*run.cert.find("rule"), "name") == "lockstep");
    CHECK(says(run.cert, "the server reports 4 computing together"));
    CHECK(says(run.cert, "but the token streams show one request decoding at a time"));
}

TEST_CASE("round-robin time-slicing is not GREEN, with honest or lying signals", "[adversarial]") {
    // Honest: /slots shows four resident, the decode counter one per step.
    auto run = run_fake({"--fake-schedule=round-robin"});
    INFO(run.result.out << run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_unverified");
    // Lying: the counter claims four per step too; the streams alternate.
    run = run_fake({"--fake-schedule=round-robin", "--fake-lie-slots", "--fake-lie-counters"});
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(says(run.cert, "the token streams show time-sliced decoding"));
}

TEST_CASE("honest streams of 3 and of 256 tokens are GREEN", "[adversarial]") {
    // Three tokens give each request two decode steps: steps of 10 ms, a small real model's,
    // keep requests sent together inside the same steps on a loaded machine; 256 tokens have
    // steps enough at 1 ms.
    for (const auto& [n, tick] : std::vector<std::pair<std::string, std::string>>{
             {"3", "--fake-tick-ms=10"}, {"256", "--fake-tick-ms=1"}}) {
        const auto run = run_fake({tick}, {"--n-predict", n, "--passes", "1"});
        INFO("n-predict " << n << ": " << run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(str(run.cert, "status") == "green");
        CHECK(run.result.exit_code == 0);
        const core::Json* lockstep = run.cert.find("lockstep");
        REQUIRE(lockstep);
        CHECK(lockstep->find("ok")->as_bool());
        CHECK(lockstep->find("decided_by")->as_string() == "streams and server");
        CHECK(run.cert.find("throughput")->find("speedup")->is_number());
    }
}

TEST_CASE("a stream that breaks its own rules is never agreement", "[adversarial]") {
    // Every answer misbehaves, so the serial arm already fails its completion floor: the server
    // answered, so every cell is UNVERIFIED by it, and the reason names what the stream did.
    const std::vector<std::pair<std::string, std::string>> cases{
        {"--fake-stream-duplicate=3", "the first: m|512|recall|0.111111|0|fill0.10: stream:"},
        {"--fake-stream-after-final", "the first: m|512|recall|0.111111|0|fill0.10: stream:"},
        {"--fake-stream-miscount", "the first: m|512|recall|0.111111|0|fill0.10: stream:"},
        {"--fake-stream-error=data", "the first: "},
    };
    for (const auto& [knob, words] : cases) {
        const auto run = run_fake({knob}, {"--req-timeout", "3"});
        INFO(knob << ": " << run.result.out << run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(str(run.cert, "status") == "green_unverified");
        CHECK(run.cert.find_path("rule.name")->as_string() == "serial_given_up");
        CHECK(run.result.exit_code == 3);
        CHECK(run.result.err.find(words) != std::string::npos);
    }
    // A stream that stalls every answer: the server stopped answering, so no verdict, no cert.
    const auto stalled = run_fake({"--fake-stream-stall=2"}, {"--req-timeout", "3"});
    INFO(stalled.result.out << stalled.result.err);
    CHECK(stalled.cert.is_null());
    CHECK(stalled.result.exit_code == 1);
    CHECK(stalled.result.err.find("no verdict is possible") != std::string::npos);
    CHECK(stalled.result.err.find("timed out") != std::string::npos);
    // A stream dripped byte by byte is slow, not wrong.
    const auto drip = run_fake({"--fake-stream-drip=0"}, {"--passes", "1"});
    INFO(drip.result.out << drip.result.err);
    REQUIRE(drip.cert.is_object());
    CHECK(str(drip.cert, "status") == "green");
}
