// Runs the real bi-bench with --quick: it must exit 0 and report every measurement in its table
// and its JSON line, each with a setup and, where the project has one, a target.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "built_paths.hpp"
#include "core/json.hpp"
#include "io/json_text.hpp"
#include "run_command.hpp"

using bi::testing::run_command;

namespace {

// The last non-empty line of stdout: --json prints exactly one.
std::string last_line(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    std::string last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    return last;
}

}  // namespace

TEST_CASE("bi-bench --quick --json reports every measurement", "[bench]") {
    const auto r = run_command({BI_BENCH_PATH, "--quick", "--json"});
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);

    // The table goes to stderr when stdout carries the JSON.
    for (const char* header : {"MEASUREMENT", "RESULT", "TARGET", "MET", "setup:"})
        CHECK_THAT(r.err, Catch::Contains(header));

    const bi::core::Json root = bi::io::parse_json(last_line(r.out), "bi-bench --json");
    CHECK(root.string_or("tool", "") == "bi-bench");
    CHECK(root.bool_or("quick", false));
    REQUIRE(root.find("cpus"));
    REQUIRE(root.find("load_average_start"));
    CHECK(root.find("load_average_start")->size() == 3);
    const bi::core::Json* list = root.find("measurements");
    REQUIRE(list);
    REQUIRE(list->is_array());

    std::set<std::string> keys;
    for (const bi::core::Json& m : list->as_array()) {
        const std::string key = m.string_or("key", "");
        INFO("measurement " << key);
        keys.insert(key);
        for (const char* field : {"title", "value", "unit", "setup", "target", "met", "load_1m"})
            CHECK(m.find(field));
        REQUIRE(m.find("value"));
        CHECK(m.find("value")->is_number());
        CHECK(!m.string_or("setup", "").empty());
        REQUIRE(m.find("details"));
        CHECK(m.find("details")->is_object());
        // A target, when present, comes with a yes/no verdict on it.
        REQUIRE(m.find("target"));
        REQUIRE(m.find("met"));
        CHECK(m.find("target")->is_null() == m.find("met")->is_null());
    }
    for (const char* expected :
         {"driver_rss", "verdict_speed", "dispatch_in_process_n4", "dispatch_in_process_n16",
          "dispatch_external_n4", "dispatch_external_n16", "mock_completions_c8", "mock_health_c8"})
        CHECK(keys.count(expected) == 1);
}

TEST_CASE("bi-bench prints its table on stdout without --json", "[bench]") {
    const auto r = run_command({BI_BENCH_PATH, "--quick", "--only", "verdict"});
    INFO("stderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    for (const char* header : {"MEASUREMENT", "RESULT", "TARGET", "MET"})
        CHECK_THAT(r.out, Catch::Contains(header));
    CHECK_THAT(r.out, Catch::Contains("decide_verdict"));
    CHECK_THAT(r.out, Catch::Contains("setup:"));
}

TEST_CASE("bi-bench refuses bad flags with exit 2", "[bench]") {
    CHECK(run_command({BI_BENCH_PATH, "--trials", "0"}).exit_code == 2);
    CHECK(run_command({BI_BENCH_PATH, "--only", "everything"}).exit_code == 2);
    const auto r = run_command({BI_BENCH_PATH, "--only", "everything"});
    CHECK_THAT(r.err, Catch::Contains("--only"));
}
