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

double score_exact(const Extraction& got, const Json& expected) {
    if (!got.answer.IsString()) return 0.0;
    return normalise_exact(without_call_parens(std::string(string_of(got.answer)))) ==
                   normalise_exact(string_of(*find_member(expected, "answer")))
               ? 1.0
               : 0.0;
}

double score_integer(const Extraction& got, const Json& expected) {
    return got.found && typed_equal(got.answer, *find_member(expected, "answer")) ? 1.0 : 0.0;
}

double score_facts(const Extraction& got, const Json& expected) {
    if (!got.found) return 0.0;
    std::string joined;
    for (const auto& item : got.answer.GetArray()) joined += std::string(string_of(item)) + "\n";
    const auto facts = find_member(expected, "facts")->GetArray();
    std::size_t hits = 0;
    for (const auto& fact : facts) hits += contains_word(joined, string_of(fact)) ? 1 : 0;
    return fraction(hits, facts.Size());
}

double score_keys(const Extraction& got, const Json& expected) {
    if (!got.found) return 0.0;
    const auto keys = find_member(expected, "keys")->GetObject();
    std::size_t hits = 0;
    for (const auto& [key, value] : keys) {
        const Json* answer = find_member(got.answer, string_of(key));
        const std::string want = value.IsString() ? std::string(string_of(value)) : to_json(value);
        if (answer && answer->IsString() &&
            normalise_exact(string_of(*answer)) == normalise_exact(want))
            ++hits;
    }
    return fraction(hits, keys.MemberCount());
}

double score_fields(const Extraction& got, const Json& expected) {
    if (!got.found || !got.answer.IsObject()) return 0.0;
    const auto fields = find_member(expected, "fields")->GetObject();
    std::size_t hits = 0;
    for (const auto& [key, value] : fields)
        if (const Json* answer = find_member(got.answer, string_of(key));
            answer && typed_equal(*answer, value))
            ++hits;
    return fraction(hits, fields.MemberCount());
}

// A wrong tool is worth nothing; the right tool earns one share, each right argument another.
double score_tool_call(const Extraction& got, const Json& expected) {
    if (!got.found) return 0.0;
    const auto call = as_tool_call(got.answer);
    if (!call || call->name != string_of(*find_member(expected, "name"))) return 0.0;
    const auto arguments = find_member(expected, "arguments")->GetObject();
    std::size_t hits = 1;
    for (const auto& [key, value] : arguments)
        if (const Json* answer = find_member(call->arguments, string_of(key));
            answer && typed_equal(*answer, value))
            ++hits;
    return fraction(hits, arguments.MemberCount() + 1);
}

// 1 when the returned function equals the fixed one token for token (after normalisation);
// 0.5 when it still differs but carries the fix and no longer the bug; else 0.
double score_code_fix(const Extraction& got, const Json& expected) {
    if (!got.found || !got.answer.IsString()) return 0.0;
    const auto field = [&](const char* key) { return string_of(*find_member(expected, key)); };
    std::vector<std::pair<std::string, std::string>> equivalents;
    for (const auto& pair : find_member(expected, "equivalents")->GetArray())
        equivalents.emplace_back(string_of(pair[0]), string_of(pair[1]));
    const std::string_view code = string_of(got.answer);
    const CodeTokens candidate = normalise_code(code, equivalents);
    if (candidate == normalise_code(field("fixed"), equivalents)) return 1.0;
    if (!function_named(code, field("function"))) return 0.0;
    const bool fixed = contains_tokens(candidate, normalise_snippet(field("fix"), equivalents));
    const bool still_buggy =
        contains_tokens(candidate, normalise_snippet(field("bug"), equivalents));
    return fixed && !still_buggy ? 0.5 : 0.0;
}

}  // namespace

double score_answer(std::string_view family, std::string_view completion, const Json& expected) {
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
