// The demo cells earn their documented verdicts while other processes load every core: the
// co-residency evidence must hold up when the poller, the mock and the client are descheduled.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "built_paths.hpp"
#include "cli_args.hpp"
#include "io/cert_io.hpp"
#include "processes.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::operator+;
using testing::CoreLoad;
using testing::run_command;

namespace {

std::string cell_status(const testing::ScratchDir& dir) {
    std::string cert;
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        if (entry.path().extension() == ".json") cert = entry.path().string();
    if (cert.empty()) return "(no cert)";
    const auto loaded = io::read_cert(cert);
    const core::Json* status = loaded.document.find("status");
    return status && status->is_string() ? status->as_string() : std::string("(none)");
}

struct DemoCell {
    std::vector<std::string> args;
    int exit_code;
    std::string status;
};

}  // namespace

TEST_CASE("the spark profile earns GREEN on the mock when the model echoes the answer",
          "[cli][busy]") {
    testing::ScratchDir dir;
    const auto r = run_command(bi_run({"run-mock", "--profile", "spark", "--generator-param",
                                       "echo=1", "--out-dir", dir.path(), "--quiet"}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(cell_status(dir) == "green");
}

TEST_CASE("the demo cells keep their verdicts with every core loaded", "[cli][busy]") {
    const std::vector<DemoCell> cells{
        {{}, 0, "green"},
        {{"--divergence", "token"}, 3, "green_with_caveat"},
        {{"--batch-divergence"}, 3, "failed"},
        {{"--profile", "spark", "--generator-param", "echo=1"}, 0, "green"},
        {{"--profile", "spark", "--generator-param", "echo=1", "--parallel", "2"}, 0, "green"},
    };
    // Twice over, so that a verdict that holds only when the scheduler is kind shows.
    constexpr int kRounds = 2;
    const CoreLoad load;
    for (int round = 1; round <= kRounds; ++round)
        for (const auto& cell : cells) {
            testing::ScratchDir dir;
            const auto r = run_command(
                bi_run(std::vector<std::string>{"run-mock", "--out-dir", dir.path(), "--quiet"} +
                       cell.args));
            INFO("round " << round << ", "
                          << (cell.args.empty() ? std::string("run-mock") : cell.args.front())
                          << ": " << r.out << r.err);
            CHECK(r.exit_code == cell.exit_code);
            CHECK(cell_status(dir) == cell.status);
        }
}

TEST_CASE("a baseline recorded and checked with every core loaded is SAME for the same build",
          "[cli][busy][baseline]") {
    // Serial answers carry no timing evidence, but a loaded machine still stretches every
    // request: an honest build must not turn NOT COMPARABLE (timeouts under the floor) or
    // CHANGED there.
    testing::ScratchDir dir;
    const std::string model = dir.write("model.gguf", "a stand-in model file");
    const std::string baseline = dir.file("m.baseline.json");
    const std::vector<std::string> server{"--server-bin", BI_MOCK_SERVER_PATH, "--model", model,
                                          "--quiet"};
    const CoreLoad load;
    auto r = run_command(
        bi_run(std::vector<std::string>{"baseline", "record", "--model-alias", "m", "--ctx", "512",
                                        "--workset", BI_SMALL_WORKSET, "--endpoint", "completion",
                                        "--logprobs", "2", "--out", baseline} +
               server));
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    r = run_command(
        bi_run(std::vector<std::string>{"baseline", "check", "--baseline", baseline} + server));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("BASELINE SAME"));
}
