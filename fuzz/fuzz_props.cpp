// GET /props bodies: parse_props never throws; what the cell runner reads from the answer
// (total_slots, bi_mock) and the trimmed part a cert records, written as the cert writes it.
#include "fuzz_input.hpp"
#include "http/server_props.hpp"
#include "io/json_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto props = bi::http::parse_props(bi::fuzz::as_text(data, size));
    (void)props.bool_or("bi_mock", false);
    if (const auto* slots = props.find("total_slots"); slots && slots->is_int())
        (void)slots->as_int();
    const auto kept = bi::http::trim_props(props);
    // Parsed JSON holds only finite numbers, so writing it back must not fail.
    (void)bi::io::to_json_text(kept, true);
    return 0;
}
