// A cert's history: the certs it replaced for the same cell (previous[]), read for the rule that
// a RED is sticky for its configuration, and for the "flaky" summary of report.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cert.hpp"

namespace bi::core {

// One reason per earlier RED of the cert's own configuration, when the cert is not itself RED:
// that RED proved a divergence which this run merely failed to see. Empty otherwise.
std::vector<std::string> sticky_red_reasons(const Cert& cert);

struct HistoryTally {
    std::size_t runs = 0;  // this cert and its previous[] of the same configuration
    std::size_t reds = 0;
};

HistoryTally tally_history(const Cert& cert);

// "flaky: RED 1 of 3 runs" when the configuration has both RED and non-RED runs, else "".
std::string flaky_note(const Cert& cert);

}  // namespace bi::core
