#include "cert_archive.hpp"

#include <filesystem>

#include "core/configuration.hpp"
#include "core/error.hpp"
#include "core/text.hpp"
#include "io/cert_io.hpp"
#include "io/cert_schema.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "report/verdict_headline.hpp"

namespace bi::driver {

namespace {

namespace fs = std::filesystem;

// "2026-12-01T15:12:38Z" -> "20261201T151238Z": a file name without colons.
std::string compact(const std::string& stamp) {
    std::string out;
    for (char c : stamp)
        if (c != '-' && c != ':') out += c;
    return out.empty() ? "undated" : out;
}

// Writes `content` to the first free name of stem.stamp[.k].json; returns its file name.
std::string write_new_history_file(const fs::path& dir, const std::string& base,
                                   const std::string& content) {
    for (int k = 0; k < 1000; ++k) {
        std::string name = base + (k ? "." + std::to_string(k) : "") + ".json";
        if (io::create_file_atomically((dir / name).string(), content)) return name;
    }
    throw Error(ErrorCategory::Io, (dir / base).string() + ": no free history file name");
}

// The old cert's model record gains the new run's full hash when it had only the head's of the
// same file.
void upgrade_model_hash(core::Cert& old, const core::Cert* replacing) {
    if (!replacing || !replacing->model_file || !old.model_file) return;
    auto& before = *old.model_file;
    const auto& now = *replacing->model_file;
    if (!before.sha256 && now.sha256 && before.sha256_head &&
        before.sha256_head == now.sha256_head && before.size == now.size)
        before.sha256 = now.sha256;
}

// The old cert's entry: its words as written, and its configuration when it reads as a cert.
core::PreviousCert entry_of(const core::Json& document, const std::string& file,
                            const core::Cert* replacing,
                            std::optional<std::vector<core::PreviousCert>>& earlier) {
    core::PreviousCert entry;
    entry.file = file;
    if (const core::Json* status = document.find("status"); status && status->is_string())
        entry.status = core::PreviousStatus::from_word(status->as_string());
    entry.ts_utc = document.string_or("ts_utc", "");
    if (const core::Json* digest = document.find("digest"); digest && digest->is_string())
        entry.digest = digest->as_string();
    auto parsed = io::cert_from_json(document);
    if (parsed.cert) {
        upgrade_model_hash(*parsed.cert, replacing);
        entry.configuration_id = core::configuration_id(*parsed.cert);
        earlier = parsed.cert->previous;
    }
    return entry;
}

}  // namespace

std::optional<std::vector<core::PreviousCert>> archive_replaced_cert(const std::string& cert_path,
                                                                     const std::string& stamp,
                                                                     const core::Cert* replacing) {
    std::error_code ec;
    if (!fs::is_regular_file(cert_path, ec)) return std::nullopt;
    const std::string content = io::read_file(cert_path);
    const fs::path path(cert_path);
    const fs::path history = path.parent_path() / "history";
    fs::create_directories(history, ec);
    if (ec) throw Error(ErrorCategory::Io, history.string() + ": " + ec.message());
    const std::string name =
        write_new_history_file(history, path.stem().string() + "." + compact(stamp), content);

    std::optional<std::vector<core::PreviousCert>> earlier;
    core::PreviousCert entry;
    try {
        entry = entry_of(io::parse_json(content, cert_path), "history/" + name, replacing, earlier);
    } catch (const Error&) {
        entry.file = "history/" + name;  // not JSON: kept, but it says nothing
        entry.status = core::PreviousStatus::unreadable();
    }
    std::vector<core::PreviousCert> previous = earlier.value_or(std::vector<core::PreviousCert>{});
    previous.push_back(entry);
    return previous;
}

std::string replaced_cert_note(const std::string& cert_path, const core::PreviousCert& replaced,
                               const core::Cert& now) {
    const fs::path path(cert_path);
    std::string note = "moved " + path.filename().string();
    std::string why = "it is no cert this run can read";
    try {
        const auto loaded = io::read_cert((path.parent_path() / replaced.file).string());
        if (loaded.shape_problem.empty()) {
            const core::Cert& old = loaded.cert;
            const bool promotable = core::check_promotable(old, loaded.digest_intact).promotable;
            note += " (" + std::string(report::verdict_word(old.verdict.status)) +
                    (promotable ? ", promotable" : "") + ", of " + old.ts_utc + ")";
            const auto changes = core::configuration_changes(old, now);
            why = changes.empty()
                      ? "a rerun of the same configuration"
                      : "this run's configuration differs: " + core::join(changes, ", ");
        }
    } catch (const Error&) {
        // The file was copied byte for byte; one that is not JSON says nothing more.
    }
    return note + " to " + replaced.file + ": " + why;
}

}  // namespace bi::driver
