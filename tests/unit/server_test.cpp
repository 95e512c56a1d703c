#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "io/files.hpp"
#include "server/argv.hpp"
#include "server/guards.hpp"
#include "server/model_facts.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;

TEST_CASE("argv: the cell decides slots, context, port and endpoints", "[server]") {
    server::ServerCommand cmd{"/bin/llama-server", "/m/model.gguf", {"-t", "8"}};
    const auto a = server::build_argv(cmd, 1, 4096, 8123);
    CHECK(a == std::vector<std::string>{"/bin/llama-server", "-m", "/m/model.gguf", "--host",
                                        "127.0.0.1", "--port", "8123", "-c", "4096", "--parallel",
                                        "1", "--metrics", "--slots", "-t", "8"});
    const auto n = server::build_argv(cmd, 4, 16384, 8123);
    CHECK(n[8] == "16384");
    CHECK(n[10] == "4");
}

TEST_CASE("argv: managed flags are refused in --server-flag", "[server]") {
    CHECK_NOTHROW(server::check_user_flags({"-ngl", "99", "--flash-attn", "on", "-t", "2"}));
    for (const char* flag : {"--port", "--port=1", "-c", "--ctx-size", "-np", "--parallel",
                             "--host", "-m", "--metrics", "--no-slots"})
        CHECK_THROWS_WITH(server::check_user_flags({flag}), Catch::Contains("itself"));
}

TEST_CASE("argv: display quoting", "[server]") {
    CHECK(server::quote_argv({"a", "b c", "it's", ""}) == "a 'b c' 'it'\\''s' ''");
}

TEST_CASE("footprint: KV from the model shape and the cache type", "[server][guards]") {
    server::ModelFacts facts;
    facts.file_bytes = 1ull << 30;
    facts.n_layer = 32;
    facts.n_embd = 4096;
    facts.n_head = 32;
    facts.n_head_kv = 8;
    const auto f = server::project_footprint(facts, 8192, "f16");
    // 2 (K and V) x 32 layers x 8192 positions x (128 x 8) wide x 2 bytes = 1 GiB.
    CHECK(f.kv_bytes == (1ull << 30));
    CHECK(f.kv_estimated_from_shape);
    CHECK(f.overhead_bytes == (256ull << 20) + (1ull << 30) / 20);
    CHECK(server::project_footprint(facts, 8192, "q8_0").kv_bytes == (1ull << 30) * 34 / 64);
    server::ModelFacts unknown;
    unknown.file_bytes = 8192;
    const auto g = server::project_footprint(unknown, 16384, "f16");
    CHECK_FALSE(g.kv_estimated_from_shape);
    CHECK(g.kv_bytes == 16384);
}

TEST_CASE("footprint guard: cap and MemAvailable", "[server][guards]") {
    server::Footprint f;
    f.model_bytes = 3ull << 30;
    server::GuardLimits limits;
    CHECK_NOTHROW(server::check_footprint(f, limits, 4ull << 30));
    CHECK_THROWS_WITH(server::check_footprint(f, limits, 2ull << 30),
                      Catch::Contains("exceeds MemAvailable"));
    limits.max_footprint_gb = 2.5;
    CHECK_THROWS_WITH(server::check_footprint(f, limits, std::nullopt),
                      Catch::Contains("--max-footprint-gb"));
    CHECK(server::mem_available_bytes().has_value());
}

TEST_CASE("ports: reserved ports are never picked", "[server][guards]") {
    server::GuardLimits limits;
    const auto port = server::pick_free_port(limits);
    CHECK(port != 0);
    CHECK(server::port_is_free(port));
    limits.reserved_ports.push_back(port);
    CHECK_THROWS_WITH(server::check_port(port, limits), Catch::Contains("reserved"));
    for (int i = 0; i < 20; ++i) CHECK(server::pick_free_port(limits) != port);
}

TEST_CASE("model facts: GGUF shape read from a synthesised model", "[server]") {
    testing::ScratchDir dir;
    const auto path = dir.file("m.gguf");
    auto r = testing::run_command({BI_RUN_PATH, "synth-model", "--out", path, "--embd", "64",
                                   "--layers", "2", "--heads", "4", "--kv-heads", "2", "--ff",
                                   "128"});
    REQUIRE(r.exit_code == 0);
    const auto facts = server::read_model_facts(path);
    CHECK(facts.architecture == "llama");
    CHECK(facts.n_layer == 2);
    CHECK(facts.n_embd == 64);
    CHECK(facts.n_head == 4);
    CHECK(facts.n_head_kv == 2);
    CHECK(facts.sha256_head.size() == 64);
    io::write_file_atomically(dir.file("junk.gguf"), "GGUF not really");
    CHECK_FALSE(server::read_model_facts(dir.file("junk.gguf")).has_shape());
    CHECK_THROWS_AS(server::read_model_facts(dir.file("absent.gguf")), Error);
}
