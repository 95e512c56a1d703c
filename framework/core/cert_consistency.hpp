// Whether a cert agrees with itself: its gates, status and source re-derived from the evidence it
// carries, and its cache check's counts, lists and status against each other, so that an edited
// cert with a recomputed digest is still refused.
#pragma once

#include <string>
#include <vector>

#include "cert.hpp"

namespace bi::core {

// One line per disagreement, evidence first, then gates, verdict, source and the cache check (the
// first line is the root cause to show); empty when the cert is consistent.
std::vector<std::string> cert_disagreements(const Cert& cert);

// The rule that decided the cert: the one it records, else (a cert written before the rule was
// recorded) the one its evidence fires, its lines taken to be the last of decision_reasons.
FiredRule deciding_rule(const Cert& cert);

}  // namespace bi::core
