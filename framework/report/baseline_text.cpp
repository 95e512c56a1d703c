#include "baseline_text.hpp"

#include <algorithm>
#include <sstream>

#include "core/text.hpp"
#include "io/json_text.hpp"

namespace bi::report {

namespace {

core::Json with_version(core::Json summary, const core::Json& version) {
    if (!version.is_null()) summary.set("version", version);
    return summary;
}

core::Json strings(const std::vector<std::string>& lines) {
    core::Json out = core::Json::array();
    for (const auto& line : lines) out.push_back(line);
    return out;
}

constexpr std::size_t kMovedLinesShown = 8;
constexpr std::size_t kQuoteChars = 40;

// At most kQuoteChars bytes of `text` from `from`, cut at a UTF-8 boundary, quoted, newlines
// shown as \n.
std::string quoted(const std::string& text, std::size_t from) {
    std::size_t end = std::min(text.size(), from + kQuoteChars);
    while (end < text.size() && end > from &&
           (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;
    std::string out = "\"";
    for (std::size_t i = std::min(from, text.size()); i < end; ++i)
        out += text[i] == '\n' ? std::string("\\n") : std::string(1, text[i]);
    return out + (end < text.size() ? "...\"" : "\"");
}

}  // namespace

std::vector<std::string> moved_lines(const core::BaselineCheck& check, std::size_t limit) {
    std::vector<std::string> lines;
    if (!check.comparison) return lines;
    const core::PairReport& comparison = *check.comparison;
    const auto line_for = [&](const std::string& id, const char* what) {
        std::string line = id + ": " + what;
        const auto f = comparison.forensics.find(id);
        if (f != comparison.forensics.end()) {
            const auto& at = f->second.at;
            line += std::string(", first differs at ") + std::string(core::name(at.basis)) + " " +
                    std::to_string(at.index);
            if (f->second.kind != core::DivergenceKind::Unknown)
                line += " (" + std::string(core::name(f->second.kind)) + ")";
            if (const auto& e = f->second.excerpt) {
                // A little of the common text before the first difference, then the change.
                std::size_t from = 0;
                while (from < e->a.size() && from < e->c.size() && e->a[from] == e->c[from]) ++from;
                from = from > 12 ? from - 12 : 0;
                while (from > 0 && (static_cast<unsigned char>(e->a[from]) & 0xC0) == 0x80) --from;
                line += ": " + quoted(e->a, from) + " -> " + quoted(e->c, from);
            }
        }
        if (const auto change = check.generation_changes.find(id);
            change != check.generation_changes.end())
            line += (f == comparison.forensics.end() ? ": " : "; ") + change->second;
        lines.push_back(std::move(line));
    };
    for (const auto& id : comparison.divergent_ids)
        if (lines.size() < limit) line_for(id, "changed");
    for (const auto& id : comparison.token_only_ids)
        if (lines.size() < limit) line_for(id, "drifted");
    // Logprobs moved too where tokens did: said once per id.
    std::size_t moved = comparison.divergent_ids.size() + comparison.token_only_ids.size();
    for (const auto& id : comparison.logprob_drift_ids) {
        const auto& drifted = comparison.token_only_ids;
        if (std::find(drifted.begin(), drifted.end(), id) != drifted.end()) continue;
        ++moved;
        const auto delta = comparison.logprob_deltas.find(id);
        if (lines.size() < limit)
            lines.push_back(id + ": logprobs moved" +
                            (delta == comparison.logprob_deltas.end()
                                 ? std::string()
                                 : " by up to " + core::format_general(delta->second, 3)));
    }
    if (moved > lines.size())
        lines.push_back("... " + std::to_string(moved - lines.size()) +
                        " more in the check report");
    return lines;
}

std::string version_line(const core::ServerLaunch& launch) {
    const auto& text = launch.version_text;
    if (!text || text->empty()) return "";
    return text->substr(0, text->find('\n'));
}

std::string side_line(const core::CheckSide& side) {
    const auto& launch = side.server.launch;
    std::string line = launch.binary;
    const std::string version = version_line(launch);
    if (!version.empty()) line += " (" + version + ")";
    if (launch.binary_sha256) line += ", sha256 " + launch.binary_sha256->substr(0, 12);
    if (side.server.kind) line += ", kind " + side.server.kind->name;
    line += ", on " + side.host.hostname.value_or("a host") + " (" + side.host.cpu + " x" +
            std::to_string(side.host.n_cpus);
    for (const auto& gpu : side.host.gpus) line += ", " + gpu;
    line += "), " + side.ts_utc + ", " + std::string(core::name(side.source));
    return line;
}

std::string check_headline(const core::BaselineCheck& check) {
    return "BASELINE " + std::string(core::status_word(check.status)) + "  " + check.model +
           "  ctx " + std::to_string(check.ctx);
}

std::string check_text(const core::BaselineCheck& check, const std::string& path) {
    std::ostringstream out;
    out << check_headline(check) << "\n";
    for (const auto& reason : check.reasons) out << "  - " << reason << "\n";
    for (const auto& line : moved_lines(check, kMovedLinesShown)) out << "    " << line << "\n";
    out << "  baseline: " << side_line(check.baseline) << "\n"
        << "  now:      " << side_line(check.current) << "\n";
    for (const auto& line : check.differences) out << "  differs: " << line << "\n";
    if (check.differences.empty())
        out << "  (the server binary, version, flags and host are all the same as the "
               "baseline's)\n";
    out << "  baseline file: " << check.baseline_file.path << " (" << check.baseline_file.signature
        << ")\n";
    out << "check: " << path << "\n";
    return out.str();
}

std::string check_json(const core::BaselineCheck& check, const std::string& path,
                       const core::Json& version) {
    core::Json changed = core::Json::array();
    if (check.comparison)
        for (const auto& id : check.comparison->divergent_ids) changed.push_back(id);
    return io::to_json_text(with_version(
        core::Json::Object{
            {"check", path},
            {"baseline", check.baseline_file.path},
            {"model", check.model},
            {"ctx", check.ctx},
            {"status", std::string(core::name(check.status))},
            {"reasons", strings(check.reasons)},
            {"changed_ids", changed},
            {"differences", strings(check.differences)},
        },
        version));
}

std::string record_text(const core::SerialBaseline& baseline, const std::string& path,
                        const std::vector<std::string>& problems) {
    std::ostringstream out;
    out << (problems.empty() ? "BASELINE RECORDED" : "BASELINE RECORDED, NO REFERENCE") << "  "
        << baseline.model << "  ctx " << baseline.ctx << "  [source " << core::name(baseline.source)
        << "]\n";
    out << "  - " << baseline.answers.size() << " answers of arm A; A' "
        << (baseline.repeat.exact() ? "reproduced every one exactly"
                                    : "did not reproduce them exactly")
        << "\n";
    for (const auto& problem : problems) out << "  - " << problem << "\n";
    if (!problems.empty())
        out << "  (a check against this baseline can only say NOT COMPARABLE; record it again "
               "once the server reproduces itself)\n";
    out << "baseline: " << path << "\n";
    return out.str();
}

std::string record_json(const core::SerialBaseline& baseline, const std::string& path,
                        const std::vector<std::string>& problems, const core::Json& version) {
    return io::to_json_text(with_version(
        core::Json::Object{
            {"baseline", path},
            {"model", baseline.model},
            {"ctx", baseline.ctx},
            {"source", std::string(core::name(baseline.source))},
            {"n_answers", baseline.answers.size()},
            {"reference", problems.empty()},
            {"problems", strings(problems)},
            {"digest", baseline.digest.value_or("")},
        },
        version));
}

std::string summary_line(const core::BaselineCheckSummary& summary) {
    std::string line = "baseline: " + std::string(core::status_word(summary.status));
    if (!summary.reasons.empty()) line += " (" + summary.reasons.front() + ")";
    return line + ": " + summary.check_file;
}

}  // namespace bi::report
