// The spark generator's parameters (--generator-param KEY=VALUE): corner, families, echo and
// min_prompt_tokens.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spark {

struct CornerSpec {
    std::string_view name;
    std::vector<double> fills;
};
// balanced {0.10, 0.35, 0.60, 0.85}, short {0.05, 0.15}, long {0.75, 0.90, 0.97}.
const std::vector<CornerSpec>& corners();

// The most of ctx any corner's prompt fills (the long corner's 0.97): the rest is left for the
// system message, the chat template and the answer, so min_prompt_tokens may not ask for more.
double largest_fill();

struct GeneratorParams {
    std::string corner = "balanced";
    std::vector<double> fills;          // the corner's fills
    std::vector<std::string> families;  // canonical order unless listed otherwise
    bool echo = false;                  // add the mock's echo marker with a correct answer
    // Every prompt has at least this many tokens (0: none asked), padded with more filler, so
    // that a server with a small prefill chunk prefills each in several chunks.
    std::int64_t min_prompt_tokens = 0;
};

// Reads the pairs in order (a later value of a key wins). A value holding ",key=value" pieces is
// split too, so "corner=long,families=A2,E3" works however the host split it. Unknown keys,
// corners or families, and a min_prompt_tokens that is not a positive whole number, throw
// bi::sdk::Failure(BI_STATUS_INVALID_ARGUMENT) with a one-line message.
GeneratorParams parse_generator_params(
    const std::vector<std::pair<std::string, std::string>>& pairs);

}  // namespace spark
