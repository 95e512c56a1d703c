// /metrics in Prometheus text format. Names, HELP strings and order follow llama-server so a
// poller written against the real server reads the mock unchanged.
#include <cmath>
#include <sstream>

#include "info_bodies.hpp"

namespace bi::mock {

namespace {

struct Metric {
    const char* name;
    const char* help;
    const char* type;
    double value;
};

}  // namespace

std::string metrics_text(const SchedulerStats& stats) {
    const auto count = [](std::uint64_t value) { return static_cast<double>(value); };
    const double decodes = count(stats.n_decode_total);
    const Metric metrics[] = {
        {"prompt_tokens_total", "Number of prompt tokens processed, excluding cached tokens",
         "counter", count(stats.prompt_tokens_total)},
        {"prompt_tokens_cached_total", "Number of prompt tokens reused from the cache", "counter",
         count(stats.prompt_tokens_cached_total)},
        {"prompt_seconds_total", "Total time spent processing prompts", "counter",
         stats.prompt_seconds_total},
        {"tokens_predicted_total", "Number of generation tokens processed", "counter",
         count(stats.tokens_predicted_total)},
        {"tokens_predicted_seconds_total", "Total time spent generating tokens", "counter",
         stats.tokens_predicted_seconds_total},
        {"n_decode_total",
         "Total number of llama_decode() calls, excluding speculative decoding and multimodal "
         "decoding",
         "counter", decodes},
        {"n_tokens_max", "Largest observed sequence length (prompt + generation)", "counter",
         count(stats.n_tokens_max)},
        {"spec_decode_num_draft_tokens_total", "Speculative: Total draft tokens generated",
         "counter", 0.0},
        {"spec_decode_num_accepted_tokens_total",
         "Speculative: Total draft tokens accepted by the target model", "counter", 0.0},
        {"spec_decode_num_drafts_total",
         "Speculative: Total speculative decoding verification steps", "counter", 0.0},
        {"prompt_tokens_seconds", "Average prompt throughput in tokens/s", "gauge",
         stats.prompt_seconds_total > 0
             ? count(stats.prompt_tokens_total) / stats.prompt_seconds_total
             : 0.0},
        {"predicted_tokens_seconds", "Average generation throughput in tokens/s", "gauge",
         stats.tokens_predicted_seconds_total > 0
             ? count(stats.tokens_predicted_total) / stats.tokens_predicted_seconds_total
             : 0.0},
        {"requests_processing", "Number of requests processing", "gauge",
         static_cast<double>(stats.requests_processing)},
        {"requests_deferred", "Number of requests deferred", "gauge",
         static_cast<double>(stats.requests_deferred)},
        {"n_busy_slots_per_decode", "Average number of busy slots per llama_decode() call", "gauge",
         decodes > 0 ? count(stats.n_busy_slots_total) / decodes : 0.0},
    };
    std::ostringstream text;
    for (const auto& metric : metrics) {
        text << "# HELP llamacpp:" << metric.name << " " << metric.help << "\n"
             << "# TYPE llamacpp:" << metric.name << " " << metric.type << "\n"
             << "llamacpp:" << metric.name << " ";
        // Counts print exactly (pollers difference them); rates keep 6 significant digits.
        if (metric.value == std::floor(metric.value) && std::fabs(metric.value) < 9.0e15)
            text << static_cast<long long>(metric.value) << "\n";
        else
            text << metric.value << "\n";
    }
    return text.str();
}

}  // namespace bi::mock
