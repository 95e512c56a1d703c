#include "arrivals.hpp"

#include <array>

#include "splitmix64.hpp"

namespace bi::core {

namespace {

constexpr std::array<std::pair<Arrivals, std::string_view>, 3> kWords{{
    {Arrivals::Mixed, "mixed"},
    {Arrivals::Together, "together"},
    {Arrivals::Staggered, "staggered"},
}};

}  // namespace

std::string_view arrivals_name(Arrivals arrivals) {
    for (const auto& [value, word] : kWords)
        if (value == arrivals) return word;
    return "mixed";
}

std::optional<Arrivals> parse_arrivals(std::string_view word) {
    for (const auto& [value, name] : kWords)
        if (name == word) return value;
    return std::nullopt;
}

std::int64_t min_staggered_tokens(std::int64_t n) {
    return kStaggeredTokensPerRequest * n;
}

Arrivals pass_schedule(Arrivals arrivals, std::uint64_t seed, int pass, std::int64_t answer_tokens,
                       std::int64_t n) {
    if (arrivals != Arrivals::Mixed) return arrivals;
    if (answer_tokens < min_staggered_tokens(n)) return Arrivals::Together;
    // A stream of its own, so that the schedule does not follow the pass permutations' draws.
    const std::uint64_t first = mix64(seed ^ 0xA5A5A5A5A5A5A5A5ULL) & 1U;
    const bool staggered = ((static_cast<std::uint64_t>(pass) - 1U + first) & 1U) != 0;
    return staggered ? Arrivals::Staggered : Arrivals::Together;
}

}  // namespace bi::core
