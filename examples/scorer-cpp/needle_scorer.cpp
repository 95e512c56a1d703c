// Example scorer plugin using the C++ helper: recall of a planted code such as "K7-ZULU",
// forgiving about case and surrounding markdown, strict about the code itself.
#include <bi/plugin.hpp>

#include <cctype>
#include <optional>
#include <string>

namespace {

bool is_code_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
}

// The first run of [A-Za-z0-9-] holding a digit and an inner hyphen, upper-cased.
std::optional<std::string> find_code(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && !is_code_char(text[i])) ++i;
        std::size_t start = i;
        while (i < text.size() && is_code_char(text[i])) ++i;
        std::size_t end = i;
        while (start < end && text[start] == '-') ++start;
        while (end > start && text[end - 1] == '-') --end;
        const std::string_view run = text.substr(start, end - start);
        bool digit = false;
        for (const char c : run) digit = digit || std::isdigit(static_cast<unsigned char>(c));
        if (!digit || run.find('-') == std::string_view::npos) continue;
        std::string code(run);
        for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return code;
    }
    return std::nullopt;
}

bool is_blank(std::string_view text) {
    for (const char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) return false;
    return true;
}

class NeedleScorer final : public bi::sdk::Scorer {
public:
    std::string extract_answer(const bi::sdk::ScoreInput& input) override {
        const auto code = find_code(input.completion);
        return code ? bi::sdk::json_string(*code) : "null";
    }

    std::string classify_failure_mode(const bi::sdk::ScoreInput& input) override {
        if (is_blank(input.completion)) return "empty";
        return input.extracted_answer_json == "null" ? "no_answer" : "ok";
    }

    bi::sdk::Score score(const bi::sdk::ScoreInput& input) override {
        const auto expected = bi::sdk::json_string_value(input.expected_answer_json);
        const auto extracted = bi::sdk::json_string_value(input.extracted_answer_json);
        const bool match = input.failure_mode == "ok" && expected && extracted &&
                           find_code(*expected) == extracted;
        return {match ? 1.0 : 0.0, match};
    }
};

bi::sdk::PluginDefinition define_plugin() {
    return bi::sdk::PluginDefinition("needle-cpp", "1.0.0",
                                     "example needle-recall scorer using the C++ helper")
        .add_scorer<NeedleScorer>("needle-cpp", "recall of a planted code, any case (C++ example)");
}

}  // namespace

BI_SDK_EXPORT_PLUGIN(define_plugin)
