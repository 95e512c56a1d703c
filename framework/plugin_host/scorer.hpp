// What the driver needs from a scorer, whatever plugin provides it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/failure_label.hpp"
#include "core/json.hpp"
#include "core/work_item.hpp"

namespace bi::plugin_host {

struct ScoreOutcome {
    core::Json extracted_answer;      // always filled (null only when nothing could be extracted)
    core::FailureLabel failure_mode;  // Ok for a genuinely scored completion
    double score = 0.0;
    bool passed = false;
    std::string error;  // set, with failure_mode ScorerError, when the plugin reported an error
};

// Everything the server generated for one request; the views live for the evaluate call.
struct Generation {
    std::string_view content;
    std::string_view reasoning;                     // empty when none
    core::Json tool_calls;                          // null when none
    std::optional<std::int64_t> completion_tokens;  // nullopt when the server did not say
    std::string_view stop_reason;                   // empty when unknown
};

// One per-run scorer instance. Called from one thread at a time (after an arm, on the main
// thread). A failure the plugin reports becomes failure_mode "scorer_error"; a plugin that crashes
// or hangs throws plugin_host::PluginFault, which ends the run without a verdict.
class ScorerInstance {
public:
    virtual ~ScorerInstance() = default;
    virtual ScoreOutcome evaluate(const core::WorkItem& item, const Generation& generation) = 0;
    // A completion that is text only: no reasoning, no tool calls, unknown count and reason.
    ScoreOutcome evaluate(const core::WorkItem& item, std::string_view completion) {
        Generation generation;
        generation.content = completion;
        return evaluate(item, generation);
    }
};

}  // namespace bi::plugin_host
