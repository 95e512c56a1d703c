// Live tests against a real llama-server named by BI_LLAMA_SERVER, with a model synthesised on
// the spot. Without the variable the whole program reports "skipped" (exit 77) to CTest.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "built_paths.hpp"
#include "core/cert.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

std::string server_bin() {
    return std::getenv("BI_LLAMA_SERVER");
}

void check_live_evidence(const core::Json& cert) {
    CHECK(cert.find("source")->as_string() == "live");
    CHECK(cert.find("overlap_ok")->as_bool());
    CHECK(cert.find("overlap")->find("peak_busy_slots")->as_int() >= 2);
    CHECK(cert.find("completion_floor")->find("ok")->as_bool());
    CHECK(cert.find("cobatch_coverage")->find("ok")->as_bool());
    CHECK(cert.find("serial_self_check")->find("passed")->as_bool());
}

}  // namespace

TEST_CASE("live: one cell against the real server with a synthesised model", "[live]") {
    testing::ScratchDir dir;
    const auto model = dir.file("tiny.gguf");
    auto synth = run_command({BI_RUN_PATH, "synth-model", "--out", model, "--seed", "7"});
    REQUIRE(synth.exit_code == 0);
    auto r =
        run_command({BI_RUN_PATH,  "run-live",    "--server-bin", server_bin(), "--model",
                     model,        "--out-dir",   dir.path(),     "--workset",  BI_SMALL_WORKSET,
                     "--ctx",      "512",         "--parallel",   "4",          "--passes",
                     "2",          "--n-predict", "16",           "--logprobs", "1",
                     "--endpoint", "completion",  "--quiet"});
    INFO(r.err);
    REQUIRE((r.exit_code == 0 || r.exit_code == 3));
    auto loaded = io::read_cert(dir.file(core::cert_file_name("tiny", 512, 4)));
    REQUIRE(loaded.digest_intact);
    check_live_evidence(loaded.document);
    CHECK(loaded.document.find("server")->find("N")->find("binary_sha256")->as_string().size() ==
          64);
}

TEST_CASE("live: selftest reports a truthful verdict", "[live]") {
    testing::ScratchDir dir;
    auto r = run_command({BI_RUN_PATH, "selftest", "--server-bin", server_bin(), "--out-dir",
                          dir.path(), "--passes", "2", "--quiet", "--json"});
    INFO(r.err);
    REQUIRE((r.exit_code == 0 || r.exit_code == 3));
    CHECK_THAT(r.out, Catch::Contains("\"source\":\"live\""));
    auto loaded = io::read_cert(dir.file(core::cert_file_name("bi-selftest-f32", 1024, 4)));
    check_live_evidence(loaded.document);
}

// The cache arm on a cell where the warm prompt cache changes an answer (docs/run-live.md "A
// cache arm that finds a change"): an 8-layer f16 model on two threads, whose repeats are served
// from the cache with the prompt's last token evaluated alone, and answer otherwise.
TEST_CASE("live: the cache arm finds the answer the warm cache changes", "[live][cache]") {
    testing::ScratchDir dir;
    const auto model = dir.file("big.gguf");
    auto synth =
        run_command({BI_RUN_PATH, "synth-model", "--out", model, "--layers", "8", "--dtype", "f16",
                     "--embd", "1024", "--heads", "8", "--kv-heads", "8", "--ff", "2816"});
    REQUIRE(synth.exit_code == 0);
    auto r = run_command({BI_RUN_PATH,   "run-live",   "--server-bin",     server_bin(),
                          "--model",     model,        "--out-dir",        dir.path(),
                          "--ctx",       "1024",       "--parallel",       "2",
                          "--passes",    "1",          "--n-predict",      "32",
                          "--endpoint",  "completion", "--server-flag=-t", "--server-flag=2",
                          "--cache-arm", "--quiet"});
    INFO(r.err);
    CHECK(r.exit_code == 3);
    auto loaded = io::read_cert(dir.file(core::cert_file_name("big", 1024, 2)));
    REQUIRE(loaded.digest_intact);
    REQUIRE(loaded.cert.cache_check);
    const auto& check = *loaded.cert.cache_check;
    CHECK(check.status == core::BaselineStatus::Changed);
    CHECK(!check.changed_ids.empty());
    CHECK(check.n_served == check.n_ids);  // the witness shows every repeat served
    CHECK(check.n_cuts > 0);
    // The cold arms stayed cold: the batch verdict is about batching alone.
    REQUIRE(loaded.cert.gates.cold_cache);
    CHECK(loaded.cert.gates.cold_cache->ok());
}

int main(int argc, char** argv) {
    const char* server = std::getenv("BI_LLAMA_SERVER");
    if (!server || !*server) {
        std::printf(
            "skipped: set BI_LLAMA_SERVER to a llama-server binary to run the live tests\n");
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
