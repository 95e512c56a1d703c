// Per-family scores in [0, 1]: exact and identifier match, numeric equality, fraction of facts
// or keys recalled, typed JSON fields, tool name plus typed arguments, and the code fix.
#include <string>
#include <utility>
#include <vector>

#include "code_compare.hpp"
#include "family_rules.hpp"
#include "text_extract.hpp"
#include "tool_call.hpp"

namespace spark {

namespace {

double fraction(std::size_t hits, std::size_t total) {
    return total == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(total);
}

std::string without_call_parens(std::string text) {
    if (text.size() > 2 && text.substr(text.size() - 2) == "()") text.resize(text.size() - 2);
    return text;
}

double score_exact(const Extraction& got, const JsonValue& expected) {
    if (!got.answer.is_string()) return 0.0;
    return normalise_exact(without_call_parens(got.answer.as_string())) ==
                   normalise_exact(expected.find("answer")->as_string())
               ? 1.0
               : 0.0;
}

double score_integer(const Extraction& got, const JsonValue& expected) {
    return got.found && typed_equal(got.answer, *expected.find("answer")) ? 1.0 : 0.0;
}

double score_facts(const Extraction& got, const JsonValue& expected) {
    if (!got.found) return 0.0;
    std::string joined;
    for (const auto& item : got.answer.as_array()) joined += item.as_string() + "\n";
    const auto& facts = expected.find("facts")->as_array();
    std::size_t hits = 0;
    for (const auto& fact : facts) hits += contains_word(joined, fact.as_string()) ? 1 : 0;
    return fraction(hits, facts.size());
}

double score_keys(const Extraction& got, const JsonValue& expected) {
    if (!got.found) return 0.0;
    const auto& keys = expected.find("keys")->as_object();
    std::size_t hits = 0;
    for (const auto& [key, value] : keys) {
        const JsonValue* answer = got.answer.find(key);
        const std::string want = value.is_string() ? value.as_string() : to_json(value);
        if (answer && answer->is_string() &&
            normalise_exact(answer->as_string()) == normalise_exact(want))
            ++hits;
    }
    return fraction(hits, keys.size());
}

double score_fields(const Extraction& got, const JsonValue& expected) {
    if (!got.found || !got.answer.is_object()) return 0.0;
    const auto& fields = expected.find("fields")->as_object();
    std::size_t hits = 0;
    for (const auto& [key, value] : fields)
        if (const JsonValue* answer = got.answer.find(key); answer && typed_equal(*answer, value))
            ++hits;
    return fraction(hits, fields.size());
}

// A wrong tool is worth nothing; the right tool earns one share, each right argument another.
double score_tool_call(const Extraction& got, const JsonValue& expected) {
    if (!got.found) return 0.0;
    const auto call = as_tool_call(got.answer);
    if (!call || call->name != expected.find("name")->as_string()) return 0.0;
    const auto& arguments = expected.find("arguments")->as_object();
    std::size_t hits = 1;
    for (const auto& [key, value] : arguments)
        if (const JsonValue* answer = call->arguments.find(key);
            answer && typed_equal(*answer, value))
            ++hits;
    return fraction(hits, arguments.size() + 1);
}

// 1 when the returned function equals the fixed one token for token (after normalisation);
// 0.5 when it still differs but carries the fix and no longer the bug; else 0.
double score_code_fix(const Extraction& got, const JsonValue& expected) {
    if (!got.found || !got.answer.is_string()) return 0.0;
    std::vector<std::pair<std::string, std::string>> equivalents;
    for (const auto& pair : expected.find("equivalents")->as_array())
        equivalents.emplace_back(pair.as_array()[0].as_string(), pair.as_array()[1].as_string());
    const std::string& code = got.answer.as_string();
    const CodeTokens candidate = normalise_code(code, equivalents);
    if (candidate == normalise_code(expected.find("fixed")->as_string(), equivalents)) return 1.0;
    const std::string& name = expected.find("function")->as_string();
    if (!function_named(code, name)) return 0.0;
    const bool fixed = contains_tokens(
        candidate, normalise_snippet(expected.find("fix")->as_string(), equivalents));
    const bool still_buggy = contains_tokens(
        candidate, normalise_snippet(expected.find("bug")->as_string(), equivalents));
    return fixed && !still_buggy ? 0.5 : 0.0;
}

}  // namespace

double score_answer(std::string_view family, std::string_view completion,
                    const JsonValue& expected) {
    const Extraction got = extract_answer(family, completion, expected);
    if (family == "A2" || family == "E5") return score_exact(got, expected);
    if (family == "A4" || family == "B1" || family == "C1") return score_integer(got, expected);
    if (family == "D1") return score_facts(got, expected);
    if (family == "E1") return score_keys(got, expected);
    if (family == "E2") return score_fields(got, expected);
    if (family == "E3") return score_tool_call(got, expected);
    return score_code_fix(got, expected);
}

}  // namespace spark
