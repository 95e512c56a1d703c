// What the driver needs from a scorer, whatever plugin provides it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/json.hpp"
#include "core/work_item.hpp"

namespace bi::plugin_host {

struct ScoreOutcome {
    core::Json extracted_answer;  // always filled (null only when nothing could be extracted)
    std::string failure_mode;     // "ok" for a genuinely scored completion
    double score = 0.0;
    bool passed = false;
    std::string error;  // set, with failure_mode "scorer_error", when the plugin reported an error
};

// One per-run scorer instance. Called from one thread at a time (after an arm, on the main
// thread). Never throws for a plugin-side failure: that becomes failure_mode "scorer_error".
class ScorerInstance {
public:
    virtual ~ScorerInstance() = default;
    virtual ScoreOutcome evaluate(const core::WorkItem& item, std::string_view completion) = 0;
};

}  // namespace bi::plugin_host
