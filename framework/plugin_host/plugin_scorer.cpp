#include "plugin_scorer.hpp"

#include <cmath>
#include <exception>
#include <optional>
#include <stdexcept>
#include <utility>

#include "core/verdict_kinds.hpp"
#include "io/json_text.hpp"
#include "plugin_errors.hpp"

namespace bi::plugin_host {

namespace {

// What one plugin call put into the sink. The callbacks copy, and never let an exception out.
struct SinkState {
    std::optional<std::string> answer_json;
    std::optional<std::string> failure_mode;
    std::optional<double> score;
    bool passed = false;
    std::string error;

    static SinkState& of(void* host_data) { return *static_cast<SinkState*>(host_data); }

    static void set_extracted_answer(void* host_data, const char* json, std::size_t size) noexcept {
        try {
            of(host_data).answer_json = json ? std::string(json, size) : std::string("null");
        } catch (...) {
            of(host_data).error = "the host ran out of memory";
        }
    }
    static void set_failure_mode(void* host_data, const char* label) noexcept {
        try {
            of(host_data).failure_mode = label ? std::string(label) : std::string();
        } catch (...) {
            of(host_data).error = "the host ran out of memory";
        }
    }
    static void set_score(void* host_data, double score, std::int32_t passed) noexcept {
        of(host_data).score = score;
        of(host_data).passed = passed != 0;
    }
    static void set_error(void* host_data, const char* message) noexcept {
        try {
            of(host_data).error = message ? message : "";
        } catch (...) {
        }
    }

    bi_scorer_sink sink() {
        bi_scorer_sink s{};
        s.struct_size = sizeof s;
        s.host_data = this;
        s.set_extracted_answer = &SinkState::set_extracted_answer;
        s.set_failure_mode = &SinkState::set_failure_mode;
        s.set_score = &SinkState::set_score;
        s.set_error = &SinkState::set_error;
        return s;
    }
};

// A plugin-side failure: evaluate() reports it in the outcome instead of throwing.
struct ScorerFailure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace

PluginScorer::PluginScorer(std::shared_ptr<const LoadedPlugin> plugin, const ScorerTable& scorer,
                           const std::string& config_json, PluginLogger logger)
    : plugin_(std::move(plugin)),
      scorer_(scorer),
      host_(
          std::make_unique<HostServicesBridge>(plugin_->name, TokenCounter(), std::move(logger))) {
    if (!scorer_.table.create) return;
    SinkState state;
    const bi_scorer_sink sink = state.sink();
    const std::int32_t status = scorer_.table.create(scorer_.original, config_json.c_str(),
                                                     host_->services(), &instance_, &sink);
    if (status != BI_STATUS_OK)
        throw Error(ErrorCategory::Plugin,
                    describe("create " + describe_call_failure(status, state.error)));
    created_ = true;
}

PluginScorer::~PluginScorer() {
    if (created_) scorer_.table.destroy(scorer_.original, instance_);
}

std::string PluginScorer::describe(const std::string& text) const {
    return plugin_error(plugin_->path, "scorer '" + scorer_.id + "': " + text).what();
}

ScoreOutcome PluginScorer::evaluate(const core::WorkItem& item, const Generation& generation) {
    ScoreOutcome outcome;
    try {
        // NUL-terminated copies: the views need not be.
        const std::string completion_text(generation.content);
        const std::string reasoning_text(generation.reasoning);
        const std::string tool_calls_json = io::to_json_text(generation.tool_calls);
        const std::string stop_reason(generation.stop_reason);
        const std::string expected_json = io::to_json_text(item.expected_answer);
        bi_score_input input{};
        input.struct_size = sizeof input;
        input.test_id = item.test_id.c_str();
        input.family = item.family.c_str();
        input.prompt = item.prompt.c_str();
        input.system = item.system.c_str();
        input.completion = completion_text.c_str();
        input.completion_size = completion_text.size();
        input.expected_answer_json = expected_json.c_str();
        input.fill = item.fill;
        input.seed = item.seed;
        input.rep = item.rep;
        input.reasoning = reasoning_text.c_str();
        input.reasoning_size = reasoning_text.size();
        input.tool_calls_json = tool_calls_json.c_str();
        input.completion_tokens = generation.completion_tokens.value_or(-1);
        input.stop_reason = stop_reason.c_str();

        const auto call = [&](const char* step, auto function) {
            SinkState state;
            const bi_scorer_sink sink = state.sink();
            const std::int32_t status = function(scorer_.original, instance_, &input, &sink);
            if (status != BI_STATUS_OK)
                throw ScorerFailure(
                    describe(std::string(step) + " " + describe_call_failure(status, state.error)));
            return state;
        };

        const std::string answer_json =
            call("extract_answer", scorer_.table.extract_answer).answer_json.value_or("null");
        try {
            outcome.extracted_answer = io::parse_json(answer_json, "extract_answer's result");
        } catch (const Error& e) {
            throw ScorerFailure(describe(e.what()));
        }
        input.extracted_answer_json = answer_json.c_str();

        const std::string label = call("classify_failure_mode", scorer_.table.classify_failure_mode)
                                      .failure_mode.value_or("");
        if (label.empty())
            throw ScorerFailure(describe("classify_failure_mode set no failure mode"));
        input.failure_mode = label.c_str();

        const SinkState scored = call("score", scorer_.table.score);
        if (!scored.score) throw ScorerFailure(describe("score set no score"));
        if (!std::isfinite(*scored.score))
            throw ScorerFailure(describe("score gave a non-finite score"));
        outcome.failure_mode = core::FailureLabel::from_word(label);
        outcome.score = *scored.score;
        outcome.passed = scored.passed;
        return outcome;
    } catch (const ScorerFailure& failure) {
        outcome.error = failure.what();
    } catch (const std::exception& e) {
        outcome.error = describe(std::string("host error: ") + e.what());
    }
    outcome.failure_mode = core::FailureMode::ScorerError;
    outcome.score = 0.0;
    outcome.passed = false;
    return outcome;
}

}  // namespace bi::plugin_host
