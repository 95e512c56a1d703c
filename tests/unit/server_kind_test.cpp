// Server kind files: what a valid one gives, every way one can be wrong (each refused naming the
// file and key), placeholders, and how a name is resolved (a kind file by path, NAME.toml in a
// user directory, the shipped kinds).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/server_kind.hpp"
#include "driver/server_kinds.hpp"
#include "io/server_kind_io.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

const std::string kValid = R"(schema = "bi-server-kind/1"
name = "my-server"
description = "a test kind"
[launch]
argv = ["--weights", "{model}", "--listen", "{host}:{port}", "--slots-n", "{n}", "--ctx={ctx_total}"]
managed_flags = ["--listen"]
)";

std::string problem(const std::string& text) {
    try {
        io::parse_server_kind(text, "k.toml");
    } catch (const Error& e) {
        CHECK(e.category() == ErrorCategory::Input);
        return e.what();
    }
    return "(accepted)";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("server kind: a valid file fills its templates", "[server-kind]") {
    const auto kind = io::parse_server_kind(kValid, "k.toml");
    CHECK(kind.name == "my-server");
    CHECK(kind.source == "k.toml");
    CHECK(kind.sha256.size() == 64);
    core::LaunchValues values;
    values.model = "/m.gguf";
    values.port = 8080;
    values.n = 4;
    values.ctx = 1024;
    CHECK(core::launch_argv(kind, "/bin/s", values, {"-x"}) ==
          std::vector<std::string>{"/bin/s", "--weights", "/m.gguf", "--listen", "127.0.0.1:8080",
                                   "--slots-n", "4", "--ctx=4096", "-x"});
    CHECK_THROWS_WITH(core::check_user_flags(kind, {"--listen=0.0.0.0:1"}),
                      Catch::Contains("itself"));
}

TEST_CASE("server kind: every way a file can be wrong is refused, naming it", "[server-kind]") {
    const std::pair<std::string, std::string> cases[] = {
        {replaced(kValid, "bi-server-kind/1", "bi-server-kind/9"), "schema 'bi-server-kind/9'"},
        {replaced(kValid, "schema = \"bi-server-kind/1\"\n", ""), "schema ''"},
        {replaced(kValid, "my-server", "my server"), "name 'my server'"},
        {replaced(kValid, "description", "descripton"), "unknown key 'descripton'"},
        {replaced(kValid, "managed_flags", "managed"), "unknown key 'managed' in [launch]"},
        {replaced(kValid, "{ctx_total}", "{ctx_totl}"), "unknown placeholder {ctx_totl}"},
        {replaced(kValid, "{ctx_total}", "{ctx_total"), "unknown placeholder {ctx_total"},
        {replaced(kValid, "\"{host}:{port}\"", "\"{host}\""), "never uses {port}"},
        {replaced(kValid, "\"{n}\"", "\"4\""), "never uses {n}"},
        {replaced(kValid, "\"{model}\"", "\"m.gguf\""), "never uses {model}"},
        {replaced(kValid, "[launch]", "[lunch]"), "unknown key 'lunch'"},
        {"schema = \"bi-server-kind/1\"\nname = \"x\"\n", "no [launch] table"},
        {replaced(kValid, "argv = [", "argv = [1, "), "launch.argv must be an array of strings"},
        {"name = [", "invalid TOML"},
    };
    for (const auto& [text, message] : cases) {
        INFO(message);
        const auto what = problem(text);
        CHECK_THAT(what, Catch::Contains("k.toml") && Catch::Contains(message));
    }
}

TEST_CASE("server kind: placeholders", "[server-kind]") {
    CHECK(core::unknown_placeholder("-c={ctx}") == "");
    CHECK(core::unknown_placeholder("{nope}") == "{nope}");
    CHECK(core::unknown_placeholder("a{") == "{");
    core::LaunchValues v;
    v.n = 3;
    v.ctx = 10;
    CHECK(core::fill_placeholders("{n}x{ctx}={ctx_total}", v) == "3x10=30");
}

TEST_CASE("server kind: the shipped kinds read, and a name resolves user files first",
          "[server-kind]") {
    const auto& shipped = driver::builtin_server_kinds();
    REQUIRE(shipped.size() >= 2);
    for (const auto& kind : shipped) CHECK_THAT(kind.source, Catch::StartsWith("built-in:"));
    CHECK(driver::resolve_server_kind("llama-server", {}).source == "built-in:llama-server.toml");

    testing::ScratchDir dir;
    dir.write("my-server.toml", kValid);
    // A bare name is looked up in the directories given; a path is read as it is.
    CHECK(driver::resolve_server_kind("my-server", {dir.path()}).name == "my-server");
    CHECK(driver::resolve_server_kind(dir.file("my-server.toml"), {}).name == "my-server");
    // A user's file shadows a shipped kind of the same name.
    dir.write("llama-server.toml", replaced(kValid, "my-server", "llama-server"));
    CHECK(driver::resolve_server_kind("llama-server", {dir.path()}).source ==
          dir.file("llama-server.toml"));
    // A file must be the kind its name says.
    dir.write("other.toml", kValid);
    CHECK_THROWS_WITH(driver::resolve_server_kind("other", {dir.path()}),
                      Catch::Contains("names kind 'my-server', not 'other'"));
    // An unknown name lists every kind it could have been.
    try {
        driver::resolve_server_kind("vllm-x", {dir.path()});
        FAIL("an unknown kind was accepted");
    } catch (const Error& e) {
        CHECK(e.category() == ErrorCategory::Usage);
        CHECK_THAT(e.what(), Catch::Contains("no such server kind") &&
                                 Catch::Contains("ik_llama.cpp") &&
                                 Catch::Contains("llama-server") && Catch::Contains("my-server"));
    }
    CHECK_THROWS_AS(driver::resolve_server_kind(dir.file("missing.toml"), {}), Error);
}

TEST_CASE("server kind: $BI_SERVER_KIND_PATH is searched after --server-kind-dir",
          "[server-kind]") {
    testing::ScratchDir dir;
    dir.write("my-server.toml", kValid);
    ::setenv("BI_SERVER_KIND_PATH", ("/no/such/dir::" + dir.path()).c_str(), 1);
    CHECK(driver::resolve_server_kind("my-server", {}).source == dir.file("my-server.toml"));
    const auto names = driver::known_server_kinds({});
    CHECK(std::find(names.begin(), names.end(), "my-server") != names.end());
    ::unsetenv("BI_SERVER_KIND_PATH");
    CHECK_THROWS_AS(driver::resolve_server_kind("my-server", {}), Error);
}
