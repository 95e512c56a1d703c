// --cache-arm through bi-run against the mock: each prompt primed, served again from the prompt
// cache and A's answers resumed from it. SAME on the honest mock; CHANGED, exit 3, on one whose
// cached answers differ, with the ids, probes and first divergent tokens in the cert; the chat
// endpoint gets repeats only, and says why.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "core/cert.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::operator+;
using testing::run_command;

namespace {

struct CacheRun {
    testing::CommandResult result;
    std::optional<core::Cert> cert;
};

// One cell (N 2, one pass) on bi-mock-server launched as a live server with `flags`.
CacheRun mock_server_cell(const std::vector<std::string>& flags,
                          const std::vector<std::string>& extra = {}) {
    testing::ScratchDir dir;
    const auto model = dir.write("model.gguf", "a stand-in model file");
    auto argv = testing::mock_server_cell(model, dir.file("o"), BI_SMALL_WORKSET, 12);
    argv.push_back("--cache-arm");
    for (const auto& flag : flags) argv.push_back("--server-flag=" + flag);
    argv.insert(argv.end(), extra.begin(), extra.end());
    CacheRun run;
    run.result = run_command(bi_run(argv));
    const auto path = dir.file("o/m__ctx512__N2.json");
    if (std::filesystem::exists(path)) run.cert = io::read_cert(path).cert;
    return run;
}

}  // namespace

TEST_CASE("cache arm on the honest mock: every warm answer is A's", "[cli][cache]") {
    testing::ScratchDir dir;
    const auto r = run_command(bi_run({"run-mock", "--out-dir", dir.path(), "--passes", "1",
                                       "--endpoint", "completion", "--cache-arm", "--quiet"}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    const auto loaded = io::read_cert(dir.file("bi-mock__ctx2048__N4.json"));
    REQUIRE(loaded.cert.cache_check);
    const auto& check = *loaded.cert.cache_check;
    CHECK(check.status == core::BaselineStatus::Same);
    CHECK(check.n_served == check.n_ids);
    CHECK(check.n_cuts > 0);
    CHECK(check.cuts_note.empty());
    CHECK(check.changed_ids.empty());
}

TEST_CASE("cache arm on a mock whose cached answers differ: CHANGED, exit 3, named",
          "[cli][cache]") {
    auto run = mock_server_cell({"--cache-changes"}, {"--endpoint", "completion"});
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 3);  // (the fake's test shows a CHANGED alone exits 3)
    REQUIRE(run.cert);
    REQUIRE(run.cert->cache_check);
    const auto& check = *run.cert->cache_check;
    CHECK(check.status == core::BaselineStatus::Changed);
    CHECK_FALSE(check.changed_ids.empty());
    REQUIRE_FALSE(check.changes.empty());
    CHECK(check.changes.front().invariant);
    CHECK(check.changes.front().first_token);
    bool cut_changed = false;
    for (const auto& change : check.changes) cut_changed |= change.cut_at > 0;
    CHECK(cut_changed);
    // The cold arms never asked for the cache: the verdict is about batching alone.
    REQUIRE(run.cert->gates.cold_cache);
    CHECK(run.cert->gates.cold_cache->ok());
    CHECK(run.cert->verdict.status == core::Status::Green);
    CHECK_THAT(run.result.out + run.result.err, Catch::Contains("cache check: CHANGED"));
}

TEST_CASE("cache arm through the chat endpoint: repeats only, and it says why", "[cli][cache]") {
    auto run = mock_server_cell({});
    INFO(run.result.out << run.result.err);
    CHECK(run.result.exit_code == 3);  // the mock's GREEN is no promotable one
    REQUIRE(run.cert);
    REQUIRE(run.cert->cache_check);
    const auto& check = *run.cert->cache_check;
    CHECK(check.status == core::BaselineStatus::Same);
    CHECK(check.n_cuts == 0);
    CHECK_THAT(check.cuts_note, Catch::Contains("the chat endpoint takes no token ids"));
}

TEST_CASE("cache arm in a sweep: run once per ctx, every N's cert and row carry it",
          "[cli][cache]") {
    testing::ScratchDir dir;
    const auto model = dir.write("model.gguf", "a stand-in model file");
    const auto r = run_command(bi_run({"sweep",
                                       "--server-bin",
                                       BI_MOCK_SERVER_PATH,
                                       "--model",
                                       model,
                                       "--model-alias",
                                       "m",
                                       "--ctx",
                                       "512",
                                       "--parallel",
                                       "2,3",
                                       "--passes",
                                       "1",
                                       "--n-predict",
                                       "8",
                                       "--workset",
                                       BI_SMALL_WORKSET,
                                       "--cache-arm",
                                       "--out-dir",
                                       dir.file("o")}));
    INFO(r.out << r.err);
    CHECK_THAT(r.out + r.err, Catch::Contains("promotable speedup  cache"));
    // One cache arm for the ctx, shared by both N like A.
    std::size_t arms = 0;
    for (std::size_t at = (r.out + r.err).find("launching the 1-slot server with its prompt cache");
         at != std::string::npos;
         at = (r.out + r.err).find("launching the 1-slot server with its prompt cache", at + 1))
        ++arms;
    CHECK(arms == 1);
    for (const char* name : {"o/m__ctx512__N2.json", "o/m__ctx512__N3.json"}) {
        const auto loaded = io::read_cert(dir.file(name));
        REQUIRE(loaded.cert.cache_check);
        CHECK(loaded.cert.cache_check->status == core::BaselineStatus::Same);
    }
}
