// libspark.so: the spark measurement profile, a generator and a scorer under one id, built only
// against the public SDK like any third-party plugin.
#include <bi/plugin.hpp>

#include "family_rules.hpp"
#include "json.hpp"
#include "spark_generator.hpp"
#include "text_extract.hpp"

namespace spark {

namespace {

constexpr const char* kVersion = BI_SPARK_VERSION;  // the project version, from CMake

class SparkScorer final : public bi::sdk::Scorer {
public:
    std::string extract_answer(const bi::sdk::ScoreInput& input) override {
        const Json expected = parse_expected(input.family, input.expected_answer_json);
        return to_json(spark::extract_answer(input.family, input.completion, expected).answer);
    }
    std::string classify_failure_mode(const bi::sdk::ScoreInput& input) override {
        const Json expected = parse_expected(input.family, input.expected_answer_json);
        return spark::classify_failure_mode(input.family, input.completion, expected);
    }
    bi::sdk::Score score(const bi::sdk::ScoreInput& input) override {
        const Json expected = parse_expected(input.family, input.expected_answer_json);
        const double value = score_answer(input.family, input.completion, expected);
        return {value, value >= 0.5};
    }
};

bi::sdk::PluginDefinition define_plugin() {
    bi::sdk::PluginDefinition plugin(
        "spark", kVersion, "the spark agentic-coding measurement profile: work-sets and scoring");
    plugin.add_generator<SparkGenerator>(
        "spark",
        "ten agentic-coding families; params corner=balanced|short|long, families=, echo=");
    plugin.add_scorer<SparkScorer>(
        "spark", "per-family extraction, failure modes and scores for spark work-sets");
    return plugin;
}

}  // namespace

}  // namespace spark

BI_SDK_EXPORT_PLUGIN(spark::define_plugin)
