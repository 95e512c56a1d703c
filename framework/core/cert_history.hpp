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

// "replaced history/m__ctx512__N2.20261201T151238Z.json (green of 2026-12-01T15:12:38Z, another
// configuration: cfg-... then, cfg-... now)": the latest cert of the cell's history that was of
// another configuration (a run of other settings took the cell from it); "" when none was.
std::string replaced_note(const Cert& cert);

// "flaky: RED 1 of 3 runs" when the configuration has both RED and non-RED runs, else "".
std::string flaky_note(const Cert& cert);

}  // namespace bi::core
