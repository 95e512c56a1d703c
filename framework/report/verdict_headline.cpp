#include "verdict_headline.hpp"

namespace bi::report {

std::string_view verdict_word(core::Status status) {
    switch (status) {
        case core::Status::Green:
            return "GREEN";
        case core::Status::Failed:
            return "RED";
        case core::Status::GreenWithCaveat:
            return "AMBER";
        case core::Status::GreenUnverified:
            return "UNVERIFIED";
    }
    return "UNVERIFIED";
}

std::string verdict_headline(core::Status status,
                             const std::optional<core::DivergenceClass>& divergence_class,
                             const std::optional<core::Anomaly>& anomaly, bool promotable) {
    std::string line(verdict_word(status));
    const std::string words(core::name(status));
    if (status == core::Status::Green)
        return line + (promotable ? " (promotable)" : " (green, not promotable)");
    if (divergence_class)
        return line + " (" + words + ", " + std::string(core::name(*divergence_class)) + ")";
    if (anomaly) return line + " (" + words + ": " + std::string(core::name(*anomaly)) + ")";
    return line + " (" + words + ")";
}

}  // namespace bi::report
