#include "upstream_cert.hpp"

namespace bi::trust {

namespace {

// The words at `key`: "" when absent or null; nullopt when something else is there.
std::optional<std::string> optional_words(const core::Json& document, const char* key) {
    const core::Json* value = document.find(key);
    if (!value || value->is_null()) return std::string();
    if (!value->is_string()) return std::nullopt;
    return value->as_string();
}

// A count the upstream contract may carry at `object.key`: absent is nullopt, anything but a
// whole number >= 0 is a problem.
struct Count {
    std::optional<std::int64_t> value;
    bool bad = false;
};

Count count_at(const core::Json* object, const char* key) {
    const core::Json* value = object && object->is_object() ? object->find(key) : nullptr;
    if (!value) return {};
    if (!value->is_int() || value->as_int() < 0) return {std::nullopt, true};
    return {value->as_int(), false};
}

}  // namespace

bool looks_like_upstream_cert(const core::Json& document) {
    return document.is_object() && !document.find("schema") && document.find("status");
}

ParsedUpstreamCert read_upstream_cert(const core::Json& document) {
    ParsedUpstreamCert parsed;
    const auto problem = [&](const std::string& key, const std::string& what) {
        parsed.problem = "$." + key + ": " + what;
        return parsed;
    };
    UpstreamCert cert;
    for (const char* key : {"model", "status"}) {
        const core::Json* value = document.find(key);
        if (!value || !value->is_string()) return problem(key, "missing or not a string");
    }
    for (const char* key : {"ctx", "dispatch_n"}) {
        const core::Json* value = document.find(key);
        if (!value || !value->is_int()) return problem(key, "missing or not an integer");
    }
    cert.model = document.find("model")->as_string();
    cert.status = document.find("status")->as_string();
    const auto status = core::parse_status(cert.status);
    if (!status) return problem("status", "unknown status '" + cert.status + "'");
    cert.verdict = *status;
    cert.ctx = document.find("ctx")->as_int();
    cert.dispatch_n = document.find("dispatch_n")->as_int();
    cert.source = document.string_or("source", "");
    const auto divergence_class = optional_words(document, "divergence_class");
    if (!divergence_class) return problem("divergence_class", "not a string or null");
    cert.divergence_class = *divergence_class;
    const auto anomaly = optional_words(document, "anomaly");
    if (!anomaly) return problem("anomaly", "not a string or null");
    cert.anomaly = *anomaly;
    if (const core::Json* reasons = document.find("decision_reasons")) {
        if (!reasons->is_array()) return problem("decision_reasons", "not a list");
        for (const auto& reason : reasons->as_array())
            if (reason.is_string()) cert.decision_reasons.push_back(reason.as_string());
    }
    const core::Json* report = document.find("divergence_report");
    const Count ac =
        count_at(report && report->is_object() ? report->find("AC") : nullptr, "n_divergent");
    const Count sensitivity = count_at(document.find("sensitivity"), "n_ac_divergent");
    if (ac.bad) return problem("divergence_report.AC.n_divergent", "not a whole number");
    if (sensitivity.bad) return problem("sensitivity.n_ac_divergent", "not a whole number");
    if (ac.value && sensitivity.value && *ac.value != *sensitivity.value)
        return problem("sensitivity.n_ac_divergent",
                       std::to_string(*sensitivity.value) +
                           " disagrees with divergence_report.AC.n_divergent " +
                           std::to_string(*ac.value));
    cert.n_divergent = static_cast<std::size_t>(ac.value.value_or(sensitivity.value.value_or(0)));
    parsed.cert = std::move(cert);
    return parsed;
}

}  // namespace bi::trust
