// Names, validation and derived values of MockConfig.
#include "mock_config.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace bi::mock {

namespace {

struct DivergenceName {
    Divergence mode;
    const char* name;
};

constexpr DivergenceName kDivergenceNames[] = {
    {Divergence::None, "none"},
    {Divergence::Score, "score"},
    {Divergence::Token, "token"},
    {Divergence::Logprob, "logprob"},
    {Divergence::Stochastic, "stochastic"},
    {Divergence::Contamination, "contamination"},
    {Divergence::NotGreedy, "not-greedy"},
};

struct BuildVariantName {
    BuildVariant variant;
    const char* name;
};

constexpr BuildVariantName kBuildVariantNames[] = {
    {BuildVariant::None, "none"},
    {BuildVariant::Score, "score"},
    {BuildVariant::Token, "token"},
    {BuildVariant::Logprob, "logprob"},
};

[[noreturn]] void refuse(const std::string& message) {
    throw Error(ErrorCategory::Usage, "bi-mock: " + message);
}

}  // namespace

const char* build_variant_name(BuildVariant variant) {
    for (const auto& entry : kBuildVariantNames)
        if (entry.variant == variant) return entry.name;
    return "none";
}

BuildVariant parse_build_variant(std::string_view name) {
    for (const auto& entry : kBuildVariantNames)
        if (name == entry.name) return entry.variant;
    refuse("unknown build variant '" + std::string(name) + "' (none, score, token, logprob)");
}

const char* divergence_name(Divergence mode) {
    for (const auto& entry : kDivergenceNames)
        if (entry.mode == mode) return entry.name;
    return "none";
}

const char* schedule_name(Schedule schedule) {
    switch (schedule) {
        case Schedule::Batched:
            return "batched";
        case Schedule::Serial:
            return "serial";
        case Schedule::RoundRobin:
            return "round-robin";
    }
    return "batched";  // unreachable: the switch names every schedule (-Werror=switch)
}

Schedule parse_schedule(std::string_view name) {
    for (const auto schedule : {Schedule::Batched, Schedule::Serial, Schedule::RoundRobin})
        if (name == schedule_name(schedule)) return schedule;
    refuse("unknown schedule '" + std::string(name) + "' (batched, serial, round-robin)");
}

Divergence parse_divergence(std::string_view name) {
    for (const auto& entry : kDivergenceNames)
        if (name == entry.name) return entry.mode;
    refuse("unknown divergence mode '" + std::string(name) +
           "' (none, score, token, logprob, stochastic, contamination, not-greedy)");
}

void validate(const MockConfig& config) {
    if (config.host != "127.0.0.1" && config.host != "localhost")
        refuse("host '" + config.host + "' refused: the mock serves 127.0.0.1 only");
    if (config.slots < 1 || config.slots > 1024)
        refuse("slots must be in 1..1024, got " + std::to_string(config.slots));
    if (config.n_ctx < 1) refuse("n_ctx must be >= 1, got " + std::to_string(config.n_ctx));
    if (config.prompt_tokens_per_step < 1)
        refuse("prompt_tokens_per_step must be >= 1, got " +
               std::to_string(config.prompt_tokens_per_step));
    if (!std::isfinite(config.tick_ms) || config.tick_ms < 0 || config.tick_ms > 60000)
        refuse("tick_ms must be in 0..60000");
    if (!std::isfinite(config.tick_per_turnaround) || config.tick_per_turnaround < 0 ||
        config.tick_per_turnaround > 100)
        refuse("tick_per_turnaround must be in 0..100");
    if (!(config.divergence_p >= 0.0 && config.divergence_p <= 1.0))
        refuse("divergence_p must be in [0, 1]");
    if (config.build_variant_every < 1 || config.build_variant_every > 1000)
        refuse("build_variant_every must be in 1..1000");
    if (config.cache_changes_every < 1 || config.cache_changes_every > 1000)
        refuse("cache_changes_every must be in 1..1000");
    if (!std::isfinite(config.loading_seconds) || config.loading_seconds < 0)
        refuse("loading_seconds must be >= 0");
    if (config.http_threads < 0 || config.http_threads > 4096)
        refuse("http_threads must be in 0..4096");
    if (config.http_threads != 0 && config.http_threads < config.slots + 8)
        refuse("http_threads must be at least slots + 8");
}

std::string model_name(const MockConfig& config) {
    return config.model_alias.empty() ? config.model_path : config.model_alias;
}

int http_thread_count(const MockConfig& config) {
    if (config.http_threads > 0) return config.http_threads;
    return std::max(64, 2 * config.slots + 16);
}

}  // namespace bi::mock
