// The upstream Python tool's command lines as its users type them (its own options, its profile
// form, its switches), and the rough edges around them: errors that name what was typed, help
// that lists only what a command takes, output files whose directory does not exist yet.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli_args.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::run_command;
using testing::operator+;
namespace fs = std::filesystem;

namespace {

// run-live --dry-run against the bundled mock server, on a model file that is not a GGUF.
std::vector<std::string> dry_run(const testing::ScratchDir& dir) {
    if (!fs::exists(dir.file("m.gguf")))
        io::write_file_atomically(dir.file("m.gguf"), "not really a model");
    return bi_run({"run-live", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH, "--model",
                   dir.file("m.gguf"), "--out-dir", dir.file("out")});
}

// `args` run with NAME=VALUE entries added to the environment.
testing::CommandResult with_env(const std::vector<std::string>& env,
                                const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    for (const auto& arg : bi_run(args)) argv.push_back(arg);
    return run_command(argv);
}

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().string());
    return names;
}

bool one_line(const std::string& text) {
    return !text.empty() && text.find('\n') == text.size() - 1;
}

}  // namespace

TEST_CASE("an option given by its alias is named as it was typed", "[cli][aliases][errors]") {
    testing::ScratchDir dir;
    auto r = run_command(bi_run({"run-mock", "--gate-passes", "0", "--out-dir", dir.path()}));
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bi-run run-mock: --gate-passes must be at least 1\n");
    r = run_command(bi_run({"run-mock", "--gate-passes", "abc", "--out-dir", dir.path()}));
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-mock: --gate-passes: 'abc' is not an integer"));
    r = run_command(bi_run({"selftest", "--server-bin", BI_MOCK_SERVER_PATH, "--gate-passes", "0",
                            "--out-dir", dir.path()}));
    CHECK_THAT(r.err, Catch::Contains("--gate-passes must be at least 1"));
    r = run_command(dry_run(dir) +
                    std::vector<std::string>{"--experiment-port", "7", "--untouchable-port", "7"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--experiment-port 7 is reserved"));
    r = run_command(dry_run(dir) + std::vector<std::string>{"--kv", "q9_9"});
    CHECK(one_line(r.err));
    CHECK_THAT(r.err, Catch::Contains("--kv ") && !Catch::Contains("--kv-label"));
    // Typed by its own name, the option keeps it; so do the names it only contains.
    r = run_command(bi_run({"run-mock", "--passes", "0", "--out-dir", dir.path()}));
    CHECK(r.err == "bi-run run-mock: --passes must be at least 1\n");
    r = run_command(bi_run({"run-mock", "--gate-passes", "2", "--target-rate", "0.1",
                            "--max-passes", "0", "--out-dir", dir.path()}));
    CHECK_THAT(r.err, Catch::Contains("--max-passes") || Catch::Contains("--gate-passes"));
    CHECK_THAT(r.err, !Catch::Contains("--max-gate-passes"));
}

TEST_CASE("upstream cert-source is taken when it agrees with what runs, refused otherwise",
          "[cli][aliases][upstream]") {
    testing::ScratchDir dir;
    auto r = run_command(bi_run(
        {"run-mock", "--cert-source", "mock", "--out-dir", dir.file("mock"), "--quiet", "--json"}));
    INFO(r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 3));  // a verdict (a loaded machine may say 3)
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-mock: note: --cert-source mock: taken"));
    CHECK(one_line(r.err));
    CHECK_THAT(r.out, Catch::Contains("\"source\":\"mock\""));

    r = run_command(bi_run({"run-mock", "--cert-source=live", "--out-dir", dir.file("refused")}));
    CHECK(r.exit_code == 2);
    CHECK(one_line(r.err));
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-mock: --cert-source live: run-mock's cert is "
                                        "always source mock"));
    CHECK_FALSE(fs::exists(dir.file("refused")));

    r = run_command(dry_run(dir) + std::vector<std::string>{"--cert-source", "live"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("bi-run run-live: note: --cert-source live: taken; bi-run "
                                      "decides the source itself"));
    for (const std::string source : {"mock", "selftest"}) {
        r = run_command(dry_run(dir) + std::vector<std::string>{"--cert-source", source});
        CHECK(r.exit_code == 2);
        CHECK(one_line(r.err));
        CHECK_THAT(r.err, Catch::Contains("--cert-source " + source +
                                          ": run-live and sweep "
                                          "certify a real server, so the cert's source is live"));
    }
    r = run_command(dry_run(dir) + std::vector<std::string>{"--cert-source"});
    CHECK(r.err == "bi-run run-live: --cert-source needs a value\n");
}

TEST_CASE("upstream's run-live options: taken with their meaning or refused with what to use",
          "[cli][aliases][upstream]") {
    testing::ScratchDir dir;
    // --baseline-port: a server already running that is never touched.
    auto r = run_command(dry_run(dir) + std::vector<std::string>{"--baseline-port", "8080"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("reserved ports 8080"));
    r = run_command(dry_run(dir) +
                    std::vector<std::string>{"--baseline-port", "7", "--experiment-port", "7"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--experiment-port 7 is reserved"));

    const std::vector<std::pair<std::vector<std::string>, std::string>> taken = {
        {{"--invariant-fields", "score,passed,expected_answer,prompt_tokens_measured,failure_mode"},
         "--invariant-fields score,passed,expected_answer,prompt_tokens_measured,failure_mode: "
         "taken"},
        {{"--position-strategy", "fixed"}, "--position-strategy fixed: taken"},
        {{"--empty-retries=0"}, "--empty-retries 0: taken; bi-run never retries a request"},
    };
    for (const auto& [options, note] : taken) {
        r = run_command(dry_run(dir) + options);
        INFO(options.front() << ": " << r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.err, Catch::Contains("bi-run run-live: note: " + note));
    }
    const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
        {{"--invariant-fields", "score,content"},
         "--invariant-fields score,content: bi-run compares exactly score, passed"},
        {{"--position-strategy", "adaptive"}, "(--workset FILE)"},
        {{"--empty-retries", "2"}, "--empty-retries 2: bi-run never retries a request"},
        {{"--swa-window", "4096"}, "--swa-window 4096: bi-run has no sliding-window-aware"},
        {{"--gguf-gb", "4.5"}, "use bi-run plan-n --gguf-gb GB --n-layer L"},
    };
    for (const auto& [options, message] : refused) {
        r = run_command(dry_run(dir) + options);
        INFO(options.front() << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(one_line(r.err));
        CHECK_THAT(r.err, Catch::StartsWith("bi-run run-live: ") && Catch::Contains(message));
    }
    r = run_command(
        bi_run({"sweep", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH, "--model",
                dir.file("m.gguf"), "--out-dir", dir.file("out"), "--swa-window", "0"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("bi-run sweep: --swa-window 0: "));
}

TEST_CASE("max-footprint-gb 0 is no cap as upstream reads it, and MemAvailable still applies",
          "[cli][guard][upstream]") {
    testing::ScratchDir dir;
    const auto model = dir.file("synth.gguf");
    REQUIRE(run_command(bi_run({"synth-model", "--out", model, "--vocab-words", "50"})).exit_code ==
            0);
    const auto live = bi_run({"run-live", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH,
                              "--model", model, "--out-dir", dir.file("out")});
    // 65536 x 4 tokens of f16 KV: about 1 GiB, over a 0.5 GiB cap but under no cap.
    const std::vector<std::string> cell{"--ctx", "65536", "--parallel", "4"};
    auto r = run_command(live + cell + std::vector<std::string>{"--max-footprint-gb", "0.5"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("exceeds --max-footprint-gb"));
    r = run_command(live + cell + std::vector<std::string>{"--max-footprint-gb", "0"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // 16M x 4 tokens: 256 GiB of KV cache, more than this machine has available.
    r = run_command(live + std::vector<std::string>{"--ctx", "16777216", "--parallel", "4",
                                                    "--max-footprint-gb", "0"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("exceeds MemAvailable"));
    r = run_command(live + cell + std::vector<std::string>{"--max-footprint-gb", "0.0001"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--max-footprint-gb must be 0 (no cap) or between 0.001"));

    r = run_command(bi_run(
        {"plan-n", "--model", model, "--ctx", "65536", "--max-n", "4", "--max-footprint-gb", "0"}));
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("largest N that fits: 4"));
    const auto help = run_command(bi_run({"run-live", "--help"}));
    CHECK_THAT(help.out, Catch::Contains("0 = no cap"));
}

TEST_CASE("upstream's profile form: a measurement profile and a models.toml alias",
          "[cli][models][upstream]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("dense.gguf"), "not really a model");
    io::write_file_atomically(dir.file("models.toml"),
                              "[[models]]\nalias = \"demo-dense\"\ngguf = "
                              "\"{MODELS_DIR}/dense.gguf\"\nserver_bin = \"" +
                                  std::string(BI_MOCK_SERVER_PATH) + "\"\nkv = \"q8_0\"\n");
    const auto form = [&](const std::vector<std::string>& extra) {
        return bi_run({"run-live", "--profile", "spark", "--models-dir", dir.path(),
                       "--models-toml", dir.file("models.toml"), "--out-dir", dir.file("out"),
                       "--ctx", "1024", "--passes", "1", "--n-predict", "4", "--quiet"}) +
               extra;
    };
    auto r = run_command(form({"--model-alias", "demo-dense"}));
    INFO(r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 3));  // a verdict, on the mock: never promotable
    const auto cert =
        io::parse_json(io::read_file(dir.file("out/demo-dense__ctx1024__N4.json")), "cert");
    CHECK(cert.string_or("model", "") == "demo-dense");
    CHECK(cert.string_or("kv_label", "") == "q8_0");  // the entry's
    CHECK(cert.find("run")->string_or("profile", "") == "spark");
    CHECK(cert.find("run")->string_or("scorer", "") == "spark");
    CHECK(cert.find("model_file")->string_or("path", "") == dir.file("dense.gguf"));

    // The wrong forms name the one that works.
    r = run_command(form({"--dry-run"}));
    CHECK(r.exit_code == 2);
    CHECK(one_line(r.err));
    CHECK_THAT(r.err,
               Catch::Contains("name the model with --model-alias ALIAS (an alias in " +
                               dir.file("models.toml") + "); or give --server-bin and --model"));
    r = run_command(form({"--dry-run", "--model-alias", "demo-moe"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--model-alias demo-moe is not an alias in " +
                                      dir.file("models.toml") + " (aliases: demo-dense)"));
}

TEST_CASE("upstream's ctx-sweep switch sweeps --ctx, and the list form still works",
          "[cli][aliases][upstream]") {
    testing::ScratchDir dir;
    for (const auto& options : {std::vector<std::string>{"--ctx", "512,1024", "--ctx-sweep"},
                                std::vector<std::string>{"--ctx-sweep", "--ctx", "512,1024"},
                                std::vector<std::string>{"--ctx-sweep", "512,1024"},
                                std::vector<std::string>{"--ctx-sweep=512,1024"}}) {
        const auto r = run_command(dry_run(dir) + options);
        INFO(options.front() << " " << options.back() << ": " << r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("ctx 512:") && Catch::Contains("ctx 1024:"));
    }
    auto r =
        run_command(dry_run(dir) + std::vector<std::string>{"--ctx", "512", "--ctx-sweep", "1024"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--ctx-sweep is another name for --ctx"));

    // A real run: one cert per ctx and the per-ctx table, as upstream's grid.
    r = run_command(
        bi_run({"run-live", "--server-bin", BI_MOCK_SERVER_PATH, "--model", dir.file("m.gguf"),
                "--out-dir", dir.file("certs"), "--ctx", "512,1024", "--ctx-sweep", "--passes", "1",
                "--n-predict", "4", "--quiet", "--model-alias", "m"}));
    INFO(r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 3));
    CHECK(fs::exists(dir.file("certs/m__ctx512__N4.json")));
    CHECK(fs::exists(dir.file("certs/m__ctx1024__N4.json")));
}

TEST_CASE("run-mock without --out-dir writes into a new temporary directory and names it",
          "[cli][upstream]") {
    testing::ScratchDir dir;
    fs::create_directories(dir.file("tmp"));
    auto r = with_env({"TMPDIR=" + dir.file("tmp")}, {"run-mock", "--quiet"});
    INFO(r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 3));
    const auto made = entries(dir.file("tmp"));
    REQUIRE(made.size() == 1);
    CHECK_THAT(made.front(), Catch::StartsWith(dir.file("tmp/bi-mock-")));
    CHECK(r.err == "bi-run run-mock: note: no --out-dir: writing into " + made.front() + "\n");
    CHECK(fs::exists(made.front() + "/bi-mock__ctx2048__N4.json"));
    CHECK_THAT(r.out, Catch::Contains(made.front() + "/bi-mock__ctx2048__N4.json"));

    // Refused, or ended before a verdict: nothing is left behind.
    fs::create_directories(dir.file("tmp2"));
    for (const auto& args :
         {std::vector<std::string>{"run-mock", "--passes", "0"},
          std::vector<std::string>{"run-mock", "--crash-after", "1", "--quiet"}}) {
        r = with_env({"TMPDIR=" + dir.file("tmp2")}, args);
        INFO(args.back() << ": " << r.err);
        CHECK((r.exit_code == 1 || r.exit_code == 2));
        CHECK(entries(dir.file("tmp2")).empty());
    }
}

TEST_CASE("plan's help lists only what plan takes, and what it refuses is refused by name",
          "[cli][help][plan]") {
    testing::ScratchDir dir;
    const auto help = run_command(bi_run({"plan", "--help"}));
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, !Catch::Contains("--dry-run") && !Catch::Contains("--port arg"));
    CHECK_THAT(help.out, Catch::Contains("--reserved-port"));
    const std::vector<std::string> plan = {"plan",         "--server-bin",     BI_MOCK_SERVER_PATH,
                                           "--model",      dir.file("m.gguf"), "--out-dir",
                                           dir.file("out")};
    io::write_file_atomically(dir.file("m.gguf"), "not really a model");
    for (const auto& [option, message] :
         {std::pair<std::vector<std::string>, std::string>{{"--dry-run"},
                                                           "--dry-run: bi-run plan launches "
                                                           "nothing anyway"},
          {{"--port", "8080"}, "--port: the tasks of a plan may share a node"},
          {{"--experiment-port", "8080"}, "--experiment-port: the tasks of a plan may share"}}) {
        const auto r = run_command(bi_run(plan) + option);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::StartsWith("bi-run plan: " + message));
        CHECK(one_line(r.err));
    }
    // The upstream names sweep takes, plan takes too.
    const auto r = run_command(bi_run(plan) + std::vector<std::string>{"--gate-passes", "2"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("\"passes\": 2"));
}

TEST_CASE("report-html may go into the out-dir the run creates", "[cli][report]") {
    testing::ScratchDir dir;
    auto r = run_command(dry_run(dir) +
                         std::vector<std::string>{"--report-html", dir.file("elsewhere/r.html")});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--report-html " + dir.file("elsewhere/r.html") +
                                      ": directory " + dir.file("elsewhere") + " does not exist"));
    r = run_command(
        bi_run({"run-live", "--server-bin", BI_MOCK_SERVER_PATH, "--model", dir.file("m.gguf"),
                "--out-dir", dir.file("new/certs/"), "--report-html", dir.file("new/certs/r.html"),
                "--passes", "1", "--n-predict", "4", "--quiet", "--model-alias", "m"}));
    INFO(r.err);
    CHECK((r.exit_code == 0 || r.exit_code == 3));
    CHECK(fs::exists(dir.file("new/certs/m__ctx2048__N4.json")));
    CHECK(fs::exists(dir.file("new/certs/r.html")));
}

TEST_CASE("keygen over an existing key: one line naming both key files, nothing written",
          "[cli][keygen]") {
    testing::ScratchDir dir;
    const std::string key = dir.file("k");
    REQUIRE(run_command(bi_run({"keygen", "--out", key})).exit_code == 0);
    auto r = run_command(bi_run({"keygen", "--out", key}));
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bi-run keygen: --out " + key + ": " + key + " and " + key +
                       ".pub exist; keygen writes the pair " + key + " and " + key +
                       ".pub and never overwrites a key (choose another --out)\n");
    fs::remove(key + ".pub");
    const std::string before = io::read_file(key);
    r = run_command(bi_run({"keygen", "--out", key}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("bi-run keygen: --out " + key + ": " + key + " exists;"));
    CHECK_FALSE(fs::exists(key + ".pub"));  // no half pair written
    CHECK(io::read_file(key) == before);
    r = run_command(bi_run({"keygen"}));
    CHECK(r.err == "bi-run keygen: --out KEY is required\n");
    r = run_command(bi_run({"attest"}));
    CHECK(r.err == "bi-run attest: name exactly one cert file\n");
}

TEST_CASE("upstream's plan-n line: --parallel is the largest N, --model-alias the label",
          "[cli][plan-n][upstream]") {
    auto r = run_command(bi_run({"plan-n", "--gguf-gb", "4.5", "--n-layer", "32", "--n-head-kv",
                                 "8", "--head-dim", "128", "--ctx", "4096", "--parallel", "2",
                                 "--model-alias", "demo-dense", "--kv", "q8_0"}));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("demo-dense: 4.50 GiB"));
    CHECK_THAT(r.out, Catch::Contains("\n   2 ") && !Catch::Contains("\n   3 "));
    r = run_command(bi_run({"plan-n", "--gguf-gb", "4.5", "--ctx", "4096"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--gguf-gb needs the KV shape too: missing --n-layer"));
}

TEST_CASE("a plan keeps absolute paths, so it runs from any directory", "[cli][plan]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("m.gguf"), "not really a model");
    const auto r =
        run_command({"/bin/sh", "-c",
                     "cd '" + dir.path() + "' && exec '" + BI_RUN_PATH + "' plan --server-bin '" +
                         BI_MOCK_SERVER_PATH + "' --model m.gguf --out-dir ./certs/../out"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("\"out_dir\": \"" + dir.file("out") + "\""));
    CHECK_THAT(r.out, Catch::Contains("\"model\": \"" + dir.file("m.gguf") + "\""));
    CHECK_THAT(r.out, !Catch::Contains("\"m.gguf\""));
}
