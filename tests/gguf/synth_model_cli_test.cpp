// Runs the real `bi-run synth-model`: bad arguments exit 2 and write nothing; a good run writes
// a GGUF file and prints a summary that matches it.
#include <catch2/catch.hpp>

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "core/sha256.hpp"
#include "gguf_reader.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using bi::testing::run_command;

namespace {

bi::testing::CommandResult synth(const std::vector<std::string>& args) {
    std::vector<std::string> argv{BI_RUN_PATH, "synth-model"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv);
}

std::size_t entry_count(const std::string& dir) {
    std::size_t count = 0;
    DIR* handle = ::opendir(dir.c_str());
    REQUIRE(handle != nullptr);
    while (const dirent* entry = ::readdir(handle)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") ++count;
    }
    ::closedir(handle);
    return count;
}

}  // namespace

TEST_CASE("synth-model: a good run writes the model and summarises it", "[cli][synth-model]") {
    bi::testing::ScratchDir dir;
    const std::string path = dir.file("tiny.gguf");
    const auto r =
        synth({"--out",   path,         "--embd", "64",   "--layers",      "2",     "--heads",
               "2",       "--kv-heads", "1",      "--ff", "128",           "--ctx", "1024",
               "--dtype", "f16",        "--seed", "3",    "--vocab-words", "100"});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.err.empty());
    const std::string bytes = bi::io::read_file(path);
    const auto f = bi::testing::parse_gguf(bytes);
    CHECK(f.at("general.architecture").s == "llama");
    CHECK(f.at("llama.embedding_length").u == 64);
    CHECK(f.at("llama.block_count").u == 2);
    CHECK(f.at("llama.attention.head_count_kv").u == 1);
    CHECK(f.at("llama.context_length").u == 1024);
    CHECK(f.at("general.file_type").u == 1);
    CHECK(f.at("bi.synth.seed").u == 3);
    CHECK(f.tensor("blk.0.attn_q.weight").type == 1);
    // One line: path, size, parameters, sha256 prefix.
    CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    CHECK_THAT(r.out, Catch::Contains(path) &&
                          Catch::Contains("(" + std::to_string(bytes.size()) + " bytes)") &&
                          Catch::Contains(" parameters") &&
                          Catch::Contains("sha256 " + bi::core::sha256_hex(bytes).substr(0, 12)));
    CHECK(entry_count(dir.path()) == 1);
}

TEST_CASE("synth-model: defaults, and a rerun gives identical bytes", "[cli][synth-model]") {
    bi::testing::ScratchDir dir;
    REQUIRE(synth({"--out", dir.file("a.gguf")}).exit_code == 0);
    REQUIRE(synth({"--out", dir.file("b.gguf")}).exit_code == 0);
    const std::string a = bi::io::read_file(dir.file("a.gguf"));
    CHECK(a == bi::io::read_file(dir.file("b.gguf")));
    const auto f = bi::testing::parse_gguf(a);
    CHECK(f.at("llama.embedding_length").u == 256);
    CHECK(f.at("llama.block_count").u == 4);
    CHECK(f.at("llama.feed_forward_length").u == 704);
    CHECK(f.at("llama.context_length").u == 4096);
    CHECK(f.at("general.file_type").u == 0);
    REQUIRE(synth({"--out", dir.file("c.gguf"), "--seed", "2"}).exit_code == 0);
    CHECK(bi::io::read_file(dir.file("c.gguf")) != a);
}

TEST_CASE("synth-model: bad arguments exit 2 with one line and write nothing",
          "[cli][synth-model]") {
    bi::testing::ScratchDir dir;
    const std::string out = dir.file("m.gguf");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{}, "--out is required"},
        {{"--out", out, "--embd", "250"}, "--embd 250 is not divisible by --heads 4"},
        {{"--out", out, "--heads", "4", "--kv-heads", "3"}, "--kv-heads 3"},
        {{"--out", out, "--embd", "0"}, "--embd must be between"},
        {{"--out", out, "--layers", "-2"}, "--layers must be between"},
        {{"--out", out, "--layers", "100000"}, "--layers must be between"},
        {{"--out", out, "--ff", "0"}, "--ff must be between"},
        {{"--out", out, "--ctx", "0"}, "--ctx must be between"},
        {{"--out", out, "--vocab-words", "99999"}, "--vocab-words must be between"},
        {{"--out", out, "--dtype", "q8_0"}, "--dtype must be f32 or f16"},
        {{"--out", out, "--embd", "many"}, "--embd: 'many' is not an integer"},
        {{"--out", out, "--seed", "-1"}, "--seed: '-1' is not a whole number (0 or more)"},
        {{"--out", out, "--ctx", "12x"}, "--ctx: '12x' is not an integer"},
        {{"--out", out, "--bogus"}, "bogus"},
        {{"--out", out, "stray"}, "unexpected argument 'stray'"},
        {{"--out", dir.file("missing/m.gguf")}, "does not exist"},
        {{"--out", dir.path()}, "is a directory"},
        {{"--out", out, "--embd", "16384", "--layers", "256", "--ff", "65536"}, "parameters"},
    };
    for (const auto& [args, message] : cases) {
        INFO(message);
        const auto r = synth(args);
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::StartsWith("bi-run synth-model: ") && Catch::Contains(message));
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        CHECK(r.out.empty());
        CHECK(entry_count(dir.path()) == 0);
    }
}

TEST_CASE("synth-model: --help, and bi-run lists the command", "[cli][synth-model]") {
    const auto help = synth({"--help"});
    CHECK(help.exit_code == 0);
    CHECK_THAT(help.out, Catch::Contains("--kv-heads") && Catch::Contains("--dtype") &&
                             Catch::Contains("--seed"));
    const auto top = run_command({BI_RUN_PATH, "--help"});
    CHECK_THAT(top.out, Catch::Contains("synth-model"));
}
