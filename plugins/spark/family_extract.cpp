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

void require(std::string_view family, const JsonValue& expected, const char* key,
             JsonValue::Type type, const char* what) {
    const JsonValue* value = expected.find(key);
    const bool ok =
        value && (value->type() == type || (type == JsonValue::Type::Double && value->is_number()));
    if (!ok) bad_expected(family, std::string("needs \"") + key + "\" as " + what);
}

JsonValue fallback(std::string_view text) {
    return JsonValue::string(std::string(trim(text)));
}

// "key": the value as text, whatever JSON type the model chose for it.
std::string value_text(const JsonValue& value) {
    if (value.is_string()) return value.as_string();
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
    if (auto quoted = first_quoted_span(text)) return {JsonValue::string(*quoted), true};
    if (auto code = first_code_token(text)) return {JsonValue::string(*code), true};
    return {fallback(text), false};
}

Extraction extract_integer(std::string_view text) {
    if (auto number = last_number(text)) return {*number, true};
    return {fallback(text), false};
}

Extraction extract_facts(std::string_view text) {
    const auto items = bullets(text);
    if (items.empty()) return {fallback(text), false};
    JsonValue::Array out;
    for (const auto& item : items) out.push_back(JsonValue::string(item));
    return {JsonValue::array(std::move(out)), true};
}

Extraction extract_keys(std::string_view text, const JsonValue& expected) {
    JsonValue found = JsonValue::object();
    if (const auto object = first_json_object(text)) {
        for (const auto& [key, value] : object->as_object())
            found.set(key, JsonValue::string(value_text(value)));
        return {found, true};
    }
    for (const auto& [key, value] : expected.find("keys")->as_object())
        if (const auto line_value = value_from_lines(text, key))
            found.set(key, JsonValue::string(*line_value));
    if (found.as_object().empty()) return {fallback(text), false};
    return {found, true};
}

Extraction extract_json(std::string_view text) {
    if (auto object = first_json_object(text)) return {*object, true};
    return {fallback(text), false};
}

Extraction extract_tool_call(std::string_view text) {
    const auto object = first_json_object(text);
    if (!object) return {fallback(text), false};
    const auto call = as_tool_call(*object);
    if (!call) return {*object, false};
    JsonValue normalised = JsonValue::object();
    normalised.set("name", JsonValue::string(call->name));
    normalised.set("arguments", call->arguments);
    return {normalised, true};
}

Extraction extract_code(std::string_view text, const JsonValue& expected) {
    const auto code = code_block(text);
    if (!code) return {fallback(text), false};
    const auto function = function_named(*code, expected.find("function")->as_string());
    return {JsonValue::string(function ? *function : *code), true};
}

Extraction extract_identifier(std::string_view text, const JsonValue& expected) {
    std::size_t best_at = std::string_view::npos;
    std::string best;
    for (const auto& candidate : expected.find("candidates")->as_array()) {
        const auto at = find_word(text, candidate.as_string());
        if (at < best_at) {
            best_at = at;
            best = candidate.as_string();
        }
    }
    if (!best.empty()) return {JsonValue::string(best), true};
    if (auto quoted = first_quoted_span(text)) {
        std::string name = *quoted;
        if (name.size() > 2 && name.substr(name.size() - 2) == "()") name.resize(name.size() - 2);
        if (is_identifier(name)) return {JsonValue::string(name), true};
    }
    std::string bare = strip_wrapping(text);
    if (bare.size() > 2 && bare.substr(bare.size() - 2) == "()") bare.resize(bare.size() - 2);
    if (is_identifier(bare)) return {JsonValue::string(bare), true};
    return {fallback(text), false};
}

}  // namespace

JsonValue parse_expected(std::string_view family, std::string_view expected_json) {
    const std::string_view type = type_of_family(family);
    if (type.empty())
        throw bi::sdk::Failure(BI_STATUS_INVALID_ARGUMENT,
                               "spark: unknown family '" + std::string(family) +
                                   "' (families: A2, A4, B1, C1, D1, E1, E2, E3, E4, E5)");
    auto expected = parse_json(expected_json);
    if (!expected || !expected->is_object()) bad_expected(family, "is not a JSON object");
    const JsonValue* declared = expected->find("type");
    if (!declared || !declared->is_string() || declared->as_string() != type)
        bad_expected(family, "needs \"type\": \"" + std::string(type) + "\"");
    using T = JsonValue::Type;
    if (type == "exact" || type == "identifier")
        require(family, *expected, "answer", T::String, "a string");
    if (type == "integer") require(family, *expected, "answer", T::Double, "a number");
    if (type == "facts") require(family, *expected, "facts", T::Array, "an array of strings");
    if (type == "keys") require(family, *expected, "keys", T::Object, "an object");
    if (type == "json") require(family, *expected, "fields", T::Object, "an object");
    if (type == "tool_call") {
        require(family, *expected, "name", T::String, "a string");
        require(family, *expected, "arguments", T::Object, "an object");
    }
    if (type == "code_fix") {
        for (const char* key : {"function", "fixed", "fix", "bug"})
            require(family, *expected, key, T::String, "a string");
        require(family, *expected, "equivalents", T::Array, "an array of [canonical, alternative]");
        for (const auto& pair : expected->find("equivalents")->as_array())
            if (!pair.is_array() || pair.as_array().size() != 2 ||
                !pair.as_array()[0].is_string() || !pair.as_array()[1].is_string())
                bad_expected(family, "has an equivalents entry that is not two strings");
    }
    if (type == "identifier") {
        require(family, *expected, "candidates", T::Array, "an array of strings");
        for (const auto& candidate : expected->find("candidates")->as_array())
            if (!candidate.is_string())
                bad_expected(family, "has a candidate that is not a string");
    }
    if (type == "facts")
        for (const auto& fact : expected->find("facts")->as_array())
            if (!fact.is_string()) bad_expected(family, "has a fact that is not a string");
    return *expected;
}

Extraction extract_answer(std::string_view family, std::string_view completion,
                          const JsonValue& expected) {
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
