#include "logprob_drift.hpp"

#include "text.hpp"

namespace bi::core {

std::string logprob_drift_size(double largest_delta, double logit_drift_eps) {
    return "largest chosen-token logprob delta " + format_general(largest_delta, 3) +
           " (--logit-drift-eps " + format_general(logit_drift_eps) +
           (logit_drift_eps > 0 ? ": smaller logprob-only deltas are not drift)"
                                : ": every delta counts)");
}

bool logprobs_compared(const ArmResults& a, const std::vector<ArmResults>& passes) {
    for (const auto& pass : passes)
        for (const auto& [id, c] : pass) {
            const auto found = a.find(id);
            if (c.token_logprobs && found != a.end() && found->second.token_logprobs) return true;
        }
    return false;
}

}  // namespace bi::core
