// Expected-answer validation and per-family answer extraction.
#include <bi/plugin.hpp>

#include <string>

#include "family_rules.hpp"
#include "text_extract.hpp"
#include "tool_call.hpp"

namespace spark {

namespace {

[[noreturn]] void bad_expected(std::string_view family, const std::string& problem) {
    throw bi::sdk::Failure(BI_STATUS_INVALID_ARGUMENT, "spark: expected_answer of a " +
                                                           std::string(family) + " row " + problem);
}

// The "type" each family's expected answer carries (README: the spark profile).
std::string_view type_of_family(std::string_view family) {
    if (family == "A2") return "exact";
    if (family == "A4" || family == "B1" || family == "C1") return "integer";
    if (family == "D1") return "facts";
    if (family == "E1") return "keys";
    if (family == "E2") return "json";
    if (family == "E3") return "tool_call";
    if (family == "E4") return "code_fix";
    if (family == "E5") return "identifier";
    return {};
}

// Any number passes as kNumberType: an integer answer may be written 7.0.
void require(std::string_view family, const Json& expected, const char* key, rapidjson::Type type,
             const char* what) {
    const Json* value = find_member(expected, key);
    if (!value || value->GetType() != type)
        bad_expected(family, std::string("needs \"") + key + "\" as " + what);
}

Json fallback(std::string_view text) {
    return json_string(trim(text));
}

// "key": the value as text, whatever JSON type the model chose for it.
std::string value_text(const Json& value) {
    if (value.IsString()) return std::string(string_of(value));
    return to_json(value);
}

// A "key: value" / "key = value" / "key is value" line for `key`, if any.
std::optional<std::string> value_from_lines(std::string_view text, const std::string& key) {
    std::size_t from = 0;
    while (true) {
        const auto at = find_word(text.substr(from), key);
        if (at == std::string_view::npos) return std::nullopt;
        const auto key_end = from + at + key.size();
        const auto line_end = text.find('\n', key_end);
        auto rest = text.substr(key_end, line_end == std::string_view::npos ? std::string_view::npos
                                                                            : line_end - key_end);
        while (!rest.empty() &&
               std::string_view(" \t`*\"'").find(rest.front()) != std::string_view::npos)
            rest.remove_prefix(1);
        bool separated = false;
        if (!rest.empty() && (rest.front() == ':' || rest.front() == '=')) {
            rest.remove_prefix(1);
            separated = true;
        } else if (rest.substr(0, 3) == "is ") {
            rest.remove_prefix(3);
            separated = true;
        }
        if (separated) {
            const auto cut = rest.find_first_of(",;");
            const std::string value = normalise_exact(rest.substr(0, cut));
            if (!value.empty()) return value;
        }
        from = key_end;
    }
}

Extraction extract_exact(std::string_view text) {
    if (auto quoted = first_quoted_span(text)) return {json_string(*quoted), true};
    if (auto code = first_code_token(text)) return {json_string(*code), true};
    return {fallback(text), false};
}

Extraction extract_integer(std::string_view text) {
    if (auto number = last_number(text)) return {std::move(*number), true};
    return {fallback(text), false};
}

Extraction extract_facts(std::string_view text) {
    const auto items = bullets(text);
    if (items.empty()) return {fallback(text), false};
    Json out = json_array();
    for (const auto& item : items) push_item(out, json_string(item));
    return {std::move(out), true};
}

Extraction extract_keys(std::string_view text, const Json& expected) {
    Json found = json_object();
    if (const auto object = first_json_object(text)) {
        for (const auto& [key, value] : object->GetObject())
            set_member(found, string_of(key), json_string(value_text(value)));
        return {std::move(found), true};
    }
    for (const auto& member : find_member(expected, "keys")->GetObject()) {
        const std::string key(string_of(member.name));
        if (const auto line_value = value_from_lines(text, key))
            set_member(found, key, json_string(*line_value));
    }
    if (found.ObjectEmpty()) return {fallback(text), false};
    return {std::move(found), true};
}

Extraction extract_json(std::string_view text) {
    if (auto object = first_json_object(text)) return {std::move(*object), true};
    return {fallback(text), false};
}

Extraction extract_tool_call(std::string_view text) {
    auto object = first_json_object(text);
    if (!object) return {fallback(text), false};
    auto call = as_tool_call(*object);
    if (!call) return {std::move(*object), false};
    Json normalised = json_object();
    set_member(normalised, "name", json_string(call->name));
    set_member(normalised, "arguments", std::move(call->arguments));
    return {std::move(normalised), true};
}

Extraction extract_code(std::string_view text, const Json& expected) {
    const auto code = code_block(text);
    if (!code) return {fallback(text), false};
    const auto function = function_named(*code, string_of(*find_member(expected, "function")));
    return {json_string(function ? *function : *code), true};
}

Extraction extract_identifier(std::string_view text, const Json& expected) {
    std::size_t best_at = std::string_view::npos;
    std::string best;
    for (const auto& candidate : find_member(expected, "candidates")->GetArray()) {
        const auto at = find_word(text, string_of(candidate));
        if (at < best_at) {
            best_at = at;
            best = std::string(string_of(candidate));
        }
    }
    if (!best.empty()) return {json_string(best), true};
    if (auto quoted = first_quoted_span(text)) {
        std::string name = *quoted;
        if (name.size() > 2 && name.substr(name.size() - 2) == "()") name.resize(name.size() - 2);
        if (is_identifier(name)) return {json_string(name), true};
    }
    std::string bare = strip_wrapping(text);
    if (bare.size() > 2 && bare.substr(bare.size() - 2) == "()") bare.resize(bare.size() - 2);
    if (is_identifier(bare)) return {json_string(bare), true};
    return {fallback(text), false};
}

}  // namespace

Json parse_expected(std::string_view family, std::string_view expected_json) {
    const std::string_view type = type_of_family(family);
    if (type.empty())
        throw bi::sdk::Failure(BI_STATUS_INVALID_ARGUMENT,
                               "spark: unknown family '" + std::string(family) +
                                   "' (families: A2, A4, B1, C1, D1, E1, E2, E3, E4, E5)");
    auto expected = parse_json(expected_json);
    if (!expected || !expected->IsObject()) bad_expected(family, "is not a JSON object");
    const Json* declared = find_member(*expected, "type");
    if (!declared || !declared->IsString() || string_of(*declared) != type)
        bad_expected(family, "needs \"type\": \"" + std::string(type) + "\"");
    using rapidjson::kArrayType, rapidjson::kNumberType, rapidjson::kObjectType,
        rapidjson::kStringType;
    if (type == "exact" || type == "identifier")
        require(family, *expected, "answer", kStringType, "a string");
    if (type == "integer") require(family, *expected, "answer", kNumberType, "a number");
    if (type == "facts") require(family, *expected, "facts", kArrayType, "an array of strings");
    if (type == "keys") require(family, *expected, "keys", kObjectType, "an object");
    if (type == "json") require(family, *expected, "fields", kObjectType, "an object");
    if (type == "tool_call") {
        require(family, *expected, "name", kStringType, "a string");
        require(family, *expected, "arguments", kObjectType, "an object");
    }
    if (type == "code_fix") {
        for (const char* key : {"function", "fixed", "fix", "bug"})
            require(family, *expected, key, kStringType, "a string");
        require(family, *expected, "equivalents", kArrayType,
                "an array of [canonical, alternative]");
        for (const auto& pair : find_member(*expected, "equivalents")->GetArray())
            if (!pair.IsArray() || pair.Size() != 2 || !pair[0].IsString() || !pair[1].IsString())
                bad_expected(family, "has an equivalents entry that is not two strings");
    }
    if (type == "identifier") {
        require(family, *expected, "candidates", kArrayType, "an array of strings");
        for (const auto& candidate : find_member(*expected, "candidates")->GetArray())
            if (!candidate.IsString()) bad_expected(family, "has a candidate that is not a string");
    }
    if (type == "facts")
        for (const auto& fact : find_member(*expected, "facts")->GetArray())
            if (!fact.IsString()) bad_expected(family, "has a fact that is not a string");
    return std::move(*expected);
}

Extraction extract_answer(std::string_view family, std::string_view completion,
                          const Json& expected) {
    const std::string text = strip_reasoning(completion);
    if (family == "A2") return extract_exact(text);
    if (family == "A4" || family == "B1" || family == "C1") return extract_integer(text);
    if (family == "D1") return extract_facts(text);
    if (family == "E1") return extract_keys(text, expected);
    if (family == "E2") return extract_json(text);
    if (family == "E3") return extract_tool_call(text);
    if (family == "E4") return extract_code(text, expected);
    return extract_identifier(text, expected);
}

}  // namespace spark
