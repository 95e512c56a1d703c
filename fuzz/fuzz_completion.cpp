// Completion answers: the body as both endpoints would read it (/v1/chat/completions and
// /completion). parse_completion turns every bad body into a "bad_response" outcome, so no
// exception at all may escape it.
#include "fuzz_input.hpp"
#include "http/completion_response.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto body = bi::fuzz::as_text(data, size);
    for (const auto endpoint : {bi::http::EndpointKind::Chat, bi::http::EndpointKind::Completion}) {
        const auto outcome = bi::http::parse_completion(endpoint, body);
        if (outcome.ok() && outcome.result.token_ids && outcome.result.token_logprobs)
            (void)(outcome.result.token_ids->size() + outcome.result.token_logprobs->size());
    }
    return 0;
}
