// How far chosen-token logprobs moved, in the words every verdict, check and report line uses
// (docs/cert.md "Logprob drift").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "trial.hpp"

namespace bi::core {

// "largest chosen-token logprob delta 0.00153 (--logit-drift-eps 0: every delta counts)": how
// far logprob drift went, beside the threshold it was judged by.
std::string logprob_drift_size(double largest_delta, double logit_drift_eps);

// What a comparison says of logprobs when the answers carried none (a chat run without
// --logprobs).
inline constexpr std::string_view kLogprobsNotCompared =
    "chosen-token logprobs were not compared (the answers carry none: --logprobs 0)";

// Whether some id carries chosen-token logprobs in `a` and in one of `passes`.
bool logprobs_compared(const ArmResults& a, const std::vector<ArmResults>& passes);

}  // namespace bi::core
