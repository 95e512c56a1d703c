// Calls into good fixtures (C and C++ helper) and into a throwing one: results, config, host
// services, and every plugin-side failure reported with its exact message.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/work_item.hpp"
#include "fixture_path.hpp"
#include "io/json_text.hpp"
#include "plugin_host/plugin_set.hpp"

using bi::core::Json;
using bi::plugin_host::GenerationRequest;
using bi::plugin_host::PluginSet;
using bi::plugin_host::ScoreOutcome;
using bi::testing::fixture;

namespace {

bi::core::WorkItem item_expecting(Json expected) {
    bi::core::WorkItem item;
    item.test_id = "m|4096|fam|0.500000|0|fill0.10";
    item.prompt = "What is the capital of France?";
    item.family = "fam";
    item.fill = 0.1;
    item.expected_answer = std::move(expected);
    return item;
}

PluginSet load(const std::string& name) {
    PluginSet plugins;
    plugins.set_logger({});  // keep the test output clean
    plugins.load(fixture(name));
    return plugins;
}

std::string error_of(const std::function<void()>& action, bi::ErrorCategory category) {
    try {
        action();
    } catch (const bi::Error& e) {
        CHECK(e.category() == category);
        return e.what();
    }
    FAIL("no bi::Error was thrown");
    return {};
}

void check_scorer_error(const ScoreOutcome& outcome, const std::string& error) {
    CHECK(outcome.failure_mode == bi::core::FailureMode::ScorerError);
    CHECK(outcome.error == error);
    CHECK(outcome.score == 0.0);
    CHECK_FALSE(outcome.passed);
}

}  // namespace

TEST_CASE("list() describes a C plugin", "[plugin-calls]") {
    const PluginSet plugins = load("good_c");
    const auto infos = plugins.list();
    REQUIRE(infos.size() == 1);
    const auto& info = infos[0];
    CHECK(info.path == fixture("good_c"));
    CHECK(info.name == "good-c");
    CHECK(info.version == "2.3.4");
    CHECK(info.description == "a C fixture");
    CHECK(info.abi_major == 1);
    CHECK(info.abi_minor == 1);
    CHECK_FALSE(info.bundled);
    REQUIRE(info.scorers.size() == 1);
    CHECK(info.scorers[0].id == "upper");
    CHECK(info.scorers[0].description == "upper-cases the answer");
    REQUIRE(info.generators.size() == 1);
    CHECK(info.generators[0].id == "counting");
}

TEST_CASE("a C scorer runs extract, classify and score", "[plugin-calls]") {
    const PluginSet plugins = load("good_c");
    auto scorer = plugins.create_scorer("upper", "");

    const auto right = scorer->evaluate(item_expecting("PARIS"), "  paris\n");
    CHECK(right.extracted_answer == Json("PARIS"));
    CHECK(right.failure_mode == bi::core::FailureMode::Ok);
    CHECK(right.score == 1.0);
    CHECK(right.passed);
    CHECK(right.error.empty());

    const auto same_length = scorer->evaluate(item_expecting("PARIS"), "lyons");
    CHECK(same_length.extracted_answer == Json("LYONS"));
    CHECK(same_length.score == 0.5);
    CHECK_FALSE(same_length.passed);

    const auto empty = scorer->evaluate(item_expecting("PARIS"), " \n");
    CHECK(empty.extracted_answer == Json(""));
    CHECK(empty.failure_mode == bi::core::FailureMode::Empty);
    CHECK(empty.score == 0.0);
}

TEST_CASE("the scorer's config reaches create", "[plugin-calls]") {
    const PluginSet plugins = load("good_c");
    auto strict = plugins.create_scorer("upper", R"({"strict": true})");
    CHECK(strict->evaluate(item_expecting("PARIS"), "lyons").score == 0.0);

    const auto path = fixture("good_c");
    CHECK(error_of([&] { plugins.create_scorer("upper", R"({"reject": 1})"); },
                   bi::ErrorCategory::Plugin) ==
          "bi: " + path +
              ": scorer 'upper': create failed with status 2 (invalid argument): config asks to "
              "be rejected");
    CHECK(error_of([&] { plugins.create_scorer("upper", "{oops"); }, bi::ErrorCategory::Usage)
              .rfind("bi: scorer config: invalid JSON at offset 1", 0) == 0);
    CHECK(error_of([&] { plugins.create_scorer("nope"); }, bi::ErrorCategory::Usage) ==
          "bi: no scorer 'nope' in the loaded plugins (scorers: upper)");
}

TEST_CASE("plugin-reported scorer failures become scorer_error", "[plugin-calls]") {
    const PluginSet plugins = load("good_c");
    auto scorer = plugins.create_scorer("upper");
    const std::string prefix = "bi: " + fixture("good_c") + ": scorer 'upper': ";
    const auto item = item_expecting("PARIS");

    const auto failed = scorer->evaluate(item, "FAIL_EXTRACT");
    check_scorer_error(failed, prefix +
                                   "extract_answer failed with status 1 (error): cannot extract "
                                   "from this");
    CHECK(failed.extracted_answer.is_null());

    const auto bad_json = scorer->evaluate(item, "BAD_JSON");
    CHECK(bad_json.failure_mode == bi::core::FailureMode::ScorerError);
    CHECK(bad_json.error.rfind(prefix + "extract_answer's result: invalid JSON at offset", 0) == 0);

    check_scorer_error(scorer->evaluate(item, "NO_LABEL"),
                       prefix + "classify_failure_mode set no failure mode");
    const auto nan = scorer->evaluate(item, "NAN_SCORE");
    check_scorer_error(nan, prefix + "score gave a non-finite score");
    CHECK(nan.extracted_answer == Json("NAN_SCORE"));  // what was extracted is kept

    // The instance is still usable after failures.
    CHECK(scorer->evaluate(item, "paris").passed);
}

TEST_CASE("a scorer reaches the host's logger", "[plugin-calls]") {
    PluginSet plugins;
    std::vector<std::string> lines;
    plugins.set_logger([&](int level, std::string_view plugin, std::string_view message) {
        lines.push_back(std::to_string(level) + " " + std::string(plugin) + " " +
                        std::string(message));
    });
    plugins.load(fixture("good_c"));
    plugins.load(fixture("good_cpp"));
    plugins.create_scorer("upper");
    plugins.create_scorer("length");
    CHECK(lines == std::vector<std::string>{"1 good-c upper scorer created",
                                            "1 good-cpp length scorer ready"});
}

TEST_CASE("a C generator's rows, parameters and token counts", "[plugin-calls]") {
    const PluginSet plugins = load("good_c");
    GenerationRequest request;
    request.model_id = "m";
    request.ctx = 1000;
    request.seed = 7;

    SECTION("with a token counter") {
        const Json rows = plugins.generate(
            "counting", request, [](std::string_view text) { return std::int64_t(text.size()); });
        REQUIRE(rows.size() == 3);
        const std::string prompt0 = "row 0 of model m, seed 7";
        CHECK(rows.as_array()[0] ==
              bi::io::parse_json(R"({"prompt": "row 0 of model m, seed 7", "family": "count",
                                     "fill": 0.024, "expected_answer": 0,
                                     "system": "answer with a number"})",
                                 "expected"));
        CHECK(rows.as_array()[2].find("expected_answer")->as_int() == 2);
        CHECK(rows.as_array()[2].find("system") == nullptr);
    }
    SECTION("without one the plugin estimates") {
        const Json rows = plugins.generate("counting", request);
        CHECK(rows.as_array()[0].find("fill")->as_double() == 0.006);  // 24 bytes / 4 / 1000
    }
    SECTION("a counter that cannot answer also means an estimate") {
        const Json rows =
            plugins.generate("counting", request, [](std::string_view) { return std::nullopt; });
        CHECK(rows.as_array()[0].find("fill")->as_double() == 0.006);
    }
    SECTION("parameters arrive in order") {
        request.parameters = {{"rows", "9"}, {"rows", "5"}};
        CHECK(plugins.generate("counting", request).size() == 5);
    }
    SECTION("rows convert to work rows") {
        const auto rows = plugins.generate_rows("counting", request);
        REQUIRE(rows.size() == 3);
        CHECK(rows[0].system == "answer with a number");
        CHECK(rows[1].family == "count");
        CHECK(rows[1].expected_answer == Json(1));
    }
}

TEST_CASE("generator failures are reported with their exact message", "[plugin-calls]") {
    const PluginSet plugins = load("good_c");
    const std::string prefix = "bi: " + fixture("good_c") + ": generator 'counting': ";
    GenerationRequest request;
    request.model_id = "m";
    request.ctx = 100;

    request.parameters = {{"fail", "1"}};
    CHECK(error_of([&] { plugins.generate("counting", request); }, bi::ErrorCategory::Plugin) ==
          prefix + "generate failed with status 1 (error): asked to fail");

    request.parameters = {{"bad_row", "1"}};
    CHECK(error_of([&] { plugins.generate("counting", request); }, bi::ErrorCategory::Plugin)
              .rfind(prefix + "row 1: expected_answer_json: invalid JSON at offset 3", 0) == 0);

    request.parameters = {{"rows", "0"}};
    CHECK(error_of([&] { plugins.generate("counting", request); }, bi::ErrorCategory::Plugin) ==
          "bi: " + fixture("good_c") + ": generator 'counting' produced no rows");

    CHECK(error_of([&] { plugins.generate("nope", request); }, bi::ErrorCategory::Usage) ==
          "bi: no generator 'nope' in the loaded plugins (generators: counting)");
}

TEST_CASE("a C++ helper plugin scores and generates", "[plugin-calls]") {
    const PluginSet plugins = load("good_cpp");
    auto scorer = plugins.create_scorer("length", R"({"bonus": true})");
    const auto outcome = scorer->evaluate(item_expecting(4), std::string("ab\0c", 4));
    CHECK(outcome.extracted_answer == Json(4));  // the NUL counts: completion_size is honoured
    CHECK(outcome.failure_mode == bi::core::FailureMode::Ok);
    CHECK(outcome.score == 2.0);
    CHECK(outcome.passed);

    GenerationRequest request;
    request.model_id = "tiny";
    request.ctx = 512;
    request.seed = 11;
    request.parameters = {{"rows", "4"}};
    const std::string first = bi::io::to_json_text(plugins.generate("codes", request));
    CHECK(first == bi::io::to_json_text(plugins.generate("codes", request)));
    request.seed = 12;
    CHECK(first != bi::io::to_json_text(plugins.generate("codes", request)));
    CHECK(plugins.generate("codes", request).size() == 4);
}

TEST_CASE("exceptions thrown through the C++ helper become error statuses", "[plugin-calls]") {
    const PluginSet plugins = load("throwing");
    const std::string path = fixture("throwing");
    const std::string prefix = "bi: " + path + ": scorer 'thrower': ";
    auto scorer = plugins.create_scorer("thrower");
    const auto item = item_expecting(nullptr);

    check_scorer_error(scorer->evaluate(item, "throw:extract"),
                       prefix + "extract_answer threw an exception: boom in extract");
    check_scorer_error(scorer->evaluate(item, "throw:classify"),
                       prefix + "classify_failure_mode threw an exception: boom in classify");
    check_scorer_error(scorer->evaluate(item, "throw:score"),
                       prefix + "score threw an exception: boom in score");
    check_scorer_error(scorer->evaluate(item, "int:score"),
                       prefix + "score threw an exception: unknown exception");
    check_scorer_error(scorer->evaluate(item, "fail:score"),
                       prefix + "score failed with status 2 (invalid argument): refused in score");
    CHECK(scorer->evaluate(item, "fine").passed);

    CHECK(error_of([&] { plugins.create_scorer("thrower", R"({"throw": 1})"); },
                   bi::ErrorCategory::Plugin) ==
          prefix + "create threw an exception: config made create throw");

    GenerationRequest request;
    request.model_id = "m";
    request.ctx = 100;
    const std::string gen_prefix = "bi: " + path + ": generator 'thrower-gen': ";
    CHECK(error_of([&] { plugins.generate("thrower-gen", request); }, bi::ErrorCategory::Plugin) ==
          gen_prefix + "generate threw an exception: generator exploded");
    request.parameters = {{"mode", "int"}};
    CHECK(error_of([&] { plugins.generate("thrower-gen", request); }, bi::ErrorCategory::Plugin) ==
          gen_prefix + "generate threw an exception: unknown exception");
}

TEST_CASE("a scorer instance outlives its plugin set", "[plugin-calls]") {
    std::unique_ptr<bi::plugin_host::ScorerInstance> scorer;
    {
        const PluginSet plugins = load("good_c");
        scorer = plugins.create_scorer("upper");
    }
    CHECK(scorer->evaluate(item_expecting("PARIS"), "paris").passed);
}
