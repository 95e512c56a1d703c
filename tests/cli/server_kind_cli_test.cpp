// --server-kind: the kind a run launches decides its argv (shown by --dry-run with the kind and
// where it came from), the flags --server-flag may not give, and an unknown kind is refused
// with the list of kinds.
#include <catch2/catch.hpp>

#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

testing::CommandResult dry_run(const testing::ScratchDir& dir,
                               const std::vector<std::string>& extra) {
    io::write_file_atomically(dir.file("model.gguf"), "not really a model");
    std::vector<std::string> argv{BI_RUN_PATH,
                                  "run-live",
                                  "--dry-run",
                                  "--server-bin",
                                  BI_MOCK_SERVER_PATH,
                                  "--model",
                                  dir.file("model.gguf"),
                                  "--out-dir",
                                  dir.file("out"),
                                  "--parallel",
                                  "2",
                                  "--ctx",
                                  "512"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
}

}  // namespace

TEST_CASE("run-live --dry-run names the server kind and launches with its argv",
          "[cli][server-kind]") {
    testing::ScratchDir dir;
    auto r = dry_run(dir, {});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    llama-server (built-in:llama-server.toml)"));
    CHECK_THAT(r.out, Catch::Contains("--parallel 2 --metrics --slots\n"));

    r = dry_run(dir, {"--server-kind", "ik_llama.cpp"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    ik_llama.cpp (built-in:ik_llama.cpp.toml)"));
    CHECK_THAT(r.out, Catch::Contains("-c 1024 --parallel 2 --metrics --cache-ram 0\n"));
    CHECK_THAT(r.out, !Catch::Contains("--slots"));
}

TEST_CASE("run-live refuses an unknown kind with the list, and a flag the kind manages",
          "[cli][server-kind]") {
    testing::ScratchDir dir;
    auto r = dry_run(dir, {"--server-kind", "vllm-nightly"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--server-kind vllm-nightly: no such server kind") &&
                          Catch::Contains("ik_llama.cpp, llama-server"));
    CHECK(r.out.empty());

    r = dry_run(dir, {"--server-kind", "ik_llama.cpp", "--server-flag=--cache-ram=4096"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("bi-run sets --cache-ram itself") &&
                          Catch::Contains("ik_llama.cpp"));

    r = dry_run(dir, {"--server-kind", dir.write("bad.toml", "schema = \"bi-server-kind/2\"\n")});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("bad.toml: schema 'bi-server-kind/2'"));
}

TEST_CASE("a user's kind file is found by name in --server-kind-dir, without a rebuild",
          "[cli][server-kind]") {
    testing::ScratchDir dir;
    dir.write("my-llama.toml", R"(schema = "bi-server-kind/1"
name = "my-llama"
[launch]
argv = ["--model", "{model}", "--port", "{port}", "--host", "{host}", "-np", "{n}",
        "--ctx-size", "{ctx_total}", "--metrics"]
)");
    auto r = dry_run(dir, {"--server-kind", "my-llama", "--server-kind-dir", dir.path()});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    my-llama (" + dir.file("my-llama.toml")));
    CHECK_THAT(r.out, Catch::Contains("-np 2 --ctx-size 1024 --metrics\n"));
}
