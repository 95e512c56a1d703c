#include "attestation.hpp"

#include "core/error.hpp"
#include "io/json_text.hpp"

namespace bi::trust {

namespace {

core::Json subject(const std::string& name, const std::string& sha256) {
    return core::Json::Object{{"name", name}, {"digest", core::Json::Object{{"sha256", sha256}}}};
}

bool is_sha256_hex(const std::string& text) {
    if (text.size() != 64) return false;
    for (char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

void add_subject(core::Json& subjects, const std::string& name,
                 const std::optional<std::string>& sha256) {
    if (!sha256 || !is_sha256_hex(*sha256)) return;
    for (const auto& existing : subjects.as_array())
        if (existing.string_or("name", "") == name) return;  // A and N run the same binary
    subjects.push_back(subject(name, *sha256));
}

std::string cell_name(const std::string& model, std::int64_t ctx, std::int64_t n) {
    return model + " ctx " + std::to_string(ctx) + " N " + std::to_string(n);
}

// The statement: `subjects` (the first names the cert) and the test-result predicate.
core::Json test_result_statement(const core::Json& subjects, const std::string& result,
                                 const std::string& test) {
    core::Json tests = core::Json::array();
    tests.push_back(test);
    core::Json predicate = core::Json::Object{
        {"result", result},
        {"configuration", core::Json::Array{subjects.as_array().front()}},
        {"passedTests", result == "PASSED" ? tests : core::Json::array()},
        {"warnedTests", result == "WARNED" ? tests : core::Json::array()},
        {"failedTests", result == "FAILED" ? tests : core::Json::array()},
    };
    return core::Json::Object{{"_type", std::string(kStatementType)},
                              {"subject", subjects},
                              {"predicateType", std::string(kTestResultPredicate)},
                              {"predicate", predicate}};
}

}  // namespace

std::string dsse_pae(std::string_view payload_type, std::string_view payload) {
    return "DSSEv1 " + std::to_string(payload_type.size()) + " " + std::string(payload_type) + " " +
           std::to_string(payload.size()) + " " + std::string(payload);
}

std::string_view attestation_result(core::Status status, bool promotable) {
    if (status == core::Status::Failed) return "FAILED";
    if (status == core::Status::Green && promotable) return "PASSED";
    return "WARNED";
}

core::Json attestation_statement(const core::Cert& cert, const std::string& cert_name,
                                 const std::string& cert_file_sha256, bool promotable) {
    core::Json subjects = core::Json::array();
    add_subject(subjects, cert_name, cert_file_sha256);
    if (subjects.size() != 1)
        throw Error(ErrorCategory::Internal, "attest: the cert file's sha256 is not a digest");
    // The cert's own content digest is kept beside the file's hash: it survives re-indenting.
    subjects.as_array().front().set(
        "annotations", core::Json::Object{{"bi_cert_digest", cert.digest.value_or("")}});
    if (cert.model_file) add_subject(subjects, cert.model_file->path, cert.model_file->sha256);
    if (cert.server) {
        add_subject(subjects, cert.server->a.binary, cert.server->a.binary_sha256);
        add_subject(subjects, cert.server->n.binary, cert.server->n.binary_sha256);
    }
    if (cert.provenance) {
        if (cert.run && cert.run->workset)
            add_subject(subjects, *cert.run->workset, cert.provenance->workset_sha256);
        for (const auto& plugin : cert.provenance->plugins)
            add_subject(subjects, plugin.path, plugin.sha256);
    }
    return test_result_statement(subjects,
                                 std::string(attestation_result(cert.verdict.status, promotable)),
                                 cell_name(cert.cell.model, cert.cell.ctx, cert.cell.dispatch_n));
}

core::Json upstream_attestation_statement(const UpstreamCert& cert, const std::string& cert_name,
                                          const std::string& file_sha256) {
    core::Json subjects = core::Json::array();
    add_subject(subjects, cert_name, file_sha256);
    if (subjects.size() != 1) throw Error(ErrorCategory::Io, cert_name + ": no sha256 to attest");
    return test_result_statement(subjects, std::string(attestation_result(cert.verdict, false)),
                                 cell_name(cert.model, cert.ctx, cert.dispatch_n));
}

core::Json dsse_envelope(const core::Json& statement, const SigningKey* key) {
    const std::string payload = io::to_json_text(statement);
    core::Json signatures = core::Json::array();
    if (key)
        signatures.push_back(core::Json::Object{
            {"keyid", key->key_id()},
            {"sig", base64_encode(key->sign(dsse_pae(kDssePayloadType, payload)))}});
    return core::Json::Object{{"payloadType", std::string(kDssePayloadType)},
                              {"payload", base64_encode(payload)},
                              {"signatures", signatures}};
}

bool looks_like_dsse_envelope(const core::Json& document) {
    return document.is_object() && document.find("payloadType") && document.find("payload") &&
           document.find("signatures");
}

OpenedEnvelope open_envelope(const core::Json& envelope, const TrustedKeys& trusted) {
    OpenedEnvelope opened;
    const core::Json* type = envelope.find("payloadType");
    const core::Json* payload = envelope.find("payload");
    const core::Json* signatures = envelope.find("signatures");
    if (!type || !type->is_string() || !payload || !payload->is_string() || !signatures ||
        !signatures->is_array()) {
        opened.problem = "not a DSSE envelope (payloadType, payload and signatures[])";
        return opened;
    }
    const auto body = base64_decode(payload->as_string());
    if (!body) {
        opened.problem = "$.payload: not base64";
        return opened;
    }
    const std::string pae = dsse_pae(type->as_string(), *body);
    for (const auto& entry : signatures->as_array()) {
        EnvelopeSignature signature;
        signature.key_id = entry.string_or("keyid", "");
        const auto raw = base64_decode(entry.string_or("sig", ""));
        if (raw) switch (trusted.verify(pae, signature.key_id, *raw)) {
                case TrustedKeys::Check::Verified:
                    signature.state = SignatureState::Verified;
                    break;
                case TrustedKeys::Check::UntrustedKey:
                    signature.state = SignatureState::UntrustedKey;
                    break;
                case TrustedKeys::Check::BadSignature:
                    signature.state = SignatureState::BadSignature;
                    break;
            }
        opened.signatures.push_back(signature);
    }
    if (type->as_string() != kDssePayloadType) {
        opened.problem =
            "payloadType is '" + type->as_string() + "', not " + std::string(kDssePayloadType);
        return opened;
    }
    try {
        core::Json statement = io::parse_json(*body, "the envelope's payload");
        if (statement.string_or("_type", "") != kStatementType ||
            statement.string_or("predicateType", "") != kTestResultPredicate ||
            !statement.find("subject") || !statement.find("predicate"))
            opened.problem = "the payload is not an in-toto test-result statement";
        else
            opened.statement = std::move(statement);
    } catch (const Error& e) {
        opened.problem = e.what();
    }
    return opened;
}

}  // namespace bi::trust
