#include "trial.hpp"

#include <algorithm>

#include "text.hpp"

namespace bi::core {

namespace {
template <typename T>
Json optional_json(const std::optional<T>& value) {
    return value ? Json(*value) : Json();
}
}  // namespace

std::vector<std::pair<std::string_view, Json>> invariant_values(const TrialRecord& record) {
    return {
        {"score", optional_json(record.score)},
        {"passed", optional_json(record.passed)},
        {"extracted_answer", record.extracted_answer},
        {"expected_answer", record.expected_answer},
        {"prompt_tokens_measured", optional_json(record.prompt_tokens_measured)},
        {"failure_mode",
         record.failure_mode.is_set() ? Json(std::string(record.failure_mode.word())) : Json()},
    };
}

std::string format_fill(double fill) {
    return format_fixed(fill, 2);
}

std::optional<std::int64_t> longest_prompt_tokens(const ArmResults& arm) {
    std::optional<std::int64_t> longest;
    for (const auto& [id, trial] : arm) {
        if (!trial.prompt_tokens_measured) return std::nullopt;
        longest = std::max(longest.value_or(0), *trial.prompt_tokens_measured);
    }
    return longest;
}

}  // namespace bi::core
