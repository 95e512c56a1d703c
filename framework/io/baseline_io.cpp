#include "baseline_io.hpp"

#include "baseline_schema.hpp"
#include "core/sha256.hpp"
#include "files.hpp"
#include "json_text.hpp"

namespace bi::io {

namespace {

template <typename T>
LoadedDocument<T> loaded(core::Json document, const std::string& file_sha256,
                         Parsed<T> (*parse)(const core::Json&)) {
    LoadedDocument<T> out;
    out.file_sha256 = file_sha256;
    auto parsed = parse(document);
    out.shape_problem = std::move(parsed.problem);
    out.value = std::move(parsed.value);
    if (const core::Json* digest = document.find("digest"); digest && digest->is_string())
        out.digest_intact = digest->as_string() == cert_digest(document);
    out.document = std::move(document);
    return out;
}

}  // namespace

std::string render_baseline(const core::SerialBaseline& baseline, const CertSigner* signer) {
    return render_signed(baseline_to_json(baseline), signer);
}

std::string render_check(const core::BaselineCheck& check, const CertSigner* signer) {
    return render_signed(check_to_json(check), signer);
}

LoadedBaseline read_baseline(const std::string& path) {
    const std::string bytes = read_file(path);
    return baseline_from_document(parse_json(bytes, path), core::sha256_hex(bytes));
}

LoadedCheck read_check(const std::string& path) {
    const std::string bytes = read_file(path);
    return check_from_document(parse_json(bytes, path), core::sha256_hex(bytes));
}

LoadedBaseline baseline_from_document(core::Json document, const std::string& file_sha256) {
    return loaded(std::move(document), file_sha256, baseline_from_json);
}

LoadedCheck check_from_document(core::Json document, const std::string& file_sha256) {
    return loaded(std::move(document), file_sha256, check_from_json);
}

}  // namespace bi::io
