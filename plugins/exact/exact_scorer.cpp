// The default scorer, shipped as a plugin through the same SDK third parties use: the stripped
// completion must equal the stripped expected answer, character for character. Its extracted
// answer also carries any reasoning and tool calls, so the gate compares those too.
#include <bi/plugin.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace {

constexpr const char* kVersion = BI_EXACT_VERSION;  // the project version, from CMake

// ASCII whitespace only: Unicode-aware stripping would depend on a locale or a table.
std::string_view strip(std::string_view text) {
    constexpr std::string_view kSpace = " \t\n\r\f\v";
    const auto first = text.find_first_not_of(kSpace);
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(kSpace);
    return text.substr(first, last - first + 1);
}

// A string answer compares by its text; any other JSON by its JSON text (42 -> "42").
std::optional<std::string> expected_text(std::string_view expected_json) {
    if (auto text = bi::sdk::json_string_value(expected_json)) return std::string(strip(*text));
    const std::string_view json = strip(expected_json);
    if (json.empty() || json == "null") return std::nullopt;  // no expected answer: nothing matches
    return std::string(json);
}

bool has_tool_calls(const bi::sdk::ScoreInput& input) {
    const std::string_view json = strip(input.tool_calls_json);
    return !json.empty() && json != "null";
}

class ExactScorer final : public bi::sdk::Scorer {
public:
    // The stripped text as a JSON string, exactly as before reasoning and tool calls were seen,
    // so that plain completions keep their answers (and old certs stay comparable). With either
    // present: {"content": text, "reasoning": text, "tool_calls": the calls or null}.
    std::string extract_answer(const bi::sdk::ScoreInput& input) override {
        const std::string content = bi::sdk::json_string(strip(input.completion));
        const std::string_view reasoning = strip(input.reasoning);
        const bool calls = has_tool_calls(input);
        if (reasoning.empty() && !calls) return content;
        return "{\"content\":" + content + ",\"reasoning\":" + bi::sdk::json_string(reasoning) +
               ",\"tool_calls\":" + std::string(calls ? strip(input.tool_calls_json) : "null") +
               "}";
    }
    // A completion that only calls tools has answered; one that only reasoned has not.
    std::string classify_failure_mode(const bi::sdk::ScoreInput& input) override {
        return strip(input.completion).empty() && !has_tool_calls(input) ? "empty" : "ok";
    }
    bi::sdk::Score score(const bi::sdk::ScoreInput& input) override {
        const auto expected = expected_text(input.expected_answer_json);
        const bool match = expected && *expected == strip(input.completion);
        return {match ? 1.0 : 0.0, match};
    }
};

bi::sdk::PluginDefinition define_plugin() {
    bi::sdk::PluginDefinition plugin("exact", kVersion,
                                     "the default exact-match scorer shipped with bi-run");
    plugin.add_scorer<ExactScorer>(
        "exact", "score 1 iff the stripped completion equals the stripped expected answer");
    return plugin;
}

}  // namespace

BI_SDK_EXPORT_PLUGIN(define_plugin)
