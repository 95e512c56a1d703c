// `bi-run plugins` and `bi-run workset`, run as the real binary: output, files, exit codes.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "built_paths.hpp"
#include "fixture_path.hpp"
#include "io/json_text.hpp"
#include "io/workset.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using bi::testing::fixture;
using bi::testing::run_command;

namespace {

bi::testing::CommandResult bi_run(std::vector<std::string> args) {
    args.insert(args.begin(), BI_RUN_EXE);
    return run_command(args);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("bi-run plugins lists bundled and extra plugins", "[cli]") {
    const auto bundled = bi_run({"plugins"});
    CHECK(bundled.exit_code == 0);
    CHECK(contains(bundled.out, "exact " BI_PROJECT_VERSION " (ABI 1.1, bundled) "));
    CHECK(contains(bundled.out, "  scorer exact - score 1 iff"));
    CHECK(contains(bundled.out, "default scorer: exact\n"));
    CHECK(bundled.err.empty());

    const auto extra =
        bi_run({"plugins", "--plugin", fixture("good_c"), "--plugin", fixture("good_cpp")});
    CHECK(extra.exit_code == 0);
    CHECK(contains(extra.out, "good-c 2.3.4 (ABI 1.1) " + fixture("good_c") + "\n"));
    CHECK(contains(extra.out, "  scorer upper - upper-cases the answer\n"));
    CHECK(contains(extra.out, "  generator counting - numbered rows\n"));
    CHECK(contains(extra.out, "good-cpp 0.9.0 (ABI 1.1) "));
    CHECK(contains(extra.out, "  generator codes - codes to remember\n"));
}

TEST_CASE("bi-run plugins reports a bad plugin in one line and exits 2", "[cli]") {
    const auto path = fixture("broken_abi_major");
    const auto result = bi_run({"plugins", "--plugin", path});
    CHECK(result.exit_code == 2);
    CHECK(result.err == "bi-run plugins: " + path + ": incompatible ABI (plugin 2, host 1)\n");

    const auto missing = bi_run({"plugins", "--plugin", "/nonexistent/libx.so"});
    CHECK(missing.exit_code == 2);
    CHECK(missing.err == "bi-run plugins: /nonexistent/libx.so: no such file\n");

    const auto stray = bi_run({"plugins", "stray"});
    CHECK(stray.exit_code == 2);
    CHECK(stray.err == "bi-run plugins: unexpected argument 'stray'\n");
}

TEST_CASE("bi-run plugins and workset have --help", "[cli]") {
    for (const char* command : {"plugins", "workset"}) {
        const auto help = bi_run({command, "--help"});
        CHECK(help.exit_code == 0);
        CHECK(contains(help.out, std::string("bi-run ") + command));
        CHECK(contains(help.out, "--plugin"));
    }
    CHECK(contains(bi_run({"workset", "--help"}).out, "--generator-param"));
}

TEST_CASE("bi-run workset writes a generator's rows to stdout", "[cli]") {
    const auto result =
        bi_run({"workset", "--plugin", fixture("good_c"), "--generator", "counting", "--model-id",
                "m", "--ctx", "1000", "--seed", "7", "--generator-param", "rows=2"});
    REQUIRE(result.exit_code == 0);
    const auto rows = bi::io::rows_from_json(bi::io::parse_json(result.out, "stdout"), "stdout");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].prompt == "row 0 of model m, seed 7");
    CHECK(rows[0].fill == 0.006);  // no server: the plugin's own estimate
    CHECK(rows[1].expected_answer == bi::core::Json(1));
}

TEST_CASE("bi-run workset --out writes the file, byte-identical on a rerun", "[cli]") {
    const bi::testing::ScratchDir dir;
    const auto out = dir.file("ws.json");
    const std::vector<std::string> args = {
        "workset", "--plugin", fixture("good_cpp"), "--generator", "codes",
        "--seed",  "3",        "--generator-param", "rows=3",      "--out",
        out};
    const auto first = bi_run(args);
    REQUIRE(first.exit_code == 0);
    CHECK(first.out.empty());
    CHECK(first.err == "bi-run workset: wrote 3 rows to " + out + "\n");
    const std::string text = bi::testing::read_text(out);
    CHECK(bi::io::load_workset_file(out).size() == 3);
    struct stat info {};
    REQUIRE(::stat(out.c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0644);

    REQUIRE(bi_run(args).exit_code == 0);
    CHECK(bi::testing::read_text(out) == text);
}

TEST_CASE("generator parameters keep commas inside a value", "[cli]") {
    // "rows=2,5" reaches the generator as one value "2,5"; strtol reads 2.
    const auto result = bi_run({"workset", "--plugin", fixture("good_c"), "--generator", "counting",
                                "--generator-param", "rows=2,5"});
    REQUIRE(result.exit_code == 0);
    CHECK(bi::io::parse_json(result.out, "stdout").size() == 2);
}

TEST_CASE("bi-run workset errors: usage 2, generator failure 1", "[cli]") {
    const auto no_generator = bi_run({"workset"});
    CHECK(no_generator.exit_code == 2);
    CHECK(no_generator.err == "bi-run workset: --generator is required\n");

    const auto unknown = bi_run({"workset", "--generator", "nope"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err ==
          "bi-run workset: no generator 'nope' in the loaded plugins (generators: spark)\n");

    const auto bad_param = bi_run({"workset", "--plugin", fixture("good_c"), "--generator",
                                   "counting", "--generator-param", "rows"});
    CHECK(bad_param.exit_code == 2);
    CHECK(bad_param.err == "bi-run workset: --generator-param 'rows': expected KEY=VALUE\n");

    const auto bad_ctx = bi_run({"workset", "--generator", "counting", "--ctx", "0"});
    CHECK(bad_ctx.exit_code == 2);
    CHECK(bad_ctx.err == "bi-run workset: --ctx must be at least 1\n");

    const bi::testing::ScratchDir dir;
    const auto out = dir.file("ws.json");
    const auto failed = bi_run({"workset", "--plugin", fixture("good_c"), "--generator", "counting",
                                "--generator-param", "fail=1", "--out", out});
    CHECK(failed.exit_code == 1);
    CHECK(failed.err == "bi-run workset: " + fixture("good_c") +
                            ": generator 'counting': generate failed with status 1 (error): "
                            "asked to fail\n");
    struct stat info {};
    CHECK(::stat(out.c_str(), &info) != 0);  // nothing written
}
