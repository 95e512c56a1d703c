// The mock's "model": the token at each position is a pure function of (prompt key, position),
// with deterministic logprobs (a prompt that continues an earlier answer takes that answer's key
// and position, continuation_memory.hpp), and each knob says how it is perturbed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mock_config.hpp"

namespace bi::mock {

struct Candidate {
    std::int32_t id = 0;
    std::string piece;
    double logprob = 0.0;
};

struct GeneratedToken {
    Candidate chosen;
    std::vector<Candidate> top;  // the n_top most likely, chosen first (generation is greedy)
};

std::uint64_t prompt_key(const std::vector<std::int32_t>& prompt_ids);

// How many tokens the mock generates before EOS when the request sets no n_predict limit.
int natural_length(std::uint64_t prompt_key);

// What the scheduler knows about one decode step of one slot.
struct StepContext {
    int position = 0;              // index of the token being generated
    int n_target = 0;              // tokens this completion will end with
    bool co_batched = false;       // >= 2 slots were busy in this tick
    bool ever_co_batched = false;  // in this tick or any earlier one of the request
    bool susceptible = false;      // Stochastic: this request's coin says "diverge"
    const std::vector<std::string>* neighbour_words = nullptr;  // a busy neighbour's prompt
    int leak_index = 0;  // Contamination: words of it this request leaked so far
};

GeneratedToken base_token(std::uint64_t prompt_key, int position, int n_top);
// Whether a build variant with `every` changes the answer to the prompt with `prompt_key`.
bool build_variant_changes(std::uint64_t prompt_key, int every);
// `token` as a server build of `variant` generates it: unchanged for a prompt the variant
// leaves alone (build_variant_changes) or for BuildVariant::None.
GeneratedToken with_build_variant(BuildVariant variant, int every, std::uint64_t prompt_key,
                                  const StepContext& step, int n_top, GeneratedToken token);
// Whether a prompt cache that changes answers (MockConfig::cache_changes) changes the answer to
// the prompt with `prompt_key` when it was served from the cache: every `every`-th prompt.
bool cache_changes_answer(std::uint64_t prompt_key, int every);
// `token` as it comes out of a warm cache that changes answers: other words, at every position,
// for a chosen prompt; unchanged for any other.
GeneratedToken with_cache_change(int every, std::uint64_t prompt_key, const StepContext& step,
                                 int n_top, GeneratedToken token);
GeneratedToken next_token(Divergence mode, std::uint64_t prompt_key, const StepContext& step,
                          int n_top);

}  // namespace bi::mock
