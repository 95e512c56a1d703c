// The spark generator through the real loader: the row set per corner and family, the needle at
// its intended depth inside clean filler, expected answers re-derived from the prompt text
// alone, prompt sizing against a token counter, and the generator parameters.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "io/workset.hpp"
#include "spark_fixture.hpp"

using namespace bi;
using namespace bi::spark_test;

namespace {

const std::vector<std::string> kFamilies = {"A2", "A4", "B1", "C1", "D1",
                                            "E1", "E2", "E3", "E4", "E5"};

std::string str(const core::Json& value, const char* key) {
    const core::Json* v = value.find(key);
    return v && v->is_string() ? v->as_string() : "<missing " + std::string(key) + ">";
}

std::int64_t num(const std::string& text) {
    return std::stoll(text);
}

std::string match1(const std::string& text, const std::string& pattern) {
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(pattern))) return "<no match: " + pattern + ">";
    return m[1];
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

// The body of `def name(` in a module: up to the next top-level def or the closing fence.
std::string function_body(const std::string& module, const std::string& name) {
    const auto start = module.find("def " + name + "(");
    if (start == std::string::npos) return "";
    auto end = module.find("\ndef ", start + 1);
    const auto fence = module.find("\n```", start);
    if (end == std::string::npos || fence < end) end = fence;
    return module.substr(start, end - start);
}

// Re-derives the expected answer of one row from its needle and question, independently of the
// plugin's own bookkeeping; fails the test when they disagree.
void check_derivable(const core::WorkRow& row) {
    const std::string needle = needle_of(row);
    const std::string question = read_layout(row.prompt).question;
    const core::Json& expected = row.expected_answer;
    INFO(row.family << " needle: " << needle << "\nquestion: " << question);
    if (row.family == "A2") {
        CHECK(str(expected, "type") == "exact");
        CHECK(match1(needle, "new deploy key is \"([^\"]+)\"") == str(expected, "answer"));
        CHECK(match1(needle, "deploy key for the (\\w+) service") ==
              match1(question, "deploy key for the (\\w+) service"));
    } else if (row.family == "A4") {
        std::int64_t value = num(match1(needle, "was set to (\\d+)\\."));
        const std::regex step("(\\d+) was added|multiplied by (\\d+)|(\\d+) was subtracted");
        int steps = 0;
        for (std::sregex_iterator it(needle.begin(), needle.end(), step), end; it != end;
             ++it, ++steps) {
            if ((*it)[1].matched) value += num((*it)[1]);
            if ((*it)[2].matched) value *= num((*it)[2]);
            if ((*it)[3].matched) value -= num((*it)[3]);
        }
        CHECK(steps >= 3);
        CHECK(expected.find("answer")->as_int() == value);
        CHECK(match1(needle, "the variable (\\w+) was set") ==
              match1(question, "final value of (\\w+)\\?"));
    } else if (row.family == "B1") {
        const auto each = num(match1(needle, "holds (\\d+) "));
        const auto count = num(match1(needle, "has requested (\\d+) "));
        CHECK(expected.find("answer")->as_int() == each * count);
    } else if (row.family == "C1") {
        const std::string call = match1(question, "What does (\\w+\\([^)]*\\)) return");
        const std::string arg = match1(call, "\\((.*)\\)");
        std::int64_t result = 0;
        if (needle.find("total = n * ") != std::string::npos) {
            std::int64_t total = num(arg) * num(match1(needle, "total = n \\* (\\d+)"));
            if (total > num(match1(needle, "if total > (\\d+):")))
                total -= num(match1(needle, "total = total - (\\d+)"));
            result = total + num(match1(needle, "return total \\+ (\\d+)"));
        } else if (needle.find("acc = acc + i * ") != std::string::npos) {
            result = num(match1(needle, "acc = (\\d+)"));
            for (std::int64_t i = 0; i < num(arg); ++i)
                result += i * num(match1(needle, "acc = acc \\+ i \\* (\\d+)"));
        } else if (needle.find("result = result * 2 + n") != std::string::npos) {
            std::int64_t r = 1;
            for (std::int64_t i = 0; i < num(match1(needle, "for _ in range\\((\\d+)\\)")); ++i)
                r = r * 2 + num(arg);
            result = r % num(match1(needle, "return result % (\\d+)"));
        } else {
            const auto d = num(match1(needle, "if v % (\\d+) == 0"));
            const std::regex item("\\d+");
            for (std::sregex_iterator it(arg.begin(), arg.end(), item), end; it != end; ++it)
                if (num(it->str()) % d == 0) result += num(it->str());
        }
        CHECK(str(expected, "type") == "integer");
        CHECK(expected.find("answer")->as_int() == result);
        CHECK(needle.find("def " + match1(call, "(\\w+)\\(") + "(") != std::string::npos);
    } else if (row.family == "D1") {
        const auto& facts = expected.find("facts")->as_array();
        CHECK(facts.size() == 3);
        for (const auto& fact : facts)
            CHECK(std::regex_search(needle, std::regex("\\b" + fact.as_string() + "\\b")));
    } else if (row.family == "E1") {
        std::smatch m;
        REQUIRE(
            std::regex_search(question, m, std::regex("settings (\\w+), (\\w+) and (\\w+) from")));
        const auto& keys = expected.find("keys")->as_object();
        CHECK(keys.size() == 3);
        for (int i = 1; i <= 3; ++i) {
            const std::string key = m[i];
            REQUIRE(keys.count(key) == 1);
            CHECK(match1(needle, "Setting " + key + " is (\\w+)\\.") == keys.at(key).as_string());
        }
    } else if (row.family == "E2") {
        std::smatch m;
        REQUIRE(
            std::regex_search(needle, m,
                              std::regex("ticket (BUG-\\d+) was filed by (\\w+), it has priority "
                                         "(\\d+), it (blocks|does not "
                                         "block) the release, and the fix touches (\\d+) files")));
        core::Json fields = core::Json::Object{{"ticket", std::string(m[1])},
                                               {"reporter", std::string(m[2])},
                                               {"priority", num(m[3])},
                                               {"blocking", m[4] == "blocks"},
                                               {"files", num(m[5])}};
        CHECK(core::canonical_equal(*expected.find("fields"), fields));
    } else if (row.family == "E3") {
        std::smatch m;
        core::Json want;
        if (std::regex_search(needle, m,
                              std::regex("branch named (\\S+) in the repository (\\S+), "
                                         "starting from commit (\\w+), and it (must be "
                                         "protected|should not be protected)"))) {
            want = core::Json::Object{
                {"name", "create_branch"},
                {"arguments", core::Json::Object{{"name", std::string(m[1])},
                                                 {"repo", std::string(m[2])},
                                                 {"from_commit", std::string(m[3])},
                                                 {"protected", m[4] == "must be protected"}}}};
        } else if (std::regex_search(needle, m,
                                     std::regex("repository (\\S+) titled \"([^\"]+)\" "
                                                "with priority (\\d+)"))) {
            want = core::Json::Object{{"name", "open_issue"},
                                      {"arguments", core::Json::Object{{"repo", std::string(m[1])},
                                                                       {"title", std::string(m[2])},
                                                                       {"priority", num(m[3])}}}};
        } else {
            REQUIRE(std::regex_search(needle, m,
                                      std::regex("scale the (\\S+) service to (\\d+) "
                                                 "replicas in region (\\S+), (as a dry "
                                                 "run only|for real)")));
            want = core::Json::Object{
                {"name", "scale_service"},
                {"arguments", core::Json::Object{{"service", std::string(m[1])},
                                                 {"replicas", num(m[2])},
                                                 {"region", std::string(m[3])},
                                                 {"dry_run", m[4] == "as a dry run only"}}}};
        }
        CHECK(str(expected, "name") == str(want, "name"));
        CHECK(core::canonical_equal(*expected.find("arguments"), *want.find("arguments")));
        CHECK(question.find(str(want, "name") + "(") != std::string::npos);  // schema offered
    } else if (row.family == "E4") {
        const std::string fixed = str(expected, "fixed");
        const std::string buggy = replace_once(fixed, str(expected, "fix"), str(expected, "bug"));
        CHECK(buggy != fixed);
        CHECK(needle.find("```python\n" + buggy + "\n```") != std::string::npos);
        CHECK(fixed.rfind("def " + str(expected, "function") + "(", 0) == 0);
        CHECK(question.find("The function " + str(expected, "function") + " ") !=
              std::string::npos);
    } else if (row.family == "E5") {
        static const std::vector<std::pair<std::string, std::string>> kMeaning = {
            {"returns the sum of the even numbers", "v % 2 == 0)"},
            {"returns the sum of the odd numbers", "v % 2 == 1)"},
            {"counts the negative numbers", "if v < 0]"},
            {"counts the positive numbers", "if v > 0]"},
            {"returns the text reversed", "return text[::-1]"},
            {"reads the same backwards", "text == text[::-1]"},
            {"returns the largest value", "max(values)"},
            {"returns the smallest value", "min(values)"},
            {"removes duplicates", "seen.append(v)"},
            {"sorts the values from largest", "reverse=True"},
            {"counts the vowels", "aeiou"},
            {"joins the words with dashes", "\"-\".join"},
            {"splits the text at every comma", "split(\",\")"}};
        std::set<std::string> defs;
        const std::regex def("def (\\w+)\\(");
        for (std::sregex_iterator it(needle.begin(), needle.end(), def), end; it != end; ++it)
            defs.insert((*it)[1]);
        std::set<std::string> candidates;
        for (const auto& c : expected.find("candidates")->as_array())
            candidates.insert(c.as_string());
        CHECK(defs == candidates);
        CHECK(defs.size() == 5);
        const std::string body = function_body(needle, str(expected, "answer"));
        int meanings = 0;
        for (const auto& [description, fragment] : kMeaning)
            if (question.find(description) != std::string::npos) {
                ++meanings;
                CHECK(body.find(fragment) != std::string::npos);
            }
        CHECK(meanings == 1);
    } else {
        FAIL("unexpected family " << row.family);
    }
}

bool same_rows(const std::vector<core::WorkRow>& a, const std::vector<core::WorkRow>& b) {
    return core::canonical_equal(io::rows_to_json(a), io::rows_to_json(b));
}

std::int64_t estimate(const std::string& text) {
    return (static_cast<std::int64_t>(text.size()) + 3) / 4;
}

}  // namespace

TEST_CASE("spark generator: ten families times the corner's fills, family-major", "[spark]") {
    struct Corner {
        const char* name;
        std::vector<double> fills;
    };
    for (const Corner& corner :
         {Corner{"balanced", {0.10, 0.35, 0.60, 0.85}}, Corner{"short", {0.05, 0.15}},
          Corner{"long", {0.75, 0.90, 0.97}}}) {
        INFO(corner.name);
        const auto rows = generate(1, 4096, {{"corner", corner.name}});
        REQUIRE(rows.size() == kFamilies.size() * corner.fills.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
            CHECK(rows[i].family == kFamilies[i / corner.fills.size()]);
            CHECK(rows[i].fill == corner.fills[i % corner.fills.size()]);
            CHECK_FALSE(rows[i].system.empty());
            CHECK(rows[i].expected_answer.is_object());
        }
    }
}

TEST_CASE("spark generator: each needle sits at its depth inside clean filler", "[spark]") {
    for (const std::int64_t ctx : {512, 4096, 16384}) {
        for (const auto& row : generate(ctx, ctx)) {
            INFO(row.family << " fill " << row.fill << " ctx " << ctx);
            const auto layout = read_layout(row.prompt);
            REQUIRE(layout.needle_count == 1);
            CHECK(layout.filler_clean);
            const double depth = row.expected_answer.find("depth")->as_double();
            CHECK(depth >= 0.1);
            CHECK(depth <= 0.9);
            const int total = layout.sentences_before + layout.sentences_after;
            // The needle follows exactly round(depth x sentences) filler sentences.
            CHECK(layout.sentences_before == std::llround(depth * total));
            if (ctx >= 4096) CHECK(total > 10);
        }
    }
}

TEST_CASE("spark generator: every expected answer is derivable from the prompt", "[spark]") {
    for (const std::uint64_t seed : {1u, 2u, 3u, 99u}) {
        for (const auto& row : generate(seed, 2048, {{"corner", seed % 2 ? "long" : "balanced"}})) {
            check_derivable(row);
        }
    }
}

TEST_CASE("spark generator: fills of a family get different needles", "[spark]") {
    for (const std::uint64_t seed : {5u, 6u}) {
        const auto rows = generate(seed, 2048, {{"corner", "long"}});
        for (std::size_t i = 0; i < rows.size(); ++i)
            for (std::size_t j = i + 1; j < rows.size(); ++j) {
                if (rows[i].family != rows[j].family) continue;
                INFO(rows[i].family << " fills " << rows[i].fill << " and " << rows[j].fill);
                CHECK(needle_of(rows[i]) != needle_of(rows[j]));
            }
    }
}

TEST_CASE("spark generator: without a token counter prompts are sized at 4 bytes a token",
          "[spark]") {
    const std::int64_t ctx = 8192;
    for (const auto& row : generate(3, ctx)) {
        const auto target = static_cast<std::int64_t>(std::floor(row.fill * ctx));
        INFO(row.family << " fill " << row.fill);
        CHECK(estimate(row.prompt) <= target);
        CHECK(static_cast<double>(estimate(row.prompt)) >= 0.98 * static_cast<double>(target));
    }
}

TEST_CASE("spark generator: with a token counter prompts fill to within 2% of fill x ctx",
          "[spark]") {
    int calls = 0;
    // A stand-in tokenizer with a different ratio: a token per 3 bytes plus one per newline.
    const plugin_host::TokenCounter count = [&calls](std::string_view text) {
        ++calls;
        std::int64_t newlines = 0;
        for (const char c : text) newlines += c == '\n' ? 1 : 0;
        return std::optional<std::int64_t>(static_cast<std::int64_t>(text.size()) / 3 + newlines);
    };
    const std::int64_t ctx = 32768;
    const auto rows = generate(4, ctx, {{"corner", "long"}}, count);
    CHECK(calls > 0);
    CHECK(calls < 30 * static_cast<int>(rows.size()));  // a search, not a scan
    for (const auto& row : rows) {
        const auto target = static_cast<std::int64_t>(std::floor(row.fill * ctx));
        const auto tokens = *count(row.prompt);
        INFO(row.family << " fill " << row.fill << ": " << tokens << " of " << target);
        CHECK(tokens <= target);
        CHECK(static_cast<double>(tokens) >= 0.98 * static_cast<double>(target));
        // The byte estimate would have made it a quarter shorter.
        CHECK(estimate(row.prompt) < target);
    }
}

TEST_CASE("spark generator: a failing token counter falls back to the estimate", "[spark]") {
    const plugin_host::TokenCounter broken = [](std::string_view) { return std::nullopt; };
    CHECK(same_rows(generate(8, 4096, {{"families", "A2"}}, broken),
                    generate(8, 4096, {{"families", "A2"}})));
}

TEST_CASE("spark generator: when the needle alone exceeds the target there is no filler",
          "[spark]") {
    for (const auto& row : generate(2, 64, {{"corner", "short"}})) {
        const auto layout = read_layout(row.prompt);
        CHECK(layout.paragraphs.size() == 1);
        CHECK(layout.needle_index == 0);
    }
}

TEST_CASE("spark generator: parameters pick corner and families", "[spark]") {
    const auto subset = generate(11, 2048, {{"corner", "short"}, {"families", "e3,A2"}});
    REQUIRE(subset.size() == 4);
    CHECK(subset[0].family == "E3");
    CHECK(subset[2].family == "A2");
    // One pair carrying both, as "--generator-param corner=short,families=E3,A2" may arrive.
    CHECK(same_rows(generate(11, 2048, {{"corner", "short,families=E3,A2"}}), subset));
    // Choosing families never changes a family's rows.
    const auto all = generate(11, 2048, {{"corner", "short"}});
    CHECK(all[14].prompt == subset[0].prompt);
    CHECK(all[0].prompt == subset[2].prompt);
}

TEST_CASE("spark generator: bad parameters are one-line errors naming the problem", "[spark]") {
    CHECK_THROWS_WITH(generate(1, 2048, {{"corner", "wide"}}),
                      Catch::Contains("unknown corner 'wide'"));
    CHECK_THROWS_WITH(generate(1, 2048, {{"families", "A2,Z9"}}),
                      Catch::Contains("unknown family 'Z9'"));
    CHECK_THROWS_WITH(generate(1, 2048, {{"colour", "red"}}),
                      Catch::Contains("unknown generator parameter 'colour'"));
    CHECK_THROWS_WITH(generate(1, 2048, {{"echo", "maybe"}}), Catch::Contains("echo must be"));
}

TEST_CASE("spark generator: the echo marker appears only when asked for", "[spark]") {
    for (const auto& row : generate(9, 2048)) CHECK(row.prompt.find("ECHO:") == std::string::npos);
    const auto rows = generate(9, 2048, {{"echo", "1"}});
    for (const auto& row : rows) {
        const auto at = row.prompt.rfind("\nECHO: ");
        REQUIRE(at != std::string::npos);
        CHECK(row.prompt.find('\n', at + 1) == std::string::npos);  // one line, the last
    }
    // The echoed text is a right answer: escaped newlines, so the code answer stays one line.
    CHECK(rows[33].family == "E4");
    CHECK(rows[33].prompt.find("ECHO: ```python\\ndef ") != std::string::npos);
}

TEST_CASE("spark generator: min_prompt_tokens pads every shorter prompt to at least that",
          "[spark]") {
    const std::int64_t ctx = 8192;
    // The short corner's fills are 5% and 15% of ctx (409 and 1228 tokens): 1000 lengthens the
    // first, leaves the second as it was sized, and asks no more of either than it needs.
    const auto plain = generate(5, ctx, {{"corner", "short"}});
    const auto padded = generate(5, ctx, {{"corner", "short"}, {"min_prompt_tokens", "1000"}});
    REQUIRE(padded.size() == plain.size());
    for (std::size_t i = 0; i < padded.size(); ++i) {
        const auto& row = padded[i];
        INFO(row.family << " fill " << row.fill << ": " << estimate(row.prompt) << " tokens");
        CHECK(estimate(row.prompt) >= 1000);
        CHECK(row.fill == plain[i].fill);  // the corner's fill stays the row's label
        CHECK(row.expected_answer == plain[i].expected_answer);  // the same question
        CHECK(needle_of(row) == needle_of(plain[i]));
        if (estimate(plain[i].prompt) >= 1000) {
            CHECK(row.prompt == plain[i].prompt);
        } else {
            // The least filler that reaches it: one sentence fewer would not.
            CHECK(estimate(row.prompt) < 1000 + 80);
            CHECK(read_layout(row.prompt).filler_clean);
        }
    }
    // With the server's counter the count is the server's.
    const plugin_host::TokenCounter count = [](std::string_view text) {
        return std::optional<std::int64_t>(static_cast<std::int64_t>(text.size()) / 3);
    };
    for (const auto& row :
         generate(5, ctx, {{"families", "A2,E4"}, {"min_prompt_tokens", "3000"}}, count))
        CHECK(*count(row.prompt) >= 3000);
}

TEST_CASE("spark generator: min_prompt_tokens must leave room for the answer", "[spark]") {
    // 0.97 of ctx 1024 is 993 tokens, the long corner's largest prompt.
    CHECK(generate(1, 1024, {{"families", "A2"}, {"min_prompt_tokens", "993"}}).size() == 4);
    CHECK_THROWS_WITH(generate(1, 1024, {{"min_prompt_tokens", "994"}}),
                      Catch::Contains("spark: min_prompt_tokens=994 does not fit ctx 1024: a "
                                      "prompt may fill at most 993 tokens of it; the rest is "
                                      "left for the system message, the chat template and the "
                                      "answer"));
    for (const char* bad : {"0", "-5", "1e3", "", "12345678901"})
        CHECK_THROWS_WITH(generate(1, 2048, {{"min_prompt_tokens", bad}}),
                          Catch::Contains("min_prompt_tokens must be a whole number of tokens"));
    CHECK_THROWS_WITH(generate(1, 2048, {{"colour", "red"}}),
                      Catch::Contains("(known: corner, families, echo, min_prompt_tokens)"));
}
