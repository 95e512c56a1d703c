#include "cert_history.hpp"

#include <algorithm>

#include "configuration.hpp"

namespace bi::core {

namespace {

bool same_configuration(const PreviousCert& previous, const std::string& id) {
    return previous.configuration_id && *previous.configuration_id == id;
}

}  // namespace

std::vector<std::string> sticky_red_reasons(const Cert& cert) {
    std::vector<std::string> reasons;
    if (!cert.previous || cert.verdict.status == Status::Failed) return reasons;
    const std::string id = configuration_id(cert);
    for (const auto& previous : *cert.previous)
        if (previous.status.status() == Status::Failed && same_configuration(previous, id))
            reasons.push_back("a RED for this configuration (" + id +
                              ") is in its history: " + previous.file + " of " + previous.ts_utc +
                              "; that run proved a divergence this one failed to see");
    return reasons;
}

HistoryTally tally_history(const Cert& cert) {
    HistoryTally tally;
    tally.runs = 1;
    tally.reds = cert.verdict.status == Status::Failed ? 1 : 0;
    if (!cert.previous) return tally;
    const std::string id = configuration_id(cert);
    for (const auto& previous : *cert.previous) {
        if (!same_configuration(previous, id)) continue;
        ++tally.runs;
        if (previous.status.status() == Status::Failed) ++tally.reds;
    }
    return tally;
}

std::string replaced_note(const Cert& cert) {
    if (!cert.previous) return "";
    const std::string id = configuration_id(cert);
    const auto other = std::find_if(cert.previous->rbegin(), cert.previous->rend(),
                                    [&](const auto& p) { return !same_configuration(p, id); });
    if (other == cert.previous->rend()) return "";
    const PreviousCert& last = *other;
    return "replaced " + last.file + " (" + std::string(last.status.word()) + " of " + last.ts_utc +
           ", another configuration: " + last.configuration_id.value_or("unknown") + " then, " +
           id + " now)";
}

std::string flaky_note(const Cert& cert) {
    const auto tally = tally_history(cert);
    if (tally.reds == 0 || tally.reds == tally.runs) return "";
    return "flaky: RED " + std::to_string(tally.reds) + " of " + std::to_string(tally.runs) +
           " runs";
}

}  // namespace bi::core
