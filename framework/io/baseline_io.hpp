// Baselines and their check reports on disk: canonical text, digest and optional signature as a
// cert has them (io::render_signed), atomic writes, and reads that say what is wrong with a file.
#pragma once

#include <optional>
#include <string>

#include "cert_io.hpp"
#include "core/baseline_documents.hpp"
#include "core/json.hpp"

namespace bi::io {

// The file forms: the document with its digest (and, with a signer, its signature).
std::string render_baseline(const core::SerialBaseline& baseline, const CertSigner* signer);
std::string render_check(const core::BaselineCheck& check, const CertSigner* signer);

// A document file as read: its bytes' hash, the JSON, the typed value when it is well-formed,
// and whether its digest matches its content.
template <typename T>
struct LoadedDocument {
    core::Json document;
    std::string file_sha256;    // of the file's bytes, as read
    std::optional<T> value;     // set when the document is well-formed
    std::string shape_problem;  // "$.path: message" when it is not
    bool digest_intact = false;
};
using LoadedBaseline = LoadedDocument<core::SerialBaseline>;
using LoadedCheck = LoadedDocument<core::BaselineCheck>;

// Throws bi::Error(Io) when unreadable (a stream, "-", is refused: a baseline is a file to keep)
// and bi::Error(Json) when not JSON (a key twice in one object included); a JSON document that is
// not well-formed comes back with shape_problem set.
LoadedBaseline read_baseline(const std::string& path);
LoadedCheck read_check(const std::string& path);
// The same for a document already parsed from the file's bytes.
LoadedBaseline baseline_from_document(core::Json document, const std::string& file_sha256);
LoadedCheck check_from_document(core::Json document, const std::string& file_sha256);

}  // namespace bi::io
