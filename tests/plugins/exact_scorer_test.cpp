// The bundled exact scorer, loaded the way bi-run loads it: from beside the executable,
// through dlopen.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "plugin_host/bundled_plugins.hpp"
#include "plugin_host/plugin_set.hpp"
#include "scratch_dir.hpp"

using bi::core::Json;

namespace {

bi::plugin_host::ScoreOutcome score(const Json& expected,
                                    const bi::plugin_host::Generation& generation) {
    bi::plugin_host::PluginSet plugins;
    plugins.load_bundled();
    bi::core::WorkItem item;
    item.test_id = "m|1|f|0.500000|0|fill0.00";
    item.expected_answer = expected;
    return plugins.create_scorer("")->evaluate(item, generation);
}

bi::plugin_host::ScoreOutcome score(const Json& expected, std::string_view completion) {
    bi::plugin_host::Generation generation;
    generation.content = completion;
    return score(expected, generation);
}

Json weather_call(const char* city) {
    Json call = Json::object();
    call.set("type", "function");
    call["function"].set("name", "get_weather");
    call["function"].set("arguments", std::string(R"({"city":")") + city + "\"}");
    return Json(Json::Array{call});
}

}  // namespace

TEST_CASE("the bundled plugins are found beside the executable", "[exact]") {
    bi::plugin_host::PluginSet plugins;
    plugins.load_bundled();
    const auto infos = plugins.list();
    REQUIRE_FALSE(infos.empty());
    CHECK(infos[0].name == "exact");
    CHECK(infos[0].bundled);
    CHECK(infos[0].version == BI_PROJECT_VERSION);
    CHECK(plugins.has_scorer(bi::plugin_host::kDefaultScorerId));
    const auto dirs = bi::plugin_host::bundled_plugin_dirs();
    REQUIRE_FALSE(dirs.empty());
    CHECK(infos[0].path == dirs[0] + "/libexact.so");
}

TEST_CASE("a missing bundled exact plugin is a clear error", "[exact]") {
    const bi::testing::ScratchDir empty;
    bi::plugin_host::PluginSet plugins;
    try {
        plugins.load_bundled({empty.path()});
        FAIL("load_bundled succeeded without libexact.so");
    } catch (const bi::Error& e) {
        CHECK(std::string(e.what()) ==
              "bi: the bundled plugin libexact.so is in none of: " + empty.path());
    }
}

TEST_CASE("exact: stripped completion equals stripped expected answer", "[exact]") {
    const auto right = score("Paris", "  Paris \n");
    CHECK(right.extracted_answer == Json("Paris"));
    CHECK(right.failure_mode == bi::core::FailureMode::Ok);
    CHECK(right.score == 1.0);
    CHECK(right.passed);

    CHECK(score(" Paris ", "Paris").passed);  // the expected answer is stripped too
    const auto wrong = score("Paris", "paris");
    CHECK(wrong.extracted_answer == Json("paris"));
    CHECK(wrong.failure_mode ==
          bi::core::FailureMode::Ok);  // a wrong answer is still a genuinely scored one
    CHECK(wrong.score == 0.0);
    CHECK_FALSE(wrong.passed);
}

TEST_CASE("exact: blank completions are 'empty'", "[exact]") {
    const auto blank = score("Paris", " \t\r\n");
    CHECK(blank.extracted_answer == Json(""));
    CHECK(blank.failure_mode == bi::core::FailureMode::Empty);
    CHECK_FALSE(blank.passed);
}

TEST_CASE("exact: non-string expected answers compare by their JSON text", "[exact]") {
    CHECK(score(42, " 42\n").passed);
    CHECK_FALSE(score(42, "42.0").passed);
    CHECK(score(true, "true").passed);
    CHECK_FALSE(score(nullptr, "null").passed);  // no expected answer: nothing matches
}

TEST_CASE("exact: text with quotes, escapes and UTF-8 round-trips", "[exact]") {
    const std::string text = "say \"hi\"\\ \xc3\xa9\xf0\x9f\x98\x80 \x01 end";
    const auto outcome = score(text, "\n" + text + " ");
    CHECK(outcome.extracted_answer == Json(text));
    CHECK(outcome.passed);
}

TEST_CASE("exact: a plain completion's answer ignores its token count and stop reason", "[exact]") {
    bi::plugin_host::Generation generation;
    generation.content = " Paris";
    generation.completion_tokens = 2;
    generation.stop_reason = "stop";
    const auto outcome = score("Paris", generation);
    CHECK(outcome.extracted_answer == Json("Paris"));  // what it always was: goldens stay put
    CHECK(outcome.passed);
}

TEST_CASE("exact: reasoning and tool calls join the extracted answer", "[exact]") {
    bi::plugin_host::Generation generation;
    generation.content = " Paris\n";
    generation.reasoning = "\nThe capital of \"France\".\n";
    const auto reasoned = score("Paris", generation);
    Json expected = Json::object();
    expected.set("content", "Paris");
    expected.set("reasoning", "The capital of \"France\".");
    expected.set("tool_calls", Json());
    CHECK(reasoned.extracted_answer == expected);
    CHECK(reasoned.failure_mode == bi::core::FailureMode::Ok);
    CHECK(reasoned.passed);  // the score still looks at the content only

    generation.tool_calls = weather_call("Paris");
    expected.set("tool_calls", weather_call("Paris"));
    CHECK(score("Paris", generation).extracted_answer == expected);
    generation.tool_calls = weather_call("Lyon");
    CHECK(score("Paris", generation).extracted_answer != expected);  // the gate sees the change
}

TEST_CASE("exact: a tool-call-only answer is scored, a reasoning-only one is empty", "[exact]") {
    bi::plugin_host::Generation calls;
    calls.tool_calls = weather_call("Paris");
    const auto called = score("Paris", calls);
    CHECK(called.failure_mode == bi::core::FailureMode::Ok);
    CHECK_FALSE(called.passed);
    REQUIRE(called.extracted_answer.is_object());
    CHECK(*called.extracted_answer.find("content") == Json(""));
    CHECK(*called.extracted_answer.find("reasoning") == Json(""));
    CHECK(*called.extracted_answer.find("tool_calls") == weather_call("Paris"));

    bi::plugin_host::Generation thought;
    thought.reasoning = "still thinking when the length limit hit";
    CHECK(score("Paris", thought).failure_mode == bi::core::FailureMode::Empty);
}
