// llama-server's command line as run-live builds it: the managed flags, refusal of user flags
// that would override them, and display quoting.
#include <catch2/catch.hpp>

#include "server/argv.hpp"

using namespace bi;

TEST_CASE("argv: the cell decides slots, context, port and endpoints", "[server][argv]") {
    server::ServerCommand cmd{"/bin/llama-server", "/m/model.gguf", {"-t", "8"}};
    const auto a = server::build_argv(cmd, 1, 4096, 8123);
    CHECK(a == std::vector<std::string>{"/bin/llama-server", "-m", "/m/model.gguf", "--host",
                                        "127.0.0.1", "--port", "8123", "-c", "4096", "--parallel",
                                        "1", "--metrics", "--slots", "-t", "8"});
    const auto n = server::build_argv(cmd, 4, 16384, 8123);
    CHECK(n[8] == "16384");
    CHECK(n[10] == "4");
}

TEST_CASE("argv: managed flags are refused in --server-flag", "[server][argv]") {
    CHECK_NOTHROW(server::check_user_flags({"-ngl", "99", "--flash-attn", "on", "-t", "2"}));
    for (const char* flag : {"--port", "--port=1", "-c", "--ctx-size", "-np", "--parallel",
                             "--host", "-m", "--metrics", "--no-slots"})
        CHECK_THROWS_WITH(server::check_user_flags({flag}), Catch::Contains("itself"));
}

TEST_CASE("argv: display quoting", "[server][argv]") {
    CHECK(server::quote_argv({"a", "b c", "it's", ""}) == "a 'b c' 'it'\\''s' ''");
}
