// End to end: bi-run with --plugin libspark.so and --profile spark (or --generator/--scorer
// spark) against the mock, which echoes each row's reference answer when asked (echo=1), so
// the spark scorer really scores answers 1; run-live with bi-mock-server standing in; and the
// rules that decide what --profile means.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "built_paths.hpp"
#include "core/cert.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

struct Run {
    testing::CommandResult result;
    core::Json cert;  // null when none was written
};

Run run_bi(const std::string& command, const testing::ScratchDir& dir,
           const std::vector<std::string>& extra, const std::string& model = "bi-mock") {
    std::vector<std::string> argv{BI_RUN_PATH,   command, "--out-dir", dir.file("out"),
                                  "--ctx",       "1024",  "--passes",  "2",
                                  "--n-predict", "160",   "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    Run run;
    run.result = run_command(argv);
    const auto path = dir.file("out/" + core::cert_file_name(model, 1024, 4));
    if (std::filesystem::exists(path)) {
        const auto loaded = io::read_cert(path);
        REQUIRE(loaded.digest_intact);
        run.cert = loaded.document;
    }
    return run;
}

std::string str(const core::Json& json, const char* key) {
    const core::Json* v = json.find(key);
    return v && v->is_string() ? v->as_string() : "";
}

std::int64_t ok_in(const core::Json& cert, const char* arm) {
    return cert.find("completion_floor")->find("arms")->find(arm)->find("n_ok")->as_int();
}

}  // namespace

TEST_CASE("spark e2e: run-mock --plugin libspark.so --profile spark, echoed answers", "[spark]") {
    testing::ScratchDir dir;
    const auto run = run_bi("run-mock", dir,
                            {"--plugin", BI_SPARK_PLUGIN, "--profile", "spark", "--generator-param",
                             "echo=1", "--tick-ms", "5"});
    INFO(run.result.err << run.result.out);
    CHECK(run.result.exit_code == 0);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green");
    const core::Json& settings = *run.cert.find("run");
    CHECK(str(settings, "profile") == "spark");
    CHECK(str(settings, "scorer") == "spark");
    CHECK(str(settings, "generator") == "spark");
    CHECK(settings.find("n_items")->as_int() == 40);
    // Every trial was a genuinely scored completion.
    CHECK(ok_in(run.cert, "A") == 40);
}

TEST_CASE("spark e2e: co-batching divergence turns echoed right answers wrong", "[spark]") {
    testing::ScratchDir dir;
    const auto run =
        run_bi("run-mock", dir,
               {"--plugin", BI_SPARK_PLUGIN, "--generator", "spark", "--scorer", "spark",
                "--generator-param", "echo=1", "--divergence", "score", "--tick-ms", "5"});
    INFO(run.result.err);
    CHECK(run.result.exit_code == 3);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "failed");
    CHECK(str(run.cert, "divergence_class") == "co_batching");
    // Arm A scored the echoed answers 1 for every family; co-batched C scored them lower.
    std::set<std::string> families_scored_one;
    for (const auto& pass :
         run.cert.find("divergence_report")->find("AC")->find("per_pass")->as_array())
        for (const auto& row : pass.find("rows")->as_array()) {
            if (str(row, "field") != "score") continue;
            CHECK(row.find("left")->as_double() == 1.0);
            CHECK(row.find("right")->as_double() < 1.0);
            const std::string id = str(row, "test_id");
            families_scored_one.insert(id.substr(id.find("|1024|") + 6, 2));
        }
    CHECK(families_scored_one.size() == 10);
}

TEST_CASE("spark e2e: without echo the mock's words are not answers", "[spark]") {
    testing::ScratchDir dir;
    const auto run =
        run_bi("run-mock", dir,
               {"--profile", "spark", "--generator-param", "families=A2,E2", "--generator-param",
                "corner=short", "--n-predict", "16", "--tick-ms", "5"});
    INFO(run.result.err);
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "status") == "green_unverified");
    CHECK(ok_in(run.cert, "A") == 0);
}

TEST_CASE("spark e2e: run-live --profile spark with bi-mock-server standing in", "[spark]") {
    testing::ScratchDir dir;
    const auto model = dir.file("model.gguf");
    io::write_file_atomically(model, "not really a model");
    const auto run =
        run_bi("run-live", dir,
               {"--server-bin", BI_MOCK_SERVER_PATH, "--model", model, "--model-alias", "m",
                "--profile", "spark", "--generator-param", "echo=1,families=A2,E3,E4"},
               "m");
    INFO(run.result.err);
    CHECK(run.result.exit_code == 3);  // a mock is never promotable
    REQUIRE(run.cert.is_object());
    CHECK(str(run.cert, "source") == "mock");
    CHECK(str(run.cert, "status") == "green");
    CHECK(str(*run.cert.find("run"), "profile") == "spark");
    CHECK(ok_in(run.cert, "A") == 12);
}

TEST_CASE("spark e2e: what --profile means", "[spark]") {
    testing::ScratchDir dir;
    SECTION("run-live with a measurement profile needs --server-bin and --model") {
        const auto run = run_bi("run-live", dir, {"--profile", "spark"});
        CHECK(run.result.exit_code == 2);
        CHECK_THAT(run.result.err, Catch::Contains("measurement profile") &&
                                       Catch::Contains("--server-bin and --model"));
    }
    SECTION("a models.toml alias of the same name wins") {
        const auto model = dir.file("from-toml.gguf");
        io::write_file_atomically(model, "not really a model");
        const auto toml = dir.file("models.toml");
        io::write_file_atomically(toml, "[[models]]\nalias = \"spark\"\ngguf = \"" + model +
                                            "\"\nserver_bin = \"" + BI_MOCK_SERVER_PATH + "\"\n");
        const auto run =
            run_bi("run-live", dir, {"--models-toml", toml, "--profile", "spark", "--dry-run"});
        INFO(run.result.err);
        CHECK(run.result.exit_code == 0);
        CHECK_THAT(run.result.out, Catch::Contains(model));
    }
    SECTION("run-mock: an unknown profile is a usage error") {
        const auto run = run_bi("run-mock", dir, {"--profile", "nothing-like-it"});
        CHECK(run.result.exit_code == 2);
        CHECK_THAT(run.result.err, Catch::Contains("--profile nothing-like-it"));
    }
    SECTION("a profile with --scorer or --generator is ambiguous") {
        const auto run = run_bi("run-mock", dir, {"--profile", "spark", "--scorer", "exact"});
        CHECK(run.result.exit_code == 2);
        CHECK_THAT(run.result.err, Catch::Contains("leave out --generator and --scorer"));
    }
    SECTION("with --workset the profile's scorer scores the file's rows") {
        const auto ws = dir.file("ws.json");
        const auto made =
            run_command({BI_RUN_PATH, "workset", "--generator", "spark", "--ctx", "1024",
                         "--generator-param", "families=B1,echo=1", "--out", ws});
        REQUIRE(made.exit_code == 0);
        const auto run =
            run_bi("run-mock", dir, {"--profile", "spark", "--workset", ws, "--tick-ms", "5"});
        INFO(run.result.err);
        REQUIRE(run.cert.is_object());
        CHECK(str(*run.cert.find("run"), "workset") == ws);
        CHECK(str(*run.cert.find("run"), "scorer") == "spark");
        CHECK(ok_in(run.cert, "A") == 4);
    }
}
