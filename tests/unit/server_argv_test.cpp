// Server command lines as run-live builds them from a server kind: the managed flags, refusal of
// user flags that would override them, and display quoting.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "driver/server_kinds.hpp"
#include "server/argv.hpp"

using namespace bi;

namespace {

server::ServerCommand command(const std::string& kind) {
    return {
        "/bin/llama-server", "/m/model.gguf", {"-t", "8"}, driver::resolve_server_kind(kind, {})};
}

}  // namespace

TEST_CASE("argv: the cell decides slots, context, port and endpoints", "[server][argv]") {
    const auto cmd = command("llama-server");
    const auto a = server::build_argv(cmd, 1, 4096, 8123);
    CHECK(a == std::vector<std::string>{"/bin/llama-server", "-m", "/m/model.gguf", "--host",
                                        "127.0.0.1", "--port", "8123", "-c", "4096", "--parallel",
                                        "1", "--metrics", "--slots", "-t", "8"});
    const auto n = server::build_argv(cmd, 4, 16384, 8123);
    CHECK(n[8] == "16384");
    CHECK(n[10] == "4");
}

TEST_CASE("argv: ik_llama.cpp has no --slots and its host-memory prompt cache is off",
          "[server][argv]") {
    const auto argv = server::build_argv(command("ik_llama.cpp"), 4, 8192, 9000);
    CHECK(argv == std::vector<std::string>{"/bin/llama-server", "-m", "/m/model.gguf", "--host",
                                           "127.0.0.1", "--port", "9000", "-c", "8192",
                                           "--parallel", "4", "--metrics", "--cache-ram", "0", "-t",
                                           "8"});
}

TEST_CASE("argv: managed flags are refused in --server-flag", "[server][argv]") {
    const auto kind = driver::resolve_server_kind("llama-server", {});
    CHECK_NOTHROW(core::check_user_flags(kind, {"-ngl", "99", "--flash-attn", "on", "-t", "2"}));
    for (const char* flag : {"--port", "--port=1", "-c", "--ctx-size", "-np", "--parallel",
                             "--host", "-m", "--metrics", "--no-slots"})
        CHECK_THROWS_WITH(core::check_user_flags(kind, {flag}),
                          Catch::Contains("itself") && Catch::Contains("llama-server"));
    const auto ik = driver::resolve_server_kind("ik_llama.cpp", {});
    CHECK_THROWS_WITH(core::check_user_flags(ik, {"--cache-ram=8192"}), Catch::Contains("itself"));
}

TEST_CASE("argv: a kind that was never read cannot launch", "[server][argv]") {
    server::ServerCommand cmd{"/bin/x", "/m", {}, core::ServerKind{}};
    CHECK_THROWS_AS(server::build_argv(cmd, 1, 16, 1), Error);
}

TEST_CASE("argv: display quoting", "[server][argv]") {
    CHECK(server::quote_argv({"a", "b c", "it's", ""}) == "a 'b c' 'it'\\''s' ''");
}
