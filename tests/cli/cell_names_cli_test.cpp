// What names a cell and labels its cache, as run-live --dry-run and plan show them: a store,
// directory or GGUF name kept whole in the cert's file name, a KV label that a server flag says
// or "server-default", no cell at N = 1, and a plan that reads the default models.toml wherever
// its shard runs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli_args.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::run_command;
using testing::operator+;

namespace {

// run-live --dry-run of one N=2 cell at ctx 512 through `kind` serving `model`.
testing::CommandResult dry_run(const testing::ScratchDir& dir, const std::string& kind,
                               const std::string& model,
                               const std::vector<std::string>& extra = {}) {
    return run_command(bi_run({"run-live", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH,
                               "--server-kind", kind, "--model", model, "--out-dir",
                               dir.file("out"), "--parallel", "2", "--ctx", "512"}) +
                       extra);
}

// The cert file the dry run names, from its "cert" line.
std::string cert_line(const testing::CommandResult& r) {
    const auto at = r.out.find("cert      ");
    if (at == std::string::npos) return "";
    const auto end = r.out.find('\n', at);
    return r.out.substr(at + 10, end - at - 10);
}

// `args` run by bi-run with `cwd` as its working directory.
testing::CommandResult run_in(const std::string& cwd, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/bin/sh", "-c", "cd \"$1\" && shift && exec \"$@\"",
                                  "sh",      cwd,  testing::built_file("bi-run")};
    return run_command(argv + args);
}

}  // namespace

TEST_CASE("a store or directory model keeps its whole name in the cert's file name",
          "[cli][run-live][names]") {
    testing::ScratchDir dir;
    const auto a = dry_run(dir, "ollama", "llama3.1:8b");
    const auto b = dry_run(dir, "ollama", "llama3.2:1b");
    INFO(a.err << b.err);
    REQUIRE(a.exit_code == 0);
    REQUIRE(b.exit_code == 0);
    CHECK(cert_line(a) == dir.file("out") + "/llama3.1~3A8b__ctx512__N2.json");
    CHECK(cert_line(b) == dir.file("out") + "/llama3.2~3A1b__ctx512__N2.json");

    const auto tagged = dry_run(dir, "ollama", "mistral:latest");
    INFO(tagged.err);
    CHECK(tagged.exit_code == 0);
    CHECK(cert_line(tagged) == dir.file("out") + "/mistral~3Alatest__ctx512__N2.json");

    std::filesystem::create_directories(dir.file("Qwen2.5-7B-Instruct"));
    const auto directory = dry_run(dir, "vllm", dir.file("Qwen2.5-7B-Instruct/"));
    INFO(directory.err);
    CHECK(directory.exit_code == 0);
    CHECK(cert_line(directory) == dir.file("out") + "/Qwen2.5-7B-Instruct__ctx512__N2.json");

    // A GGUF file loses only its ".gguf"; a plain name maps to the same file as before.
    io::write_file_atomically(dir.file("tiny-3.1.Q4_K_M.gguf"), "not really a model");
    const auto gguf = dry_run(dir, "llama-server", dir.file("tiny-3.1.Q4_K_M.gguf"));
    INFO(gguf.err);
    CHECK(cert_line(gguf) == dir.file("out") + "/tiny-3.1.Q4_K_M__ctx512__N2.json");
    const auto plain = dry_run(dir, "ollama", "x", {"--model-alias", "org_model-7B"});
    CHECK(cert_line(plain) == dir.file("out") + "/org_model-7B__ctx512__N2.json");
    // A '/' is written so that it cannot collide with a name holding '_' there.
    const auto slash = dry_run(dir, "ollama", "x", {"--model-alias", "org/model-7B"});
    CHECK(cert_line(slash) == dir.file("out") + "/org~2Fmodel-7B__ctx512__N2.json");
}

TEST_CASE("a model name that cannot name a cell is refused naming the option it came from",
          "[cli][run-live][names]") {
    testing::ScratchDir dir;
    auto r = dry_run(dir, "ollama", "two words");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-live: --model: the model's name 'two words' "
                                        "is not a plain model name") &&
                          Catch::Contains("name the cell with --model-alias"));
    CHECK(r.out.empty());
    r = dry_run(dir, "ollama", "x", {"--model-alias", "two words"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-live: --model-alias 'two words': not a plain"));
}

TEST_CASE("the KV label of a kind that is not GGUF comes from its own flag, or is the server's",
          "[cli][run-live][kv]") {
    testing::ScratchDir dir;
    const std::string model = dir.file("weights");
    std::filesystem::create_directories(model);
    auto r = dry_run(dir, "vllm", model, {"--server-flag=--kv-cache-dtype", "--server-flag=fp8"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("KV cache       fp8 (the server's cache-type flags)\n"));

    r = dry_run(dir, "vllm", model, {"--server-flag=--kv-cache-dtype=fp8", "--kv-label", "q8_0"});
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "bi-run run-live: --kv-label q8_0 contradicts the server's KV flag, which "
          "gives fp8\n");

    // A label with no flag to say it is passed on as the kind's flag.
    r = dry_run(dir, "vllm", model, {"--kv-label", "fp8_e5m2"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("KV cache       fp8_e5m2 (the server's cache-type flags)"));
    CHECK_THAT(r.out, Catch::Contains("--no-enable-prefix-caching --kv-cache-dtype fp8_e5m2\n"));

    // Nothing sets it: the server's default, not an invented f16.
    r = dry_run(dir, "vllm", model);
    CHECK_THAT(r.out, Catch::Contains("KV cache       server-default (as the server defaults"));
    r = dry_run(dir, "ollama", "llama3.1:8b");
    CHECK_THAT(r.out, Catch::Contains("KV cache       server-default (as the server defaults"));
    // That label given back (a baseline's) asks for nothing and passes no flag.
    r = dry_run(dir, "vllm", model, {"--kv-label", "server-default"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("KV cache       server-default (as the server defaults"));
    CHECK_THAT(r.out, !Catch::Contains("--kv-cache-dtype"));
    // A kind without a KV flag cannot be given a label nothing would set.
    r = dry_run(dir, "ollama", "llama3.1:8b", {"--kv-label", "q8_0"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-live: --kv-label q8_0: server kind 'ollama' "
                                        "has no KV cache flag"));
}

TEST_CASE("no cell is measured at N = 1, dry run or not", "[cli][run-live][parallel]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("m.gguf"), "not really a model");
    for (const auto& command :
         {std::vector<std::string>{"run-live", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH,
                                   "--model", dir.file("m.gguf")},
          {"run-mock"},
          {"sweep", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH, "--model", dir.file("m.gguf"),
           "--ctx", "512"}}) {
        INFO(command.front());
        const auto r = run_command(
            bi_run(command) + std::vector<std::string>{"--parallel",
                                                       command.front() == "sweep" ? "1,2" : "1",
                                                       "--out-dir", dir.file("out")});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(": --parallel 1: no cell can be measured at N = 1"));
        CHECK(r.out.empty());
    }
    CHECK_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST_CASE("a plan made with the default models.toml runs from another directory",
          "[cli][plan][models]") {
    testing::ScratchDir dir;
    std::filesystem::create_directories(dir.file("home"));
    std::filesystem::create_directories(dir.file("elsewhere"));
    io::write_file_atomically(dir.file("home/m.gguf"), "not really a model");
    io::write_file_atomically(dir.file("home/models.toml"),
                              "[[models]]\nalias = \"m\"\ngguf = \"" + dir.file("home/m.gguf") +
                                  "\"\nserver_bin = \"" + BI_MOCK_SERVER_PATH + "\"\n");
    auto r = run_in(dir.file("home"), {"plan", "--profile", "m", "--ctx", "512", "--parallel", "2",
                                       "--passes", "1", "--n-predict", "4", "--out-dir",
                                       dir.file("certs"), "--output", dir.file("plan.json")});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(testing::read_text(dir.file("plan.json")),
               Catch::Contains("\"models_toml\": \"" + dir.file("home/models.toml") + "\""));
    r = run_in(dir.file("elsewhere"),
               {"sweep", "--plan", dir.file("plan.json"), "--shard", "0/1", "--quiet"});
    INFO(r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 3));
    CHECK_THAT(r.err, !Catch::Contains("not found"));
    CHECK(std::filesystem::exists(dir.file("certs/m__ctx512__N2.json")));
}

TEST_CASE("two models whose names differ only in a dot keep two anchors in the HTML report",
          "[cli][report][names]") {
    testing::ScratchDir dir;
    for (const char* alias : {"tiny.v2", "tiny_v2"}) {
        const auto r = run_command(bi_run({"run-mock", "--out-dir", dir.file("certs"),
                                           "--model-alias", alias, "--passes", "1", "--quiet"}));
        INFO(alias << ": " << r.err);
        REQUIRE((r.exit_code == 0 || r.exit_code == 3));
    }
    REQUIRE(std::filesystem::exists(dir.file("certs/tiny.v2__ctx2048__N4.json")));
    REQUIRE(std::filesystem::exists(dir.file("certs/tiny_v2__ctx2048__N4.json")));
    const auto r = run_command(bi_run({"report", "--html", dir.file("r.html"), dir.file("certs")}));
    INFO(r.err);
    const std::string html = testing::read_text(dir.file("r.html"));
    CHECK_THAT(html, Catch::Contains("id=\"cell-tiny.v2__ctx2048__N4\"") &&
                         Catch::Contains("id=\"cell-tiny_v2__ctx2048__N4\""));
}
