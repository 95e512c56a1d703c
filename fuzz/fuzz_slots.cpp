// GET /slots bodies: parse_slots, and the sample folded into overlap evidence as the poller does.
#include "fuzz_input.hpp"
#include "http/server_observation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    bi::fuzz::refusals_allowed([&] {
        const auto sample = bi::http::parse_slots(bi::fuzz::as_text(data, size));
        bi::http::OverlapAccumulator accumulator;
        accumulator.add_slots(sample, 0, 1);
        accumulator.add_slots(sample);
        accumulator.count_sample();
        (void)accumulator.evidence();
    });
    return 0;
}
