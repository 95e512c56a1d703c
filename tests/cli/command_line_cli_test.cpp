// The command line a person expects (issue 17): the bugs a new user hit, the design card's
// `bi-run --plugin libspark.so`, the plugin search path, and the upstream tool's option names.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "cli_args.hpp"
#include "core/sha256.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "mock/mock_server.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::run_command;
using testing::operator+;
namespace fs = std::filesystem;

namespace {

// `args` run with NAME=VALUE entries added to the environment.
testing::CommandResult with_env(const std::vector<std::string>& env,
                                const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    for (const auto& arg : bi_run(args)) argv.push_back(arg);
    return run_command(argv);
}

// A small GGUF with a shape (4 layers, 4 KV heads of 64), so the KV cache is projected from it.
std::string synth_model(const testing::ScratchDir& dir) {
    const auto path = dir.file("synth.gguf");
    const auto r = run_command(bi_run({"synth-model", "--out", path, "--vocab-words", "50"}));
    REQUIRE(r.exit_code == 0);
    return path;
}

std::vector<std::string> dry_run(const std::string& model, const testing::ScratchDir& dir) {
    return bi_run({"run-live", "--dry-run", "--server-bin", BI_MOCK_SERVER_PATH, "--model", model,
                   "--out-dir", dir.file("out")});
}

const core::Json& run_record(const io::LoadedCert& loaded) {
    return *loaded.document.find("run");
}

}  // namespace

TEST_CASE("models.toml: upstream's per-model server_flags reach the server", "[cli][models]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("m.gguf"), "not really a model");
    io::write_file_atomically(dir.file("models.toml"),
                              "[[models]]\nalias = \"m\"\ngguf = \"" + dir.file("m.gguf") +
                                  "\"\nserver_bin = \"" + BI_MOCK_SERVER_PATH +
                                  "\"\nkv = \"q8_0\"\n"
                                  "server_flags = [\"--cache-type-k\", \"q8_0\"]\n");
    auto r = run_command(bi_run({"run-live", "--dry-run", "--profile", "m", "--models-toml",
                                 dir.file("models.toml"), "--out-dir", dir.file("out")}));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("--slots --cache-type-k q8_0\n"));

    io::write_file_atomically(dir.file("models.toml"), "[[models]]\nalias = \"m\"\ngguf = \"" +
                                                           dir.file("m.gguf") +
                                                           "\"\nserverflags = [\"-t\"]\n");
    r = run_command(bi_run({"run-live", "--dry-run", "--profile", "m", "--models-toml",
                            dir.file("models.toml"), "--out-dir", dir.file("out")}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("line 4: unknown key 'serverflags' in models[0]"));
}

TEST_CASE("run-live's footprint guard uses --kv-label as plan-n does", "[cli][guard]") {
    testing::ScratchDir dir;
    const auto model = synth_model(dir);
    // 65536 x 4 tokens: about 1 GiB of f16 KV cache, a quarter of that as q4_0.
    const std::vector<std::string> cell{"--ctx", "65536", "--parallel", "4", "--max-footprint-gb",
                                        "0.9"};
    auto plan = run_command(bi_run({"plan-n", "--model", model, "--ctx", "65536", "--max-n", "4",
                                    "--kv-label", "q4_0", "--max-footprint-gb", "0.9"}));
    INFO(plan.out);
    CHECK(plan.exit_code == 0);
    CHECK_THAT(plan.out, Catch::Contains("largest N that fits: 4"));
    auto r =
        run_command(dry_run(model, dir) + cell + std::vector<std::string>{"--kv-label", "q4_0"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    r = run_command(dry_run(model, dir) + cell);  // f16
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("exceeds --max-footprint-gb"));
}

TEST_CASE("plan-n: exit 3 when no N fits, planning without the model file", "[cli][plan-n]") {
    testing::ScratchDir dir;
    const auto model = synth_model(dir);
    auto r = run_command(
        bi_run({"plan-n", "--model", model, "--max-n", "2", "--max-footprint-gb", "0.01"}));
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::Contains("no N from 1 to 2 fits"));

    r = run_command(bi_run({"plan-n", "--gguf-gb", "4.5", "--n-layer", "32", "--n-head-kv", "8",
                            "--head-dim", "128", "--ctx", "4096", "--max-n", "2"}));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // 2 x 32 layers x 4096 tokens x (8 x 128) x 2 bytes = 0.50 GiB of f16 KV at N=1.
    CHECK_THAT(r.out, Catch::Contains("   1       4096     4.50 GiB     0.50 GiB"));

    r = run_command(bi_run({"plan-n", "--gguf-gb", "4.5", "--n-layer", "32"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("missing --n-head-kv, --head-dim"));
    r = run_command(bi_run({"plan-n"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err,
               Catch::Contains("name the model: --model FILE, --profile ALIAS, or --gguf-gb"));
}

TEST_CASE("the footprint guard checks the GPU part against nvidia-smi's free memory",
          "[cli][guard]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("m.gguf"), std::string(1 << 20, 'x'));
    fs::create_directories(dir.file("bin"));
    // One line per GPU: index, uuid, free MiB, total MiB.
    const auto fake_smi = [&](const std::string& lines) {
        io::write_file_atomically(dir.file("bin/nvidia-smi"),
                                  "#!/bin/sh\nprintf '" + lines + "'\n");
        ::chmod(dir.file("bin/nvidia-smi").c_str(), 0755);
    };
    const std::string path = "PATH=" + dir.file("bin") + ":" + std::getenv("PATH");
    const auto args = std::vector<std::string>{
        "run-live",         "--dry-run", "--server-bin",  BI_MOCK_SERVER_PATH,  "--model",
        dir.file("m.gguf"), "--out-dir", dir.file("out"), "--server-flag=-ngl", "--server-flag=99"};
    fake_smi("0, GPU-aaa, 100, 81920\\n");  // MiB: less than the 256 MiB overhead alone
    auto r = with_env({path}, args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("exceeds its free memory 0.10 GiB (nvidia-smi)"));
    fake_smi("0, GPU-aaa, 81920, 81920\\n");
    r = with_env({path}, args);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("GPU memory     80.00 GiB free (nvidia-smi, 1 GPU(s))") &&
                          Catch::Contains("GPU part"));
    // Without offload flags the GPU is not consulted.
    fake_smi("0, GPU-aaa, 100, 81920\\n");
    r = with_env({path}, std::vector<std::string>(args.begin(), args.end() - 2));
    CHECK(r.exit_code == 0);
}

TEST_CASE("the GPU guard checks the GPUs the server will use, not every GPU listed",
          "[cli][guard]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("m.gguf"), std::string(1 << 20, 'x'));
    fs::create_directories(dir.file("bin"));
    // GPU 0 is full (100 MiB free), GPU 1 is free: together they would hold the 0.25 GiB part.
    io::write_file_atomically(dir.file("bin/nvidia-smi"),
                              "#!/bin/sh\nprintf '0, GPU-aaa, 100, 81920\\n"
                              "1, GPU-bbb, 81920, 81920\\n'\n");
    ::chmod(dir.file("bin/nvidia-smi").c_str(), 0755);
    const std::string path = "PATH=" + dir.file("bin") + ":" + std::getenv("PATH");
    const auto run = [&](std::vector<std::string> env, std::vector<std::string> flags) {
        std::vector<std::string> args{"run-live",          "--dry-run",     "--server-bin",
                                      BI_MOCK_SERVER_PATH, "--model",       dir.file("m.gguf"),
                                      "--out-dir",         dir.file("out"), "--server-flag=-ngl",
                                      "--server-flag=99"};
        for (const auto& flag : flags) args.push_back("--server-flag=" + flag);
        env.push_back(path);
        return with_env(env, args);
    };
    // Both GPUs: the layer split spreads the part over them.
    auto r = run({}, {});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    // Only GPU 0 is visible (in bus order, by index or by UUID): refused, naming why.
    for (const std::string visible : {"0", "GPU-aaa", "GPU-a"}) {
        r = run({"CUDA_VISIBLE_DEVICES=" + visible, "CUDA_DEVICE_ORDER=PCI_BUS_ID"}, {});
        INFO(visible << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("on GPU 0") &&
                              Catch::Contains("CUDA_VISIBLE_DEVICES=" + visible));
    }
    // Only GPU 1: accepted, and the plan says which memory was checked.
    r = run({"CUDA_VISIBLE_DEVICES=1", "CUDA_DEVICE_ORDER=PCI_BUS_ID"}, {});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("80.00 GiB free (nvidia-smi, 1 GPU(s); "
                                      "CUDA_VISIBLE_DEVICES=1)"));
    // Without PCI bus order CUDA numbers its fastest GPU first, which nvidia-smi does not say:
    // whichever index is given, the fuller GPU is assumed; a UUID still names its GPU.
    for (const std::string visible : {"0", "1"}) {
        r = run({"CUDA_VISIBLE_DEVICES=" + visible}, {});
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("the fullest GPUs assumed"));
    }
    r = run({"CUDA_VISIBLE_DEVICES=GPU-bbb"}, {});
    CHECK(r.exit_code == 0);
    // Nothing visible, or --device none, while layers are offloaded: refused.
    r = run({"CUDA_VISIBLE_DEVICES="}, {});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("the server sees no GPU"));
    r = run({}, {"--device", "none"});
    CHECK(r.exit_code == 2);
    // --device, --split-mode none with --main-gpu, and --tensor-split pick GPU 0 alone.
    for (const auto& flags : std::vector<std::vector<std::string>>{{"--device", "CUDA0"},
                                                                   {"-sm", "none"},
                                                                   {"-sm", "none", "-mg", "0"},
                                                                   {"-ts", "1,0"},
                                                                   {"--tensor-split", "3,1"}}) {
        r = run({}, flags);
        INFO(flags.front() << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("on GPU 0"));
    }
    for (const auto& flags : std::vector<std::vector<std::string>>{
             {"--device", "CUDA1"}, {"-sm", "none", "-mg", "1"}, {"-ts", "0,1"}}) {
        r = run({}, flags);
        INFO(flags.front() << ": " << r.err);
        CHECK(r.exit_code == 0);
    }
}

TEST_CASE("a kind that preallocates GPU memory is checked against nvidia-smi's free memory",
          "[cli][guard]") {
    testing::ScratchDir dir;
    fs::create_directories(dir.file("weights"));
    fs::create_directories(dir.file("bin"));
    // One GPU of 80 GiB with `free_mib` free.
    const auto fake_smi = [&](const std::string& free_mib) {
        io::write_file_atomically(dir.file("bin/nvidia-smi"),
                                  "#!/bin/sh\necho '0, GPU-aaa, " + free_mib + ", 81920'\n");
        ::chmod(dir.file("bin/nvidia-smi").c_str(), 0755);
    };
    const std::string path = "PATH=" + dir.file("bin") + ":" + std::getenv("PATH");
    const auto args = std::vector<std::string>{
        "run-live", "--dry-run", "--server-bin",      BI_MOCK_SERVER_PATH, "--server-kind",
        "vllm",     "--model",   dir.file("weights"), "--out-dir",         dir.file("out")};
    fake_smi("81920");
    auto r = with_env({path}, args);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("--gpu-memory-utilization 0.90 of each GPU"));
    // vLLM's default 0.9 of 80 GiB does not fit in 40 GiB free ...
    fake_smi("40960");
    r = with_env({path}, args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--gpu-memory-utilization 0.90 preallocates 72.00 GiB of "
                                      "80.00 GiB GPU memory, but only 40.00 GiB is free"));
    // ... 0.4 does, and is the one recorded.
    auto lower = args;
    lower.insert(lower.end(), {"--server-flag=--gpu-memory-utilization", "--server-flag=0.4"});
    r = with_env({path}, lower);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("--gpu-memory-utilization 0.40 of each GPU"));
    // Not a fraction: refused.
    auto bad = args;
    bad.push_back("--server-flag=--gpu-memory-utilization=1.5");
    r = with_env({path}, bad);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--gpu-memory-utilization 1.5: not a fraction in (0, 1]"));
}

TEST_CASE("workset and --profile share one default seed", "[cli][workset]") {
    const auto plain = run_command(bi_run({"workset", "--generator", "spark"}));
    const auto seeded = run_command(bi_run({"workset", "--generator", "spark", "--seed", "42"}));
    const auto other = run_command(bi_run({"workset", "--generator", "spark", "--seed", "0"}));
    REQUIRE(plain.exit_code == 0);
    CHECK(plain.out == seeded.out);
    CHECK(plain.out != other.out);
    auto r = run_command(bi_run({"workset", "--generator", "spark", "--model", "x"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--model-id"));
}

TEST_CASE("bi-run --plugin libspark.so, as the design card writes it", "[cli][plugins]") {
    auto r = run_command(bi_run({"--plugin", "libspark.so"}));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("generator spark") && Catch::Contains("scorer spark") &&
                          Catch::Contains("workset --generator spark") &&
                          Catch::Contains("--profile spark"));
    CHECK_THAT(r.out, !Catch::Contains("scorer exact"));  // only the plugin named
    CHECK_THAT(r.err, Catch::Contains("--plugin libspark.so is "));

    testing::ScratchDir dir;
    r = run_command(bi_run({"--plugin", "libspark.so", "run-mock", "--profile", "spark",
                            "--out-dir", dir.path(), "--quiet", "--passes", "1"}));
    INFO(r.err);
    // The mock cannot do spark's tasks, so its cell is not green, but the profile ran.
    CHECK(r.exit_code == 3);
    const auto loaded = io::read_cert(dir.file("bi-mock__ctx2048__N4.json"));
    CHECK(run_record(loaded).find("profile")->as_string() == "spark");
    CHECK(run_record(loaded).find("generator")->as_string() == "spark");

    r = run_command(bi_run({"--plugin", "libnope.so", "plugins"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--plugin libnope.so: not found in --plugin-dir, "
                                      "$BI_PLUGIN_PATH, the bundled plugin directory or the "
                                      "current directory"));
    r = run_command(bi_run({"--plugin", "libspark.so", "verify-cert", "x.json"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("this command loads no plugins"));
}

TEST_CASE("a bare plugin name on BI_PLUGIN_PATH or --plugin-dir shadows the bundled copy",
          "[cli][plugins]") {
    testing::ScratchDir dir;
    fs::copy_file(BI_SPARK_PLUGIN, dir.file("libspark.so"));
    const auto check_shadowed = [&](const testing::CommandResult& r) {
        INFO(r.err);
        CHECK(r.exit_code == 0);
        CHECK_THAT(r.err, Catch::Contains("--plugin libspark.so is " + dir.file("libspark.so")));
        CHECK_THAT(r.err, Catch::Contains(dir.file("libspark.so") + " shadows the bundled " +
                                          std::string(BI_SPARK_PLUGIN) + " (same ids)"));
        CHECK_THAT(r.out, Catch::Contains("spark 0.") && Catch::Contains(dir.file("libspark.so")));
        CHECK_THAT(r.out, !Catch::Contains("bundled) " + std::string(BI_SPARK_PLUGIN)));
    };
    check_shadowed(with_env({"BI_PLUGIN_PATH=/nonexistent:" + dir.path()},
                            {"--plugin", "libspark.so", "plugins"}));
    check_shadowed(
        run_command(bi_run({"plugins", "--plugin-dir", dir.path(), "--plugin", "libspark.so"})));
}

TEST_CASE("the upstream tool's option names are accepted", "[cli][aliases]") {
    testing::ScratchDir dir;
    // run-mock: --gate-passes, --n-probs, --kv, --batch-divergence, --profile-corner.
    auto r = run_command(bi_run({"run-mock", "--out-dir", dir.path(), "--quiet", "--gate-passes",
                                 "1", "--n-probs", "2", "--kv", "q8_0", "--batch-divergence",
                                 "--profile", "spark", "--profile-corner", "short"}));
    INFO(r.err);
    CHECK(r.exit_code == 3);  // --divergence score: a RED
    auto loaded = io::read_cert(dir.file("bi-mock__ctx2048__N4.json"));
    const auto& run = run_record(loaded);
    CHECK(run.find("passes")->as_int() == 1);
    CHECK(run.find("logprobs")->as_int() == 2);
    CHECK(run.find("generator_params")->as_array().at(0).as_string() == "corner=short");
    CHECK(run.find("seed")->as_int() == 42);
    CHECK(loaded.document.find("kv_label")->as_string() == "q8_0");
    CHECK(loaded.document.find("status")->as_string() == "failed");

    // run-live: --experiment-port, --untouchable-port, --ctx-sweep, the acknowledgement flag.
    io::write_file_atomically(dir.file("m.gguf"), "not really a model");
    r = run_command(dry_run(dir.file("m.gguf"), dir) +
                    std::vector<std::string>{"--experiment-port", "7", "--untouchable-port", "7"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--experiment-port 7 is reserved"));
    r = run_command(dry_run(dir.file("m.gguf"), dir) +
                    std::vector<std::string>{"--untouchable-port", "7", "--ctx-sweep", "512,1024",
                                             "--i-understand-this-launches-a-real-server"});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("reserved ports 7") && Catch::Contains("ctx 512:") &&
                          Catch::Contains("ctx 1024:"));

    r = run_command(bi_run({"run-mock", "--cert-source", "live", "--out-dir", dir.path()}));
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "bi-run run-mock: --cert-source live: run-mock's cert is always source mock (never "
          "promotable); a live cert comes from bi-run run-live against a real server\n");
    r = run_command(
        bi_run({"run-mock", "--passes", "2", "--gate-passes", "3", "--out-dir", dir.path()}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--gate-passes is another name for --passes: give one"));
}

TEST_CASE("a work-set of bare strings is read as prompts", "[cli][workset]") {
    testing::ScratchDir dir;
    std::string rows = "[";
    for (int i = 0; i < 16; ++i)
        rows += (i ? ", \"" : "\"") + std::string("Name colour ") + std::to_string(i) + "\"";
    io::write_file_atomically(dir.file("ws.json"), rows + "]");
    auto r = run_command(bi_run({"run-mock", "--workset", dir.file("ws.json"), "--out-dir",
                                 dir.file("out"), "--quiet", "--json", "--realistic-pacing"}));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out,
               Catch::Contains("\"status\":\"green\"") && Catch::Contains("\"n_divergent\":0"));
}

TEST_CASE("a work-set from standard input or a FIFO is read, and its bytes hashed",
          "[cli][workset]") {
    testing::ScratchDir dir;
    const std::string rows = R"([{"prompt": "Say 7.", "expected_answer": "7"}])";
    const std::string file = dir.write("ws.json", rows);
    const std::string sha = core::sha256_hex(rows);
    const std::string cert = "/bi-mock__ctx2048__N4.json";
    const std::string bi = BI_RUN_PATH;
    // "-": standard input, here a pipe.
    auto r = run_command({"/bin/sh", "-c",
                          "cat '" + file + "' | '" + bi + "' run-mock --workset - --passes 1 " +
                              "--quiet --out-dir '" + dir.file("stdin") + "'"});
    INFO(r.err);
    CHECK(r.exit_code == 3);  // one item cannot show overlap at N: not GREEN, but a verdict
    auto loaded = io::read_cert(dir.file("stdin") + cert);
    CHECK(loaded.document.find("provenance")->string_or("workset_sha256", "") == sha);
    CHECK(loaded.document.find("run")->string_or("workset", "") == "-");
    // A FIFO, as a shell's <(command) gives.
    const std::string fifo = dir.file("pipe");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    r = run_command({"/bin/sh", "-c",
                     "cat '" + file + "' > '" + fifo + "' & '" + bi + "' run-mock --workset '" +
                         fifo + "' --passes 1 --quiet --out-dir '" + dir.file("fifo") + "'"});
    INFO(r.err);
    CHECK(r.exit_code == 3);
    loaded = io::read_cert(dir.file("fifo") + cert);
    CHECK(loaded.document.find("provenance")->string_or("workset_sha256", "") == sha);
    // Standard input that is nothing (/dev/null is a device) is refused by name.
    r = run_command({"/bin/sh", "-c", "'" + bi + "' run-mock --workset - --quiet < /dev/null"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("cannot read standard input: it is a character device"));
    // A plan's shards read the work-set again: a stream is refused there.
    r = run_command(bi_run({"plan", "--workset", "-", "--parallel", "2", "--out-dir",
                            dir.file("plan"), "--model", file}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("must be a regular file, not a stream"));
}

TEST_CASE("workset --tokenize sizes rows as a live run does, and the cert hashes the rows that ran",
          "[cli][workset]") {
    testing::ScratchDir dir;
    mock::MockConfig config;
    config.model_alias = "bi-mock";
    mock::MockServer server(config);
    const std::string at = "127.0.0.1:" + std::to_string(server.start());
    auto r = run_command(bi_run({"workset", "--generator", "spark", "--tokenize", at, "--model-id",
                                 "bi-mock", "--ctx", "2048", "--out", dir.file("live.json")}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    r = run_command(bi_run({"workset", "--generator", "spark", "--model-id", "bi-mock", "--ctx",
                            "2048", "--out", dir.file("estimated.json")}));
    REQUIRE(r.exit_code == 0);
    const std::string live = io::read_file(dir.file("live.json"));
    CHECK(live != io::read_file(dir.file("estimated.json")));  // 4 bytes a token is not the model's
    // The cell that runs the profile on that tokenizer measured exactly the --tokenize rows.
    r = run_command(bi_run({"run-mock", "--profile", "spark", "--passes", "1", "--quiet",
                            "--out-dir", dir.file("out")}));
    const auto cert = io::read_cert(dir.file("out/bi-mock__ctx2048__N4.json"));
    CHECK(cert.document.find("provenance")->string_or("rows_sha256", "") == core::sha256_hex(live));
    // A server that does not answer: nothing written, the reason named.
    server.stop();
    r = run_command(bi_run(
        {"workset", "--generator", "spark", "--tokenize", at, "--out", dir.file("none.json")}));
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err,
               Catch::Contains("--tokenize " + at + ": ") && Catch::Contains("nothing written"));
    CHECK_FALSE(fs::exists(dir.file("none.json")));
    r = run_command(bi_run({"workset", "--generator", "spark", "--tokenize", "8080"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--tokenize 8080: expected HOST:PORT"));
}

TEST_CASE("help: one spelling per option, defaults shown right", "[cli][help]") {
    const auto mock = run_command(bi_run({"run-mock", "--help"}));
    CHECK(run_command(bi_run({"help", "run-mock"})).out == mock.out);
    CHECK_THAT(mock.out, Catch::Contains("Scorer id (default: exact)\n"));
    CHECK_THAT(mock.out, !Catch::Contains("(default: \"\")"));
    CHECK_THAT(mock.out, !Catch::Contains("--gate-passes arg"));
    CHECK(mock.out.rfind("Output options") > mock.out.rfind("Mock server options"));
    const auto live = run_command(bi_run({"run-live", "--help"}));
    CHECK_THAT(live.out, Catch::Contains("the model's whole name"));
    CHECK_THAT(run_command(bi_run({"sweep", "--help"})).out,
               Catch::Contains("Contexts per slot, in tokens: a comma-separated"));
    CHECK_THAT(run_command(bi_run({"--help"})).out, Catch::Contains("bi-run --version"));
    CHECK_THAT(run_command(bi_run({"report", "--help"})).out, Catch::Contains("2 usage error"));
}

TEST_CASE("errors: one prefix, the option named, ASCII quotes", "[cli][errors]") {
    auto r = run_command(bi_run({"verify-cert"}));
    CHECK(r.err == "bi-run verify-cert: name at least one cert file\n");
    r = run_command(bi_run({"report"}));
    CHECK(r.err == "bi-run report: name certs or directories (or --plan)\n");
    r = run_command(bi_run({"run-mock", "--passes", "abc"}));
    CHECK_THAT(r.err, Catch::StartsWith("bi-run run-mock: --passes: 'abc' is not an integer"));
    for (const auto& args : {std::vector<std::string>{"run-mock", "--tick-ms"},
                             std::vector<std::string>{"run-mock", "--quiet=x"},
                             std::vector<std::string>{"plan-n", "--ctx", "1.5"}}) {
        r = run_command(bi_run(args));
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("\xE2\x80") == std::string::npos);  // no typographic quotes
    }
}

TEST_CASE("selftest takes run-live's guard options", "[cli][selftest]") {
    testing::ScratchDir dir;
    auto r = run_command(bi_run({"selftest", "--server-bin", BI_MOCK_SERVER_PATH, "--out-dir",
                                 dir.path(), "--reserved-port", "7", "--port", "7",
                                 "--untouchable-pid", "1", "--max-footprint-gb", "1"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("7") && Catch::Contains("reserved"));
    CHECK_FALSE(fs::exists(dir.file("bi-selftest-f32.gguf")));  // refused before the model
}

TEST_CASE("selftest refuses a kind whose model is not a GGUF, before writing one",
          "[cli][selftest]") {
    testing::ScratchDir dir;
    auto r = run_command(bi_run({"selftest", "--server-bin", BI_MOCK_SERVER_PATH, "--out-dir",
                                 dir.path(), "--server-kind", "vllm"}));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--server-kind vllm: a selftest writes a GGUF model"));
    CHECK_FALSE(fs::exists(dir.file("bi-selftest-f32.gguf")));
}

TEST_CASE("logit drift eps: logprob-only drift below it is not drift, and the cert says so",
          "[cli][aliases]") {
    testing::ScratchDir dir;
    const std::vector<std::string> cell{"run-mock", "--divergence", "logprob", "--logprobs",
                                        "1",        "--passes",     "1",       "--quiet",
                                        "--json"};
    auto r = run_command(bi_run(cell + std::vector<std::string>{"--out-dir", dir.file("exact")}));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::Contains("\"anomaly\":\"logit_drift\""));
    r = run_command(bi_run(
        cell + std::vector<std::string>{"--out-dir", dir.file("eps"), "--logit-drift-eps", "100"}));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    const auto loaded = io::read_cert(dir.file("eps/bi-mock__ctx2048__N4.json"));
    CHECK(run_record(loaded).find("logit_drift_eps")->as_double() == 100.0);
    CHECK(
        run_command(bi_run({"verify-cert", dir.file("eps/bi-mock__ctx2048__N4.json")})).exit_code ==
        3);  // reads back as a consistent cert (mock: not promotable)
}
