// The spark scorer through the real loader, table-driven per family: correct, wrong, empty,
// malformed and adversarial completions, each with its score, failure mode and (where it
// matters) extracted answer; plus the shared failure modes and expected-answer errors.
#include <catch2/catch.hpp>

#include "io/json_text.hpp"
#include "spark_fixture.hpp"

using namespace bi;
using namespace bi::spark_test;

namespace {

struct Case {
    const char* label;
    const char* completion;
    double score;
    const char* mode;
    const char* extracted = nullptr;  // JSON text; nullptr: not checked
};

core::Json json(const std::string& text) {
    return io::parse_json(text, "test");
}

void run_table(const std::string& family, const std::string& expected,
               const std::vector<Case>& cases) {
    for (const auto& c : cases) {
        INFO(family << " / " << c.label << ": " << c.completion);
        const auto outcome = score(family, json(expected), c.completion);
        CHECK(outcome.error == "");
        CHECK(outcome.score == Approx(c.score).margin(1e-12));
        CHECK(outcome.passed == (c.score >= 0.5));
        CHECK(outcome.failure_mode.word() == c.mode);
        CHECK_FALSE(outcome.extracted_answer.is_null());  // always filled
        if (c.extracted) CHECK(core::canonical_equal(outcome.extracted_answer, json(c.extracted)));
    }
}

const char* kA2 = R"({"type":"exact","answer":"KT-4821-QZ","depth":0.5})";

}  // namespace

TEST_CASE("spark scorer A2: quoted span or code token, exact after normalisation", "[spark]") {
    run_table(
        "A2", kA2,
        {
            {"correct", "\"KT-4821-QZ\"", 1, "ok", "\"KT-4821-QZ\""},
            {"correct in prose", "The new deploy key is KT-4821-QZ.", 1, "ok", "\"KT-4821-QZ\""},
            {"markup and case", "**`kt-4821-qz`**", 1, "ok", "\"kt-4821-qz\""},
            {"wrong", "\"KT-4821-QX\"", 0, "ok", "\"KT-4821-QX\""},
            {"empty", "", 0, "empty", "\"\""},
            {"whitespace only", " \n\t ", 0, "empty", "\"\""},
            {"malformed", "I could not find it.", 0, "parse_fail", "\"I could not find it.\""},
            {"adversarial: a decoy quoted first",
             "The old key was \"AB-1111-XY\", the new one "
             "\"KT-4821-QZ\".",
             0, "ok", "\"AB-1111-XY\""},
            {"adversarial: a longer code", "\"KT-4821-QZ-2\"", 0, "ok"},
        });
}

TEST_CASE("spark scorer A4/B1/C1: the last number, compared by value", "[spark]") {
    run_table("A4", R"({"type":"integer","answer":32,"depth":0.3})",
              {
                  {"correct", "32", 1, "ok", "32"},
                  {"correct after working", "5 + 3 = 8, then 8 * 4 = 32. The answer is 32.", 1,
                   "ok", "32"},
                  {"correct as a decimal", "32.0", 1, "ok", "32.0"},
                  {"wrong", "35", 0, "ok", "35"},
                  {"empty", "", 0, "empty"},
                  {"malformed", "thirty-two", 0, "parse_fail", "\"thirty-two\""},
                  {"adversarial: a correction after the answer", "The answer is 32, not 35.", 0,
                   "ok", "35"},
                  {"adversarial: digits inside names do not count", "See BUG-32 and v32.", 0,
                   "parse_fail"},
                  {"negative", "It ends at -32.", 0, "ok", "-32"},
              });
    run_table("B1", R"({"type":"integer","answer":1032,"depth":0.7})",
              {
                  {"thousands separator", "They requested 1,032 boards.", 1, "ok", "1032"},
                  {"plain", "1032", 1, "ok", "1032"},
                  {"a list is not a thousands group", "10,32", 0, "ok", "32"},
              });
    run_table("C1", R"({"type":"integer","answer":41,"depth":0.2})",
              {
                  {"in a code block", "```\n>>> mix_steps(4)\n41\n```", 1, "ok", "41"},
                  {"malformed", "It returns None.", 0, "parse_fail"},
              });
}

TEST_CASE("spark scorer D1: fraction of facts recalled in the bullets", "[spark]") {
    const char* expected = R"({"type":"facts","facts":["17","342","Okafor"],"depth":0.4})";
    run_table(
        "D1", expected,
        {
            {"correct", "- It finished on day 17.\n- It moved 342 tables.\n- Its owner is Okafor.",
             1, "ok",
             R"(["It finished on day 17.","It moved 342 tables.","Its owner is Okafor."])"},
            {"numbered, other case", "1. day 17\n2) 342 tables\n3. owner okafor", 1, "ok"},
            {"two of three", "* Day 17\n* 340 tables\n* Owner: Okafor", 2.0 / 3.0, "ok"},
            {"wrong", "- Day 12\n- 300 tables\n- Owner Smith", 0, "ok"},
            {"empty", "", 0, "empty"},
            {"malformed: prose, no bullets",
             "It finished on day 17, moved 342 tables; owner Okafor.", 0, "parse_fail"},
            {"adversarial: facts inside longer words", "- Day 170\n- 3420 tables\n- Okaforsen", 0,
             "ok"},
        });
}

TEST_CASE("spark scorer E1: fraction of keys recalled, from JSON or key lines", "[spark]") {
    const char* expected =
        R"({"type":"keys","keys":{"max_retries":"41","log_level":"amber","pool_size":"7"}})";
    run_table(
        "E1", expected,
        {
            {"correct JSON", R"({"max_retries": 41, "log_level": "amber", "pool_size": "7"})", 1,
             "ok", R"({"max_retries":"41","log_level":"amber","pool_size":"7"})"},
            {"key lines", "max_retries: 41\nlog_level = Amber\npool_size is 7", 1, "ok",
             R"({"max_retries":"41","log_level":"amber","pool_size":"7"})"},
            {"two of three", R"({"max_retries": 41, "log_level": "cobalt", "pool_size": 7})",
             2.0 / 3.0, "ok"},
            {"wrong", R"({"max_retries": 4, "log_level": "cobalt", "pool_size": 70})", 0, "ok"},
            {"empty", "", 0, "empty"},
            {"malformed", "I do not know these settings.", 0, "parse_fail"},
            {"adversarial: braces inside strings",
             "Here you go: {\"max_retries\": \"41\", "
             "\"log_level\": \"am}ber\", \"pool_size\": 7} - done",
             2.0 / 3.0, "ok"},
        });
}

TEST_CASE("spark scorer E2: typed JSON fields, a bool is not an int", "[spark]") {
    const char* expected = R"({"type":"json","fields":{"ticket":"BUG-5521","reporter":"Okafor",
        "priority":2,"blocking":true,"files":7},"depth":0.6})";
    const char* right =
        R"({"ticket": "BUG-5521", "reporter": "Okafor", "priority": 2, "blocking": true, )"
        R"("files": 7})";
    run_table(
        "E2", expected,
        {
            {"correct", right, 1, "ok",
             R"({"ticket":"BUG-5521","reporter":"Okafor","priority":2,"blocking":true,"files":7})"},
            {"fenced",
             "```json\n{\"ticket\":\"BUG-5521\",\"reporter\":\"Okafor\",\"priority\":2,"
             "\"blocking\":true,\"files\":7}\n```",
             1, "ok"},
            {"wrong types: 1 for true, strings for numbers", R"({"ticket": "BUG-5521", "reporter":
         "Okafor", "priority": "2", "blocking": 1, "files": "7"})",
             0.4, "ok"},
            {"wrong values", R"({"ticket": "BUG-5512", "reporter": "Haddad", "priority": 3,
         "blocking": false, "files": 9})",
             0, "ok"},
            {"empty", "", 0, "empty"},
            {"malformed: trailing comma", R"({"ticket": "BUG-5521", "priority": 2,})", 0,
             "no_valid_json", "\"{\\\"ticket\\\": \\\"BUG-5521\\\", \\\"priority\\\": 2,}\""},
            {"no JSON at all", "The ticket is BUG-5521.", 0, "no_valid_json"},
            {"adversarial: braces and quotes in a string",
             R"({"note": "use {braces} and \"quotes\"",
         "ticket": "BUG-5521", "reporter": "Okafor", "priority": 2, "blocking": true,
         "files": 7})",
             1, "ok"},
            {"adversarial: a decoy object first",
             R"(For example {"example": true}, and the answer: {"ticket": "BUG-5521", )"
             R"("reporter": "Okafor", "priority": 2, "blocking": true, "files": 7})",
             0, "ok", R"({"example":true})"},
        });
}

TEST_CASE("spark scorer E3: tool name, then typed arguments", "[spark]") {
    const char* expected = R"({"type":"tool_call","name":"create_branch","arguments":{
        "repo":"atlas-api","name":"hotfix-212","from_commit":"9f3c2a1","protected":true}})";
    run_table(
        "E3", expected,
        {
            {"correct", R"({"name": "create_branch", "arguments": {"repo": "atlas-api", "name":
         "hotfix-212", "from_commit": "9f3c2a1", "protected": true}})",
             1, "ok",
             R"({"name":"create_branch","arguments":{"repo":"atlas-api","name":"hotfix-212",
         "from_commit":"9f3c2a1","protected":true}})"},
            {"OpenAI shape, arguments as a string",
             R"({"tool_calls": [{"type": "function", "function": {"name": "create_branch", )"
             R"("arguments": "{\"repo\": \"atlas-api\", \"name\": \"hotfix-212\", )"
             R"(\"from_commit\": \"9f3c2a1\", \"protected\": true}"}}]})",
             1, "ok",
             R"({"name":"create_branch","arguments":{"repo":"atlas-api","name":"hotfix-212",
         "from_commit":"9f3c2a1","protected":true}})"},
            {"wrong tool", R"({"name": "open_issue", "arguments": {"repo": "atlas-api"}})", 0,
             "ok"},
            {"two of four arguments", R"({"tool": "create_branch", "args": {"repo": "atlas-api",
         "name": "hotfix-212", "from_commit": "9f3c2a2"}})",
             0.6, "ok"},
            {"a string for a boolean",
             R"({"name": "create_branch", "arguments": {"repo": "atlas-api",
         "name": "hotfix-212", "from_commit": "9f3c2a1", "protected": "true"}})",
             0.8, "ok"},
            {"empty", "", 0, "empty"},
            {"malformed: cut off", R"({"name": "create_branch", "arguments": {"repo": "atl)", 0,
             "no_valid_json"},
            {"JSON that is not a call", R"({"repo": "atlas-api"})", 0, "parse_fail",
             R"({"repo":"atlas-api"})"},
        });
}

TEST_CASE("spark scorer E4: the fixed function by normalised tokens", "[spark]") {
    const char* expected = R"x({"type":"code_fix","function":"sum_upto",
        "fixed":"def sum_upto(n):\n    total = 0\n    for i in range(1, n + 1):\n)x"
                           R"x(        total += i\n    return total",
        "fix":"range(1, n + 1)","bug":"range(1, n)",
        "equivalents":[["range(1, n + 1)","range(n + 1)"],["n + 1","1 + n"]],"depth":0.5})x";
    run_table(
        "E4", expected,
        {
            {"correct",
             "```python\ndef sum_upto(n):\n    total = 0\n    for i in range(1, n + 1):\n"
             "        total += i\n    return total\n```",
             1, "ok",
             "\"def sum_upto(n):\\n    total = 0\\n    for i in range(1, n + 1):\\n        total "
             "+= i"
             "\\n    return total\""},
            {"layout, comments, docstring, spelled-out +=",
             "Here is the fix:\n```py\ndef sum_upto(n):\n  \"\"\"Sum 1..n.\"\"\"\n  total = 0  # "
             "start\n"
             "  for i in range(1, n + 1):\n    total = total + i\n\n  return total\n```\nDone.",
             1, "ok"},
            {"known equivalent forms",
             "```python\ndef sum_upto(n):\n    total = 0\n"
             "    for i in range(1 + n):\n        total += i\n"
             "    return total\n```",
             1, "ok"},
            {"bare code, no fence",
             "def sum_upto(n):\n    total = 0\n    for i in range(1, n + 1):\n"
             "        total += i\n    return total\n",
             1, "ok"},
            {"fixed but rewritten otherwise",
             "```python\ndef sum_upto(n):\n    acc = 0\n"
             "    for i in range(1, n + 1):\n        acc += i\n"
             "    return acc\n```",
             0.5, "ok"},
            {"wrong: still buggy",
             "```python\ndef sum_upto(n):\n    total = 0\n"
             "    for i in range(1, n):\n        total += i\n"
             "    return total\n```",
             0, "ok"},
            {"wrong: another change",
             "```python\ndef sum_upto(n):\n    total = 0\n"
             "    for i in range(0, n):\n        total += i\n"
             "    return total\n```",
             0, "ok"},
            {"empty", "", 0, "empty"},
            {"malformed: no code", "The loop should include n itself.", 0, "parse_fail"},
            {"adversarial: the buggy version first",
             "Before:\n```python\ndef sum_upto(n):\n"
             "    total = 0\n    for i in range(1, n):\n        total += i\n    return total\n```\n"
             "After:\n```python\ndef sum_upto(n):\n    total = 0\n    for i in range(1, n + 1):\n"
             "        total += i\n    return total\n```",
             0, "ok"},
            {"adversarial: another function's name",
             "```python\ndef sum_to(n):\n    total = 0\n"
             "    for i in range(1, n + 1):\n        total += i\n    return total\n```",
             0, "ok"},
        });
}

TEST_CASE("spark scorer E5: the identifier, exact", "[spark]") {
    const char* expected = R"({"type":"identifier","answer":"calc_flint","candidates":
        ["op_jade","calc_flint","util_moss","step_reed","task_vale"],"depth":0.9})";
    run_table(
        "E5", expected,
        {
            {"correct", "calc_flint", 1, "ok", "\"calc_flint\""},
            {"correct with call parens", "`calc_flint()`", 1, "ok", "\"calc_flint\""},
            {"correct in prose", "The matching function is calc_flint.", 1, "ok", "\"calc_flint\""},
            {"wrong", "op_jade", 0, "ok", "\"op_jade\""},
            {"a name not in the module", "calc_stone", 0, "ok", "\"calc_stone\""},
            {"empty", "", 0, "empty"},
            {"malformed", "None of them does that.", 0, "parse_fail"},
            {"adversarial: a decoy named first", "Not op_jade but calc_flint.", 0, "ok",
             "\"op_jade\""},
        });
}

TEST_CASE("spark scorer: reasoning leaks and runaway repetition are labelled, still scored",
          "[spark]") {
    std::string runaway = "\"KT-4821-QZ\"";
    for (int i = 0; i < 40; ++i) runaway += " the key is the key";
    run_table("A2", kA2,
              {
                  {"think block", "<think>maybe \"AB-1111-XY\"</think>\n\"KT-4821-QZ\"", 1,
                   "reasoning_leak", "\"KT-4821-QZ\""},
                  {"closing tag only", "it must be the rotated one</think>\"KT-4821-QZ\"", 1,
                   "reasoning_leak"},
                  {"unclosed reasoning", "<reasoning>the key is \"KT-4821-QZ\" I think", 0,
                   "reasoning_leak", "\"\""},
                  {"repeated words", runaway.c_str(), 1, "runaway_repetition"},
                  {"repeated characters", std::string(200, '!').c_str(), 0, "runaway_repetition"},
              });
}

TEST_CASE("spark scorer: a bad expected answer or unknown family is a scorer error", "[spark]") {
    for (const auto& [family, expected] : std::vector<std::pair<std::string, std::string>>{
             {"Z9", kA2},
             {"A2", R"({"type":"integer","answer":3})"},
             {"A2", R"({"type":"exact"})"},
             {"E4", R"({"type":"code_fix","function":"f","fixed":"x","fix":"x","bug":"y"})"},
             {"E5", R"("calc_flint")"}}) {
        INFO(family << " " << expected);
        const auto outcome = score(family, json(expected), "\"KT-4821-QZ\"");
        CHECK(outcome.failure_mode == core::FailureMode::ScorerError);
        CHECK_THAT(outcome.error, Catch::Contains("spark: "));
        CHECK_FALSE(outcome.passed);
    }
}

TEST_CASE("spark scorer: every generated row's reference answer scores 1", "[spark]") {
    for (const std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
        for (const auto& row : generate(seed, 1024, {{"echo", "1"}, {"corner", "long"}})) {
            const auto at = row.prompt.rfind("\nECHO: ");
            REQUIRE(at != std::string::npos);
            std::string reference;
            const std::string raw = row.prompt.substr(at + 7);
            for (std::size_t i = 0; i < raw.size(); ++i) {
                if (raw[i] == '\\' && i + 1 < raw.size()) {
                    reference += raw[i + 1] == 'n' ? '\n' : raw[i + 1];
                    ++i;
                } else {
                    reference += raw[i];
                }
            }
            INFO(row.family << " seed " << seed << ": " << reference);
            const auto outcome = score(row.family, row.expected_answer, reference);
            CHECK(outcome.failure_mode == core::FailureMode::Ok);
            CHECK(outcome.score == 1.0);
            CHECK(outcome.passed);
        }
    }
}

TEST_CASE("spark scorer: hostile text never breaks it", "[spark]") {
    // Fixed pseudo-random strings over the characters the scanners care about.
    const std::string alphabet = "{}[]\"'`\\:,.-_*#()=+\n\t 0123456789abcdefXYZdef<>/think";
    std::uint64_t state = 12345;
    const auto rows = generate(21, 512);
    for (int i = 0; i < 400; ++i) {
        std::string text;
        const int length = static_cast<int>(state % 300);
        for (int j = 0; j < length; ++j) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            text += alphabet[(state >> 33) % alphabet.size()];
        }
        const auto& row = rows[static_cast<std::size_t>(i) % rows.size()];
        const auto outcome = score(row.family, row.expected_answer, text);
        INFO(row.family << ": " << text);
        CHECK(outcome.error == "");
        CHECK(outcome.score >= 0.0);
        CHECK(outcome.score <= 1.0);
        CHECK_FALSE(outcome.extracted_answer.is_null());
    }
}
