// A server kind written by the user, in a file bi-run has never seen, launches a real server
// process (the llama-server work-alike) and earns its verdict like a shipped kind: the honest
// fake reaches a promotable GREEN, and one that diverges under co-batching a RED.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/json.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

// The fake takes llama-server's flags; this kind spells them its own way.
const char* const kUserKind = R"(schema = "bi-server-kind/1"
name = "my-llama"
description = "a work-alike launched through a user's kind file"
[launch]
argv = ["--model", "{model}", "--host", "{host}", "--port", "{port}", "--ctx-size", "{ctx_total}",
        "-np", "{n}", "--metrics", "--slots", "--fake-tick-ms=3"]
managed_flags = ["--model", "--host", "--port", "--ctx-size", "-np", "--metrics", "--slots"]
)";

struct KindRun {
    testing::CommandResult result;
    std::string status;
};

KindRun run_kind(const std::vector<std::string>& fake) {
    testing::ScratchDir dir;
    const std::string model = dir.write("model.gguf", "not really a model");
    dir.write("my-llama.toml", kUserKind);
    std::vector<std::string> argv{BI_RUN_PATH,
                                  "run-live",
                                  "--server-kind",
                                  "my-llama",
                                  "--server-kind-dir",
                                  dir.path(),
                                  "--server-bin",
                                  BI_FAKE_SERVER,
                                  "--model",
                                  model,
                                  "--model-alias",
                                  "m",
                                  "--out-dir",
                                  dir.file("o"),
                                  "--workset",
                                  BI_SMALL_WORKSET,
                                  "--ctx",
                                  "512",
                                  "--parallel",
                                  "4",
                                  "--passes",
                                  "2",
                                  "--n-predict",
                                  "16",
                                  "--quiet"};
    for (const auto& token : fake) argv.push_back("--server-flag=" + token);
    KindRun run;
    run.result = testing::run_command(argv);
    try {
        const auto loaded = io::read_cert(dir.file("o/m__ctx512__N4.json"));
        if (loaded.digest_intact && loaded.shape_problem.empty())
            if (const core::Json* s = loaded.document.find("status")) run.status = s->as_string();
    } catch (const std::exception&) {
        // no cert: status stays empty
    }
    return run;
}

}  // namespace

TEST_CASE("a user's kind file: the honest work-alike is a promotable GREEN", "[adversarial]") {
    const auto run = run_kind({});
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 0);
    CHECK(run.status == "green");
}

TEST_CASE("a user's kind file: a work-alike that diverges when co-batched is RED",
          "[adversarial]") {
    const auto run = run_kind({"--fake-diverge-at=2"});
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 3);
    CHECK(run.status == "failed");
}
