// How the requests of a concurrent pass (arm C) arrive (docs/design.md §5.2.4). Sent together,
// N requests are prefilled in one step and decode side by side; staggered, each is sent once the
// one before it is decoding, so its prefill shares a step with the others' decodes, as requests
// of real traffic do. A run mixes the two by default, pass by pass, from its seed.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace bi::core {

enum class Arrivals {
    Mixed,      // passes alternate, the first pass's schedule drawn from the run's seed
    Together,   // every pass sends its first N requests at once
    Staggered,  // every pass chains its first N requests, each after the previous one decodes
};

// "mixed", "together", "staggered"; parse_arrivals is its inverse (nullopt for any other word).
std::string_view arrivals_name(Arrivals arrivals);
std::optional<Arrivals> parse_arrivals(std::string_view word);
inline constexpr std::string_view kArrivalsWords = "mixed, together or staggered";

// The fewest tokens an answer must be allowed for Mixed to stagger a pass of N: a staggered pass
// ramps up over N - 1 steps (and as many client turnarounds) before all N decode together, so
// shorter answers end before the last request joins, and the pass cannot show N at once.
inline constexpr std::int64_t kStaggeredTokensPerRequest = 4;
std::int64_t min_staggered_tokens(std::int64_t n);

// The schedule pass `pass` (1-based) runs under `arrivals`: Together or Staggered. Mixed
// alternates, starting from a bit of the seed, so any two consecutive passes run both, when
// answers of `answer_tokens` (all but the shortest fifth of arm A's reach it) are long enough for
// N (min_staggered_tokens);
// else Together.
Arrivals pass_schedule(Arrivals arrivals, std::uint64_t seed, int pass, std::int64_t answer_tokens,
                       std::int64_t n);

}  // namespace bi::core
