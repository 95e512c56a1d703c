// --prefill-chunk through bi-run: the kind's chunk flags go into both servers' argv alike (the
// dry run shows them), a kind without such flags and a --server-flag that sets the chunk
// otherwise are refused with one line, the cert records the chunk, and bi-mock-server standing in
// for llama-server prefills spark's long prompts a chunk at a time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli_args.hpp"
#include "core/cert.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::operator+;
using testing::run_command;

namespace {

// run-live --dry-run of one ctx 512, N 2 cell of `kind` with a stand-in model, then `extra`.
testing::CommandResult dry_run(const testing::ScratchDir& dir, const std::string& kind,
                               const std::vector<std::string>& extra) {
    std::string model = dir.write("model.gguf", "not really a model");
    if (kind == "vllm" || kind == "tgi") {
        std::filesystem::create_directories(dir.file("model"));
        dir.write("model/config.json", "{}\n");
        model = dir.file("model");
    } else if (kind == "ollama" || kind == "openai-generic") {
        model = "served-model";
    }
    return run_command(
        std::vector<std::string>{BI_RUN_PATH, "run-live", "--dry-run", "--server-bin",
                                 BI_MOCK_SERVER_PATH, "--server-kind", kind, "--model", model,
                                 "--out-dir", dir.file("out"), "--ctx", "512", "--parallel", "2"} +
        extra);
}

// The dry run's launch lines: arms A and A' first, then the N-slot server's.
std::vector<std::string> launch_lines(const std::string& out) {
    std::vector<std::string> lines;
    for (const char* head : {"    arm A, A'    ", "    N=2 arms B, C "}) {
        const auto at = out.find(head);
        if (at == std::string::npos) continue;
        const auto start = at + std::string(head).size();
        lines.push_back(out.substr(start, out.find('\n', start) - start));
    }
    return lines;
}

bool ends_with(const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

core::Json cert_in(const std::string& dir) {
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".json") return io::read_cert(entry.path()).document;
    return core::Json();
}

std::vector<std::string> texts(const core::Json& array) {
    std::vector<std::string> out;
    for (const auto& item : array.as_array()) out.push_back(item.as_string());
    return out;
}

}  // namespace

TEST_CASE("prefill-chunk: --dry-run sets llama-server's -b and -ub in both servers' argv",
          "[cli][prefill-chunk]") {
    testing::ScratchDir dir;
    const auto r = dry_run(dir, "llama-server",
                           {"--prefill-chunk", "64", "--server-flag=-t", "--server-flag=2"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    const auto lines = launch_lines(r.out);
    REQUIRE(lines.size() == 2);
    // After the kind's own flags, before the user's, alike for the 1-slot and the N-slot server.
    CHECK(ends_with(lines[0], " -c 512 --parallel 1 --metrics --slots -b 64 -ub 64 -t 2"));
    CHECK(ends_with(lines[1], " -c 1024 --parallel 2 --metrics --slots -b 64 -ub 64 -t 2"));
    CHECK_THAT(r.out, Catch::Contains("  prefill chunk  64 tokens a step (-b and -ub in every "
                                      "launch)\n"));
    // Without the option the server keeps its own, and a user's -ub is the user's.
    testing::ScratchDir plain_dir;
    const auto plain = dry_run(plain_dir, "llama-server", {"--server-flag=-ub=32"});
    CHECK(plain.exit_code == 0);
    CHECK_THAT(plain.out, !Catch::Contains("-b ") && !Catch::Contains("prefill chunk"));
    CHECK(ends_with(launch_lines(plain.out).at(1), " --slots -ub=32"));
}

TEST_CASE("prefill-chunk: --dry-run sets vLLM's chunked prefill and token budget in both argv",
          "[cli][prefill-chunk]") {
    testing::ScratchDir dir;
    const auto r = dry_run(dir, "vllm", {"--prefill-chunk", "256"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    const auto lines = launch_lines(r.out);
    REQUIRE(lines.size() == 2);
    for (const auto& line : lines)
        CHECK(ends_with(line,
                        " --no-enable-prefix-caching --enable-chunked-prefill "
                        "--max-num-batched-tokens 256"));
    CHECK_THAT(lines[0], Catch::Contains("--max-num-seqs 1 "));
    CHECK_THAT(lines[1], Catch::Contains("--max-num-seqs 2 "));
    // TGI's per-step prefill budget likewise.
    testing::ScratchDir tgi_dir;
    const auto tgi = dry_run(tgi_dir, "tgi", {"--prefill-chunk", "256"});
    CHECK(tgi.exit_code == 0);
    for (const auto& line : launch_lines(tgi.out))
        CHECK(ends_with(line, " --max-batch-prefill-tokens 256"));
}

TEST_CASE(
    "prefill-chunk: a kind without chunk flags, or a server flag that sets the chunk, is "
    "refused",
    "[cli][prefill-chunk]") {
    const std::pair<std::string, std::string> kinds[] = {
        {"ollama",
         "bi-run run-live: --prefill-chunk 128: server kind 'ollama' declares no "
         "prefill-chunk flags (launch.prefill_chunk), so bi-run cannot set how it "
         "prefills a prompt\n"},
        {"openai-generic",
         "bi-run run-live: --prefill-chunk 128: server kind 'openai-generic' "
         "declares no prefill-chunk flags (launch.prefill_chunk), so bi-run "
         "cannot set how it prefills a prompt\n"},
    };
    for (const auto& [kind, message] : kinds) {
        testing::ScratchDir dir;
        const auto r = dry_run(dir, kind, {"--prefill-chunk", "128"});
        CHECK(r.exit_code == 2);
        CHECK(r.err == message);
        CHECK(r.out.empty());
    }
    testing::ScratchDir dir;
    auto r = dry_run(dir, "llama-server", {"--prefill-chunk", "128", "--server-flag=-ub=32"});
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "bi-run run-live: --server-flag -ub=32 contradicts --prefill-chunk 128: bi-run "
          "sets -b and -ub itself in every launch (llama-server)\n");
    r = dry_run(dir, "llama-server",
                {"--server-flag=--batch-size", "--server-flag=512", "--prefill-chunk", "128"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-live: --server-flag --batch-size contradicts "
                                        "--prefill-chunk 128"));
    r = dry_run(dir, "vllm",
                {"--prefill-chunk", "128", "--server-flag=--no-enable-chunked-prefill"});
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "bi-run run-live: --server-flag --no-enable-chunked-prefill contradicts "
          "--prefill-chunk 128: bi-run sets --enable-chunked-prefill and "
          "--max-num-batched-tokens itself in every launch (vllm)\n");
    for (const char* bad : {"0", "-64"}) {
        r = dry_run(dir, "llama-server", {"--prefill-chunk", bad});
        CHECK(r.exit_code == 2);
        CHECK(r.err == "bi-run run-live: --prefill-chunk must be at least 1\n");
    }
    r = dry_run(dir, "llama-server", {"--prefill-chunk", "many"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--prefill-chunk"));
    CHECK_FALSE(std::filesystem::exists(dir.file("out")));
}

TEST_CASE("prefill-chunk: the cert records run.prefill_chunk, absent when unset",
          "[cli][prefill-chunk]") {
    testing::ScratchDir chunked;
    auto r = run_command(bi_run({"run-mock", "--out-dir", chunked.path(), "--quiet", "--passes",
                                 "2", "--prefill-chunk", "8"}));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    const auto cert = cert_in(chunked.path());
    REQUIRE(cert.is_object());
    CHECK(cert.find("run")->find("prefill_chunk")->as_int() == 8);
    // verify-cert reads it back as the cert says.
    const auto verified =
        run_command(bi_run({"verify-cert", chunked.file("bi-mock__ctx2048__N4.json")}));
    CHECK(verified.exit_code == 3);  // a mock cert is never promotable, but it is consistent
    CHECK_THAT(verified.out + verified.err, !Catch::Contains("disagree"));

    testing::ScratchDir plain;
    r = run_command(bi_run({"run-mock", "--out-dir", plain.path(), "--quiet", "--passes", "2"}));
    CHECK(r.exit_code == 0);
    const auto unchunked = cert_in(plain.path());
    REQUIRE(unchunked.is_object());
    CHECK(unchunked.find("run")->find("prefill_chunk") == nullptr);
}

TEST_CASE("prefill-chunk: bi-mock-server prefills spark's long prompts a chunk at a time",
          "[cli][prefill-chunk]") {
    testing::ScratchDir dir;
    const auto model = dir.write("model.gguf", "not really a model");
    const std::vector<std::string> cell{BI_RUN_PATH,     "run-live",
                                        "--server-bin",  BI_MOCK_SERVER_PATH,
                                        "--model",       model,
                                        "--model-alias", "m",
                                        "--ctx",         "1024",
                                        "--parallel",    "4",
                                        "--passes",      "2",
                                        "--n-predict",   "160",
                                        "--plugin",      BI_SPARK_PLUGIN,
                                        "--profile",     "spark"};
    const auto r = run_command(
        cell + std::vector<std::string>{"--out-dir", dir.file("out"), "--generator-param",
                                        "echo=1,families=A2,E3,min_prompt_tokens=600",
                                        "--prefill-chunk", "64"});
    INFO(r.err);
    CHECK(r.exit_code == 3);  // a mock is never promotable
    const auto loaded = io::read_cert(dir.file("out/" + core::cert_file_name("m", 1024, 4)));
    REQUIRE(loaded.digest_intact);
    const auto& cert = loaded.document;
    CHECK(cert.find("status")->as_string() == "green");
    CHECK(cert.find("run")->find("prefill_chunk")->as_int() == 64);
    // Both servers were launched with the chunk: the 1-slot one (A, A') and the 4-slot one.
    for (const char* server : {"A", "N"}) {
        const auto argv = texts(*cert.find("server")->find(server)->find("argv"));
        INFO(server);
        const auto b = std::find(argv.begin(), argv.end(), "-b");
        REQUIRE(b != argv.end());
        CHECK(std::vector<std::string>(b, b + 4) ==
              std::vector<std::string>{"-b", "64", "-ub", "64"});
    }
    // Every prompt is longer than a chunk, so no note says a chunk was never split.
    CHECK_THAT(r.err, !Catch::Contains("no prompt is prefilled in more than one chunk"));
    // The same cell with the built-in work-set's short prompts is told that no prompt is split.
    testing::ScratchDir short_dir;
    std::vector<std::string> plain{BI_RUN_PATH,       "run-live",
                                   "--server-bin",    BI_MOCK_SERVER_PATH,
                                   "--model",         model,
                                   "--model-alias",   "m",
                                   "--ctx",           "1024",
                                   "--passes",        "1",
                                   "--out-dir",       short_dir.file("out"),
                                   "--prefill-chunk", "512"};
    const auto short_run = run_command(plain);
    INFO(short_run.err);
    CHECK(short_run.exit_code == 3);
    CHECK_THAT(short_run.err, Catch::Contains("--prefill-chunk 512: arm A's longest prompt is ") &&
                                  Catch::Contains(" tokens, so no prompt is prefilled in more "
                                                  "than one chunk\n"));
}
