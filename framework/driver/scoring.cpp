#include "scoring.hpp"

#include <map>
#include <string_view>

#include "core/error.hpp"

namespace bi::driver {

core::ArmResults score_arm(std::vector<core::TrialRecord> records,
                           const std::vector<core::WorkItem>& items,
                           plugin_host::ScorerInstance& scorer) {
    std::map<std::string_view, const core::WorkItem*> by_id;
    for (const auto& item : items) by_id.emplace(item.test_id, &item);

    core::ArmResults arm;
    for (auto& record : records) {
        auto it = by_id.find(record.test_id);
        if (it == by_id.end())
            throw Error(ErrorCategory::Internal, "trial for unknown item " + record.test_id);
        const core::WorkItem& item = *it->second;
        record.expected_answer = item.expected_answer;
        if (!record.failure_mode.is_set()) {
            plugin_host::Generation generation;
            generation.content = record.content;
            generation.reasoning = record.reasoning_content;
            generation.tool_calls = record.tool_calls;
            generation.completion_tokens = record.completion_tokens;
            generation.stop_reason = record.finish_reason;
            auto outcome = scorer.evaluate(item, generation);
            record.extracted_answer = std::move(outcome.extracted_answer);
            record.failure_mode = std::move(outcome.failure_mode);
            if (outcome.error.empty()) {
                record.score = outcome.score;
                record.passed = outcome.passed;
            } else {
                record.error = std::move(outcome.error);  // scorer_error: no score to compare
            }
        }
        std::string id = record.test_id;
        arm.insert_or_assign(std::move(id), std::move(record));
    }
    return arm;
}

}  // namespace bi::driver
