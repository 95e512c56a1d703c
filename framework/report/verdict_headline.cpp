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

int verdict_rank(core::Status status) {
    switch (status) {
        case core::Status::Failed:
            return 3;
        case core::Status::GreenUnverified:
            return 2;
        case core::Status::GreenWithCaveat:
            return 1;
        case core::Status::Green:
            break;
    }
    return 0;
}

std::string verdict_headline_words(core::Status status, std::string_view divergence_class,
                                   std::string_view anomaly, bool promotable) {
    std::string line(verdict_word(status));
    const std::string words(core::name(status));
    if (status == core::Status::Green)
        return line + (promotable ? " (promotable)" : " (green, not promotable)");
    if (!divergence_class.empty())
        return line + " (" + words + ", " + std::string(divergence_class) + ")";
    if (!anomaly.empty()) return line + " (" + words + ": " + std::string(anomaly) + ")";
    return line + " (" + words + ")";
}

std::string verdict_headline(core::Status status,
                             const std::optional<core::DivergenceClass>& divergence_class,
                             const std::optional<core::Anomaly>& anomaly, bool promotable) {
    return verdict_headline_words(
        status, divergence_class ? core::name(*divergence_class) : std::string_view(),
        anomaly ? core::name(*anomaly) : std::string_view(), promotable);
}

std::string upstream_headline(const trust::UpstreamCert& cert) {
    return verdict_headline_words(cert.verdict, cert.divergence_class, cert.anomaly, false);
}

}  // namespace bi::report
