// Every shipped work-alike kind end to end against fake_llama_server.py's surface of that kind
// (--fake-surface): launched with the kind's own argv and environment, read through the kind's
// own readiness, identity and metrics routes. An honest fake earns a promotable GREEN where the
// kind has a co-batching signal, and GREEN from its token streams alone where it has none; a
// divergent one is RED, a token-count drift AMBER, a server that never reaches N UNVERIFIED; a
// fake that lies in one signal is caught where the kind has a second, or by its streams.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "core/json.hpp"
#include "core/sha256.hpp"
#include "fake_cell.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "processes.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

namespace bi {
namespace {

struct KindRun {
    testing::CommandResult result;
    core::Json cert;       // null when no cert was written
    int verify_exit = -1;  // verify-cert on it
};

struct Kind {
    const char* name;     // --server-kind
    const char* surface;  // --fake-surface
    const char* model;    // "directory", "name" or "gguf": what {model} is
};

// bi-run's command line for one N=4 cell over the small work-set through `kind`.
std::vector<std::string> kind_argv(const Kind& kind, const std::string& model,
                                   const std::string& out_dir) {
    auto argv = testing::fake_cell_argv(model, out_dir);
    argv.insert(argv.end(), {"--server-kind", kind.name,
                             std::string("--server-flag=--fake-surface=") + kind.surface});
    return argv;
}

// A model of the kind's form in `dir`.
std::string model_for(const Kind& kind, const testing::ScratchDir& dir) {
    if (std::string(kind.model) == "gguf") return dir.write("model.gguf", "not really a model");
    if (std::string(kind.model) != "directory") return "served-model";
    std::filesystem::create_directories(dir.file("model"));
    dir.write("model/config.json", "{\"architectures\": [\"Fake\"]}\n");
    dir.write("model/weights.bin", "weights");
    return dir.file("model");
}

// The cell run; each `fake` token reaches the fake, and `options` go to bi-run.
KindRun run_kind(const Kind& kind, const std::vector<std::string>& fake = {},
                 const std::vector<std::string>& options = {}) {
    testing::ScratchDir dir;
    auto argv = kind_argv(kind, model_for(kind, dir), dir.file("o"));
    for (const auto& token : fake) argv.push_back("--server-flag=" + token);
    argv.insert(argv.end(), options.begin(), options.end());
    KindRun run;
    run.result = testing::run_command(argv);
    try {
        auto loaded = io::read_cert(dir.file("o/m__ctx512__N4.json"));
        if (loaded.digest_intact && loaded.shape_problem.empty()) run.cert = loaded.document;
        run.verify_exit =
            testing::run_command({BI_RUN_PATH, "verify-cert", dir.file("o/m__ctx512__N4.json")})
                .exit_code;
    } catch (const std::exception&) {
        // no cert: run.cert stays null
    }
    return run;
}

std::string status(const KindRun& run) {
    const core::Json* v = run.cert.find("status");
    return v && v->is_string() ? v->as_string() : "(no cert)";
}

// The cert's status is `want`; where it is not, the run's own output says why.
void check_status(const KindRun& run, const std::string& want) {
    INFO(run.result.out << run.result.err);
    CHECK(status(run) == want);
}

bool says(const KindRun& run, const std::string& text) {
    if (const core::Json* reasons = run.cert.find("decision_reasons"))
        for (const auto& line : reasons->as_array())
            if (line.as_string().find(text) != std::string::npos) return true;
    return false;
}

// GREEN, RED, AMBER and UNVERIFIED for a kind with a co-batching signal. The runs that must show
// the batch tick at kArrivalTimedTick: these kinds' streams carry no server clock.
void check_kind_with_evidence(const Kind& kind) {
    auto run = run_kind(kind, {testing::kArrivalTimedTick});
    INFO(kind.name << ": " << run.result.out << run.result.err);
    check_status(run, "green");
    CHECK(run.result.exit_code == 0);
    const core::Json* record =
        run.cert.find("server") ? run.cert.find("server")->find("kind") : nullptr;
    REQUIRE(record);
    CHECK(record->find("name")->as_string() == kind.name);
    CHECK(record->find("sha256")->as_string().size() == 64);
    CHECK_FALSE(record->find("slot_pinning")->as_bool());  // no slots: arm B unpinned

    run = run_kind(kind, {"--fake-diverge-at=2"});
    check_status(run, "failed");
    CHECK(run.result.exit_code == 3);
    // B named no slot, so it rules no slot out: the class says so.
    CHECK(run.cert.string_or("divergence_class", "") == "co_batching_or_slot_allocation");
    CHECK(says(run, "arm B named no slot"));

    run = run_kind(kind, {"--fake-token-count-drift", testing::kArrivalTimedTick});
    check_status(run, "green_with_caveat");

    // Only two requests ever compute at once: the signal never reaches N = 4.
    run = run_kind(kind, {"--fake-total-slots=2"});
    check_status(run, "green_unverified");
}

// A kind without any signal of its own is judged by its token streams alone: an honest fake is
// GREEN and the cert says the streams decided; one that decodes a request at a time or one token
// per step in turn is UNVERIFIED, naming what the streams showed; a divergence is RED. The honest
// run ticks at kArrivalTimedTick: these streams carry no server clock either.
void check_kind_judged_by_streams(const Kind& kind) {
    auto run = run_kind(kind, {testing::kArrivalTimedTick});
    INFO(kind.name << ": " << run.result.out << run.result.err);
    check_status(run, "green");
    CHECK(run.verify_exit == 0);
    const core::Json* lockstep = run.cert.find("lockstep");
    REQUIRE(lockstep);
    CHECK(lockstep->find("decided_by")->as_string() == "streams");
    CHECK(says(run, "batching decided by the streams"));
    CHECK_FALSE(says(run, "this server exposes no evidence that requests were batched"));

    run = run_kind(kind, {"--fake-schedule=serial"});
    check_status(run, "green_unverified");
    CHECK(run.result.exit_code == 3);
    CHECK(says(run, "the token streams show one request decoding at a time"));

    // Timed on arrival, tokens taking turns 3 ms apart may now and then look together: what the
    // streams show is named either way, and it is not lockstep.
    run = run_kind(kind, {"--fake-schedule=round-robin"});
    check_status(run, "green_unverified");
    CHECK(says(run, "no lockstep at N = 4: pass 1: the token streams show"));

    run = run_kind(kind, {"--fake-diverge-at=2"});
    check_status(run, "failed");
}

}  // namespace

TEST_CASE("kind vllm: its gauge and step histogram earn the verdict", "[adversarial]") {
    const Kind vllm{"vllm", "vllm", "directory"};
    check_kind_with_evidence(vllm);
    // A gauge that claims N while one request computes per step: the step histogram says one
    // token per step, contradicting it.
    const auto run = run_kind(vllm, {"--fake-lie-slots", "--fake-compute-max=1"});
    INFO(run.result.out << run.result.err);
    check_status(run, "green_unverified");
    CHECK(says(run, "contradicting num_requests_running"));
}

TEST_CASE("every kind with prefill-chunk flags launches both servers with them", "[adversarial]") {
    struct Chunked {
        Kind kind;
        std::vector<std::string> fake;
        std::string flag;  // the flag whose value is the chunk
    };
    const std::vector<Chunked> kinds{
        {{"llama-server", "llama", "gguf"}, {}, "-ub"},
        {{"ik_llama.cpp", "llama", "gguf"}, {"--fake-ik-surface"}, "-ub"},
        {{"vllm", "vllm", "directory"}, {}, "--max-num-batched-tokens"},
        {{"sglang", "sglang", "directory"}, {}, "--chunked-prefill-size"},
        {{"tgi", "tgi", "directory"}, {}, "--max-batch-prefill-tokens"},
        {{"trtllm-serve", "trtllm", "directory"}, {}, "--max_num_tokens"},
    };
    for (const auto& chunked : kinds) {
        // What is under test is the launch: the cell reaches its verdict (GREEN unless a busy
        // machine's timing noise keeps the streams from showing lockstep; never a RED), and the
        // replay agrees with the cert.
        const auto run = run_kind(chunked.kind, chunked.fake,
                                  {"--prefill-chunk", "64", "--arrivals", "together"});
        INFO(chunked.kind.name << ": " << run.result.out << run.result.err);
        CHECK((status(run) == "green" || status(run) == "green_unverified"));
        REQUIRE(run.cert.is_object());
        CHECK(run.cert.find("run")->find("prefill_chunk")->as_int() == 64);
        for (const char* server : {"A", "N"}) {
            std::vector<std::string> argv;
            for (const auto& token :
                 run.cert.find("server")->find(server)->find("argv")->as_array())
                argv.push_back(token.as_string());
            const auto flag = std::find(argv.begin(), argv.end(), chunked.flag);
            REQUIRE(flag != argv.end());
            REQUIRE(flag + 1 != argv.end());
            CHECK(flag[1] == "64");
        }
        CHECK((run.verify_exit == 0 || run.verify_exit == 3));  // 1: the cert disagrees
    }
}

TEST_CASE("a cert cannot be judged by weaker signals than its shipped kind declares",
          "[adversarial]") {
    // An honest vLLM GREEN, its kind record edited to drop the step histogram and its digest
    // recomputed: the cert still agrees with its own (weakened) evidence, but not with the
    // shipped kind file it names.
    testing::ScratchDir dir;
    const Kind vllm{"vllm", "vllm", "directory"};
    auto argv = kind_argv(vllm, model_for(vllm, dir), dir.file("o"));
    argv.push_back(std::string("--server-flag=") + testing::kArrivalTimedTick);
    const auto run = testing::run_command(argv);
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    const std::string path = dir.file("o/m__ctx512__N4.json");
    const auto verified = testing::run_command({BI_RUN_PATH, "verify-cert", path});
    CHECK(verified.exit_code == 0);
    core::Json document = io::read_cert(path).document;
    core::Json& evidence = document["server"]["kind"]["evidence"];
    evidence.set("step_sum", "");
    evidence.set("step_count", "");
    document.set("digest", io::cert_digest(document));
    io::write_file_atomically(path, io::to_json_text(document));
    const auto forged = testing::run_command({BI_RUN_PATH, "verify-cert", path});
    INFO(forged.out << forged.err);
    CHECK(forged.exit_code == 1);
    CHECK_THAT(forged.out + forged.err,
               Catch::Contains("server.kind.evidence is not what built-in:vllm.toml declares"));
}

TEST_CASE("a server whose identity names another model than the one launched earns no GREEN",
          "[adversarial]") {
    // Every other signal is honest: only /props, /get_server_info or /info names another model.
    for (const Kind& kind :
         {Kind{"llama-server", "llama", "gguf"}, Kind{"sglang", "sglang", "directory"},
          Kind{"tgi", "tgi", "directory"}}) {
        const auto run = run_kind(kind, {"--fake-report-model=/elsewhere/other-model"});
        INFO(kind.name << ": " << run.result.out << run.result.err);
        check_status(run, "green_unverified");
        CHECK(run.result.exit_code == 3);
        CHECK(says(run, "another model than the one launched"));
        CHECK(says(run, "'/elsewhere/other-model'"));
        CHECK(says(run, "not the launched '"));
        CHECK(run.cert.find("rule")->string_or("name", "") == "server_identity");
        CHECK(run.verify_exit == 3);  // the replay finds the same: not promotable, not invalid
    }
}

TEST_CASE("a server that ignores arm B's slot pins: B is said to be no slot control",
          "[adversarial]") {
    const Kind llama{"llama-server", "llama", "gguf"};
    auto run = run_kind(llama, {"--fake-diverge-at=2"});
    INFO(run.result.out << run.result.err);
    CHECK(run.cert.string_or("divergence_class", "") == "co_batching");  // the pins held
    run = run_kind(llama, {"--fake-diverge-at=2", "--fake-ignore-pins"});
    INFO(run.result.out << run.result.err);
    check_status(run, "failed");
    CHECK(run.cert.string_or("divergence_class", "") == "co_batching_or_slot_allocation");
    CHECK(says(run, "ran on another slot than the one pinned (the server ignored id_slot)"));
    REQUIRE(run.cert.find("arm_b"));
    CHECK(run.cert.find("arm_b")->int_or("pins_ignored", 0) > 0);
    CHECK(run.verify_exit == 3);  // the replay agrees
}

TEST_CASE("kind sglang: its gauge and /get_server_info capacity earn the verdict",
          "[adversarial]") {
    check_kind_with_evidence({"sglang", "sglang", "directory"});
}

TEST_CASE("kind tgi: its batch-size gauge earns the verdict", "[adversarial]") {
    check_kind_with_evidence({"tgi", "tgi", "directory"});
}

TEST_CASE("kind trtllm-serve: its JSON iteration statistics earn the verdict", "[adversarial]") {
    check_kind_with_evidence({"trtllm-serve", "trtllm", "directory"});
}

TEST_CASE("kind ollama: no co-batching signal, so its token streams decide", "[adversarial]") {
    const Kind ollama{"ollama", "ollama", "name"};
    check_kind_judged_by_streams(ollama);
    // The store model is recorded by name, with the digest its server lists for it.
    const auto run = run_kind(ollama);
    const core::Json* model = run.cert.find("model_file");
    REQUIRE(model);
    CHECK(model->find("path")->as_string() == "served-model");
    CHECK(model->find("store_digest")->as_string() == core::sha256_hex("served-model"));
    CHECK_FALSE(model->find("sha256"));
}

TEST_CASE("kind openai-generic: no co-batching signal, so its token streams decide",
          "[adversarial]") {
    check_kind_judged_by_streams({"openai-generic", "generic", "name"});
}

TEST_CASE("every honest kind keeps its GREEN, twice over, with every core loaded",
          "[adversarial][busy]") {
    // Two busy processes beside the run: the client, the fake and the poller are all
    // descheduled at times. Only the llama surfaces stream a server clock; the others tick at
    // kArrivalTimedTick.
    struct Honest {
        Kind kind;
        std::vector<std::string> fake;
    };
    const std::vector<Honest> kinds{
        {{"llama-server", "llama", "gguf"}, {}},
        {{"ik_llama.cpp", "llama", "gguf"}, {"--fake-ik-surface"}},
        {{"vllm", "vllm", "directory"}, {testing::kArrivalTimedTick}},
        {{"sglang", "sglang", "directory"}, {testing::kArrivalTimedTick}},
        {{"tgi", "tgi", "directory"}, {testing::kArrivalTimedTick}},
        {{"trtllm-serve", "trtllm", "directory"}, {testing::kArrivalTimedTick}},
        {{"ollama", "ollama", "name"}, {testing::kArrivalTimedTick}},
        {{"openai-generic", "generic", "name"}, {testing::kArrivalTimedTick}},
    };
    const testing::CoreLoad load;
    for (int round = 1; round <= 2; ++round)
        for (const auto& honest : kinds) {
            const auto run = run_kind(honest.kind, honest.fake);
            INFO("round " << round << ", " << honest.kind.name << ": " << run.result.out
                          << run.result.err);
            check_status(run, "green");
        }
}

}  // namespace bi

namespace bi {

TEST_CASE("two Ollama models whose names differ after a dot keep two certs and their own ids",
          "[adversarial][names]") {
    testing::ScratchDir dir;
    const std::vector<std::string> models{"llama3.1:8b", "llama3.2:1b"};
    for (const auto& model : models) {
        auto argv = testing::fake_cell_argv(model, dir.file("o"));
        const auto alias = std::find(argv.begin(), argv.end(), "--model-alias");
        argv.erase(alias, alias + 2);  // the cell is named by the store name itself
        argv.insert(argv.end(), {"--server-kind", "ollama", "--server-flag=--fake-surface=ollama",
                                 "--server-flag=--fake-tick-ms=10"});
        const auto run = testing::run_command(argv);
        INFO(model << ": " << run.out << run.err);
        CHECK((run.exit_code == 0 || run.exit_code == 3));
    }
    CHECK_FALSE(std::filesystem::exists(dir.file("o/history")));  // neither replaced the other
    for (const auto& [model, file] :
         {std::pair<std::string, std::string>{models[0], "o/llama3.1~3A8b__ctx512__N4.json"},
          {models[1], "o/llama3.2~3A1b__ctx512__N4.json"}}) {
        INFO(file);
        const auto loaded = io::read_cert(dir.file(file));
        CHECK(loaded.digest_intact);
        CHECK(loaded.cert.cell.model == model);
        CHECK(loaded.cert.model_file->path == model);
        const std::string text = io::read_file(dir.file(file));
        CHECK_THAT(text, Catch::Contains("\"" + model + "|512|"));  // its test ids
    }
}

TEST_CASE("a kind whose slot field no /slots answer has says so, not that the server was idle",
          "[adversarial][names]") {
    // ik_llama.cpp's /slots entries carry `state`; mainline llama-server's do not. One token
    // per answer leaves the streams nothing to judge, so the slots must speak.
    const auto run = run_kind({"ik_llama.cpp", "llama", "gguf"}, {}, {"--n-predict", "1"});
    INFO(run.result.out << run.result.err);
    check_status(run, "green_unverified");
    CHECK(says(run, "no /slots entry has the field 'state': is --server-kind right?"));
    CHECK_FALSE(says(run, "server peak busy slots 0"));
    CHECK(run.verify_exit != 1);  // the recorded evidence replays to the same reasons
}

}  // namespace bi
