// The guards before a server starts: the projected memory footprint against the cap and
// MemAvailable, and free-port picking that never takes a reserved or ephemeral port.
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>

#include "io/server_kind_io.hpp"
#include "scratch_dir.hpp"
#include "server/guards.hpp"
#include "server/model_facts.hpp"

using namespace bi;

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

TEST_CASE("ports: a launched server's port lies outside the ephemeral range", "[server][guards]") {
    // Another process's outgoing connection can take an ephemeral port between bi-run's probe
    // and the server's bind; a port outside that range cannot be taken that way.
    const auto candidates = server::server_port_candidates({32768, 60999});
    CHECK(candidates.size() == (32768 - 20000) + (65535 - 60999));
    CHECK(std::none_of(candidates.begin(), candidates.end(), [](std::uint16_t port) {
        return port < 20000 || (port >= 32768 && port <= 60999);
    }));
    // A range that leaves too few ports outside it: all of them are candidates.
    CHECK(server::server_port_candidates({1024, 65000}).size() == 65536 - 20000);
    const auto [low, high] = server::ephemeral_port_range("/proc/sys/net/ipv4/ip_local_port_range");
    CHECK(low <= high);
    const auto picked = server::pick_free_port(server::GuardLimits{});
    if (high - low < 40000) CHECK((picked < low || picked > high));
    testing::ScratchDir dir;
    CHECK(server::ephemeral_port_range(dir.write("range", "40000\t50000\n")) ==
          std::pair<std::uint16_t, std::uint16_t>{40000, 50000});
    CHECK(server::ephemeral_port_range(dir.write("bad", "x")) ==
          std::pair<std::uint16_t, std::uint16_t>{32768, 60999});
    CHECK(server::ephemeral_port_range(dir.file("missing")) ==
          std::pair<std::uint16_t, std::uint16_t>{32768, 60999});
}

TEST_CASE("a model without a readable shape gets a bounded context, not an unchecked one",
          "[server][guards]") {
    server::ModelFacts shapeless;
    shapeless.path = "m.gguf";
    CHECK_NOTHROW(server::check_context_without_shape(shapeless, server::kMaxContextWithoutShape));
    CHECK_THROWS_WITH(
        server::check_context_without_shape(shapeless, server::kMaxContextWithoutShape + 1),
        Catch::Contains("model m.gguf: its GGUF shape (layers, heads) is unreadable"));
    server::ModelFacts shaped = shapeless;
    shaped.n_layer = 2;
    shaped.n_embd = 64;
    shaped.n_head = 4;
    CHECK_NOTHROW(server::check_context_without_shape(shaped, 4096 * 4096));
}

TEST_CASE("the KV footprint follows the cache types the server's flags set", "[guards]") {
    const auto& llama = io::default_server_kind().flags;  // llama-server's kind file
    CHECK_FALSE(server::kv_cache_from_flags(llama, {"-t", "4"}));
    CHECK(server::kv_cache_from_flags(llama, {"-ctk", "q8_0", "-ctv", "q8_0"})->types == "q8_0");
    // Upstream's labels name the K type when V is left alone; the footprint knows V is f16.
    CHECK(server::kv_cache_from_flags(llama, {"-ctk", "q8_0"})->label == "q8_0");
    CHECK(server::kv_cache_from_flags(llama, {"-ctk", "q8_0"})->types == "q8_0/f16");
    CHECK(server::kv_cache_from_flags(llama, {"--cache-type-v=q4_0"})->label == "f16/q4_0");
    CHECK_THROWS_WITH(server::kv_cache_from_flags(llama, {"-ctk", "bogus"}),
                      Catch::Contains("-ctk bogus: unknown KV cache type"));
    server::ModelFacts facts;
    facts.file_bytes = 1 << 20;
    facts.n_layer = 2;
    facts.n_embd = 64;
    facts.n_head = 4;
    const auto f16 = server::project_footprint(facts, 1024, "f16").kv_bytes;
    const auto q8 = server::project_footprint(facts, 1024, "q8_0").kv_bytes;
    const auto mixed = server::project_footprint(facts, 1024, "q8_0/f16").kv_bytes;
    CHECK(q8 < mixed);
    CHECK(mixed < f16);
    CHECK(f16 == 2u * 1024 * (64 + 64) * 2);  // layers x ctx x (K + V widths) x 2 bytes
}
