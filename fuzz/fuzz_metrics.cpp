// GET /metrics bodies (Prometheus text): parse_metrics never throws. The input is split at its
// first NUL byte into two samples, folded into overlap evidence as a poller window would be, so
// the busy-slots-per-decode delta sees arbitrary pairs of gauges.
#include "fuzz_input.hpp"
#include "http/server_observation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = bi::fuzz::as_text(data, size);
    const auto nul = text.find('\0');
    bi::http::OverlapAccumulator accumulator;
    accumulator.add_metrics(bi::http::parse_metrics(text.substr(0, nul)));
    if (nul != std::string_view::npos)
        accumulator.add_metrics(bi::http::parse_metrics(text.substr(nul + 1)));
    accumulator.count_sample();
    (void)accumulator.evidence();
    return 0;
}
