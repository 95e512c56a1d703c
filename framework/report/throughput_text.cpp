#include "throughput_text.hpp"

#include "core/text.hpp"

namespace bi::report {

namespace {

// Three significant figures, never in exponent form for the rates a server reaches.
std::string rate(double value) {
    return core::format_fixed(value, value < 10.0 ? 2 : value < 100.0 ? 1 : 0);
}

}  // namespace

std::string speedup_text(const std::optional<core::Throughput>& throughput) {
    const auto speedup = throughput ? throughput->speedup() : std::nullopt;
    return speedup ? core::format_fixed(*speedup, *speedup < 10.0 ? 2 : 1) + "x" : "-";
}

std::optional<std::string> throughput_line(const core::Throughput& throughput, std::int64_t n) {
    const core::ArmThroughput* a = throughput.arm("A");
    const core::ArmThroughput* c = throughput.arm("C");
    const auto speedup = throughput.speedup();
    if (!a || !c || !speedup) return std::nullopt;
    std::string line = "throughput: batching gave " + speedup_text(throughput) +
                       " the tokens/s (A " + rate(*a->tokens_per_s()) + " tokens/s serially, C " +
                       rate(*c->tokens_per_s()) + " tokens/s with N " + std::to_string(n) +
                       " at once)";
    if (c->itl_ms_median && c->itl_ms_p95)
        line += "; inter-token latency in C: median " + rate(*c->itl_ms_median) + " ms, p95 " +
                rate(*c->itl_ms_p95) + " ms";
    if (a->itl_ms_median) line += " (A: median " + rate(*a->itl_ms_median) + " ms)";
    return line;
}

}  // namespace bi::report
