// --server-flag values are server argv tokens: each one stays whole, commas included; the
// server kind decides the rest of the command line.
#include <catch2/catch.hpp>

#include <filesystem>

#include "built_paths.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

// run-live --dry-run of one N=2 cell with a stand-in model file in `dir`, before the options a
// test adds.
std::vector<std::string> dry_run_argv(const testing::ScratchDir& dir) {
    io::write_file_atomically(dir.file("model.gguf"), "not really a model");
    return {BI_RUN_PATH,
            "run-live",
            "--dry-run",
            "--server-bin",
            BI_MOCK_SERVER_PATH,
            "--model",
            dir.file("model.gguf"),
            "--out-dir",
            dir.file("out"),
            "--parallel",
            "2"};
}

testing::CommandResult dry_run(const testing::ScratchDir& dir,
                               const std::vector<std::string>& extra) {
    auto argv = dry_run_argv(dir);
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_command(argv);
}

}  // namespace

TEST_CASE("run-live --dry-run keeps a comma inside one --server-flag token", "[cli][run-live]") {
    testing::ScratchDir dir;
    auto argv = dry_run_argv(dir);
    argv.insert(argv.end(), {"--ctx", "512", "--server-flag=--tensor-split", "--server-flag=3,1",
                             "--reserved-port", "9,10"});
    auto r = run_command(argv);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("--slots --tensor-split 3,1\n"));
    CHECK_THAT(r.out, !Catch::Contains("--tensor-split 3 1"));
    // Other vector options still take comma lists.
    CHECK_THAT(r.out, Catch::Contains("reserved ports 9 10"));
}

TEST_CASE("run-live --dry-run plans the passes of --target-rate", "[cli][run-live]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("ws.json"),
                              R"([{"family":"f","fill":0.1,"prompt":"p1","expected_answer":"x"},)"
                              R"({"family":"f","fill":0.1,"prompt":"p2","expected_answer":"y"}])");
    auto base = dry_run_argv(dir);
    base.insert(base.end(), {"--workset", dir.file("ws.json"), "--n-predict", "50"});
    auto argv = base;
    argv.insert(argv.end(), {"--target-rate", "0.01", "--max-passes", "200"});
    auto r = run_command(argv);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // 299 trials from 2 items: at least 150 passes; 50 tokens x 20 ms = 1 s a request, 6 serial
    // requests and 150 passes of one round.
    CHECK_THAT(r.out, Catch::Contains("299 counted trials needed; 2 items give at least 150 "
                                      "pass(es), capped at 200"));
    CHECK_THAT(r.out, Catch::Contains("wall time N=2  ~156 s"));
    argv = base;
    argv.insert(argv.end(), {"--target-rate", "0.01"});
    r = run_command(argv);
    CHECK_THAT(r.out, Catch::Contains("the cap comes first: the target cannot be reached"));
    r = run_command(base);
    CHECK_THAT(r.out, Catch::Contains("C passes       4 fixed"));
    CHECK_FALSE(std::filesystem::exists(dir.file("out")));
}

// --server-kind: the kind a run launches decides its argv (shown by --dry-run with the kind and
// where it came from) and the flags --server-flag may not give; an unknown kind is refused with
// the list of kinds.
TEST_CASE("run-live --dry-run names the server kind and launches with its argv",
          "[cli][server-kind]") {
    testing::ScratchDir dir;
    auto r = dry_run(dir, {"--ctx", "512"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    llama-server (built-in:llama-server.toml)"));
    CHECK_THAT(r.out, Catch::Contains("--parallel 2 --metrics --slots\n"));

    r = dry_run(dir, {"--ctx", "512", "--server-kind", "ik_llama.cpp"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    ik_llama.cpp (built-in:ik_llama.cpp.toml)"));
    CHECK_THAT(r.out, Catch::Contains("-c 1024 --parallel 2 --metrics --cache-ram 0\n"));
    CHECK_THAT(r.out, !Catch::Contains("--slots"));
}

TEST_CASE("run-live refuses an unknown kind with the list, and a flag the kind manages",
          "[cli][server-kind]") {
    testing::ScratchDir dir;
    auto r = dry_run(dir, {"--ctx", "512", "--server-kind", "vllm-nightly"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--server-kind vllm-nightly: no such server kind") &&
                          Catch::Contains("ik_llama.cpp, llama-server"));
    CHECK(r.out.empty());

    r = dry_run(
        dir, {"--ctx", "512", "--server-kind", "ik_llama.cpp", "--server-flag=--cache-ram=4096"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("bi-run sets --cache-ram itself") &&
                          Catch::Contains("ik_llama.cpp"));

    r = dry_run(dir, {"--ctx", "512", "--server-kind",
                      dir.write("bad.toml", "schema = \"bi-server-kind/2\"\n")});
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
    auto r = dry_run(
        dir, {"--ctx", "512", "--server-kind", "my-llama", "--server-kind-dir", dir.path()});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    my-llama (" + dir.file("my-llama.toml")));
    CHECK_THAT(r.out, Catch::Contains("-np 2 --ctx-size 1024 --metrics\n"));
}

TEST_CASE("run-live --dry-run launches every shipped work-alike kind as docs/servers.md says",
          "[cli][run-live]") {
    testing::ScratchDir dir;
    const std::string model = dir.file("weights");
    std::filesystem::create_directories(model);
    const std::pair<const char*, std::string> kinds[] = {
        {"vllm", "serve " + model +
                     " --host 127.0.0.1 --port 0 --max-num-seqs 2 --max-model-len 512 "
                     "--no-enable-prefix-caching\n"},
        {"sglang", "-m sglang.launch_server --model-path " + model +
                       " --host 127.0.0.1 --port 0 --max-running-requests 2 --context-length "
                       "512 --enable-metrics --decode-log-interval 1 --disable-radix-cache\n"},
        {"tgi", std::string("PREFIX_CACHING=0 ") + BI_MOCK_SERVER_PATH + " --model-id " + model +
                    " --hostname 127.0.0.1 --port 0 --max-batch-size 2 --max-total-tokens 512\n"},
        {"trtllm-serve",
         model + " --host 127.0.0.1 --port 0 --max_batch_size 2 --max_seq_len 512\n"},
        {"ollama",
         std::string("OLLAMA_CONTEXT_LENGTH=512 OLLAMA_HOST=127.0.0.1:0 OLLAMA_NUM_PARALLEL=2 ") +
             BI_MOCK_SERVER_PATH + " serve\n"},
        {"openai-generic", "--host 127.0.0.1 --port 0 --model " + model + " --parallel 2\n"},
    };
    for (const auto& [kind, line] : kinds) {
        INFO(kind);
        const auto r =
            run_command({BI_RUN_PATH, "run-live", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH,
                         "--server-kind", kind, "--model", model, "--out-dir", dir.file("out"),
                         "--parallel", "2", "--ctx", "512"});
        INFO(r.out << r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.out, Catch::Contains("server kind    " + std::string(kind) + " (built-in:"));
        CHECK_THAT(r.out, Catch::Contains(line));
        CHECK_THAT(r.out, Catch::Contains("footprint not projected"));
    }
    // A kind that takes a model directory refuses a file, naming it.
    io::write_file_atomically(dir.file("one.gguf"), "x");
    const auto r = run_command({BI_RUN_PATH, "run-live", "--dry-run", "--server-bin",
                                BI_MOCK_SERVER_PATH, "--server-kind", "vllm", "--model",
                                dir.file("one.gguf"), "--out-dir", dir.file("out")});
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains(dir.file("one.gguf") + ": not a directory"));
    // A kind without a native completion endpoint refuses --endpoint completion.
    const auto c = run_command({BI_RUN_PATH, "run-live", "--dry-run", "--server-bin",
                                BI_MOCK_SERVER_PATH, "--server-kind", "vllm", "--model", model,
                                "--out-dir", dir.file("out"), "--endpoint", "completion"});
    CHECK(c.exit_code == 2);
    CHECK_THAT(c.err, Catch::Contains("has no native completion endpoint"));
}

TEST_CASE("run-live without --server-kind takes the kind its binary's name says, or refuses",
          "[cli][run-live]") {
    testing::ScratchDir dir;
    std::filesystem::create_directories(dir.file("weights"));
    std::filesystem::create_directories(dir.file("bin"));
    const std::string vllm = dir.file("bin/vllm");
    std::filesystem::copy_file(BI_MOCK_SERVER_PATH, vllm);
    const std::vector<std::string> argv{BI_RUN_PATH,         "run-live",  "--dry-run",
                                        "--server-bin",      vllm,        "--model",
                                        dir.file("weights"), "--out-dir", dir.file("out")};
    auto r = run_command(argv);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    vllm (built-in:vllm.toml, by the binary's "
                                      "name)"));
    CHECK_THAT(r.out, Catch::Contains("--max-num-seqs"));
    // Another binary name: the default kind, said as before.
    r = run_command(dry_run_argv(dir));
    CHECK_THAT(r.out,
               Catch::Contains("server kind    llama-server (built-in:llama-server.toml)\n"));
    // Two kinds claiming the name: refused, naming both.
    std::filesystem::create_directories(dir.file("kinds"));
    dir.write("kinds/my-vllm.toml", R"(schema = "bi-server-kind/1"
name = "my-vllm"
description = "a second kind for a binary named vllm"
[launch]
argv = ["serve", "{model}", "--port", "{port}", "--max-num-seqs", "{n}"]
[identity]
binary_names = ["vllm"]
)");
    auto ambiguous = argv;
    ambiguous.insert(ambiguous.end(), {"--server-kind-dir", dir.file("kinds")});
    r = run_command(ambiguous);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("the kinds my-vllm, vllm all launch a binary named vllm"));
}

TEST_CASE("two kinds of one binary name are told apart by the probe the kind declares",
          "[cli][run-live]") {
    testing::ScratchDir dir;
    std::filesystem::create_directories(dir.file("ik"));
    std::filesystem::create_directories(dir.file("mainline"));
    // Both builds are named llama-server; only ik_llama.cpp's --help lists --run-time-repack
    // (and, as the real one does, exits 1 after it).
    const auto script = [&](const std::string& path, const std::string& help) {
        dir.write(path, "#!/bin/sh\nif [ \"$1\" = --help ]; then echo '" + help +
                            "'; exit 1; fi\necho 'version: 1 (abc)'\n");
        std::filesystem::permissions(dir.file(path), std::filesystem::perms::owner_all);
        return dir.file(path);
    };
    const auto ik = script("ik/llama-server", "-rtr, --run-time-repack  repack tensors");
    const auto mainline = script("mainline/llama-server", "--slots, --no-slots  slots endpoint");
    const auto model = dir.write("m.gguf", "GGUF");
    const auto argv = [&](const std::string& bin) {
        return std::vector<std::string>{BI_RUN_PATH, "run-live", "--dry-run", "--server-bin", bin,
                                        "--model",   model,      "--out-dir", dir.file("out")};
    };
    auto r = run_command(argv(ik));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    ik_llama.cpp (built-in:ik_llama.cpp.toml, "
                                      "by the binary's --help)"));
    CHECK_THAT(r.out, Catch::Contains("--cache-ram 0"));
    CHECK_THAT(r.out, !Catch::Contains("--slots"));
    r = run_command(argv(mainline));
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("server kind    llama-server (built-in:llama-server.toml, "
                                      "by the binary's name)"));
    CHECK_THAT(r.out, Catch::Contains("--slots"));
    // A second kind whose probe the ik build also answers: refused, naming both.
    std::filesystem::create_directories(dir.file("kinds"));
    dir.write("kinds/ik-fork.toml", R"(schema = "bi-server-kind/1"
name = "ik-fork"
description = "a fork of a fork"
[launch]
argv = ["-m", "{model}", "--port", "{port}", "--parallel", "{n}"]
[identity]
binary_names = ["llama-server"]
probe_argv = ["--help"]
probe_text = ["repack"]
)");
    auto ambiguous = argv(ik);
    ambiguous.insert(ambiguous.end(), {"--server-kind-dir", dir.file("kinds")});
    r = run_command(ambiguous);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("the kinds ik-fork, ik_llama.cpp all launch a binary named "
                                      "llama-server and answer their probes"));
}

TEST_CASE(
    "the KV label is the server's cache-type flags, and a label that contradicts them is "
    "refused",
    "[cli][run-live]") {
    testing::ScratchDir dir;
    auto r = dry_run(dir, {"--server-flag=--cache-type-k", "--server-flag=q8_0",
                           "--server-flag=-ctv", "--server-flag=q8_0"});
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("KV cache       q8_0 (the server's cache-type flags)"));
    r = dry_run(dir, {"--server-flag=--cache-type-k=q8_0"});  // V stays llama-server's f16
    CHECK_THAT(r.out, Catch::Contains("KV cache       q8_0 (K/V q8_0/f16) (the server's "
                                      "cache-type flags)"));
    r = dry_run(dir, {"--server-flag=-ctk", "--server-flag=q8_0", "--kv-label", "q4_0"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--kv-label q4_0 contradicts the server's KV flags, which "
                                      "give q8_0"));
    // A label and no flags: the server is told to hold what the label says.
    r = dry_run(dir, {"--kv-label", "q4_0"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("-ctk q4_0 -ctv q4_0"));
    CHECK_THAT(r.out, Catch::Contains("KV cache       q4_0 (the server's cache-type flags)"));
    r = dry_run(dir, {"--server-flag=-ctk", "--server-flag=q9_9"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("-ctk q9_9: unknown KV cache type"));
    r = dry_run(dir, {});
    CHECK_THAT(r.out, Catch::Contains("KV cache       f16\n"));
}
