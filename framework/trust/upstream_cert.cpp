#include "upstream_cert.hpp"

#include "core/verdict_kinds.hpp"

namespace bi::trust {

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
    if (!core::parse_status(cert.status))
        return problem("status", "unknown status '" + cert.status + "'");
    cert.ctx = document.find("ctx")->as_int();
    cert.dispatch_n = document.find("dispatch_n")->as_int();
    cert.source = document.string_or("source", "");
    if (const core::Json* reasons = document.find("decision_reasons")) {
        if (!reasons->is_array()) return problem("decision_reasons", "not a list");
        for (const auto& reason : reasons->as_array())
            if (reason.is_string()) cert.decision_reasons.push_back(reason.as_string());
    }
    if (const core::Json* mismatch = document.find("mismatch"); mismatch && mismatch->is_array())
        cert.n_divergent = mismatch->size();
    parsed.cert = std::move(cert);
    return parsed;
}

}  // namespace bi::trust
