#include "report_junit.hpp"

#include <map>
#include <sstream>

#include "core/text.hpp"
#include "markup.hpp"
#include "report_baselines.hpp"

namespace bi::report {

namespace {

constexpr std::size_t kMaxChangedFields = 20;

enum class Outcome { Passed, Failure, Skipped, Error };

struct Case {
    std::string name;
    std::string file;
    Outcome outcome = Outcome::Passed;
    std::string message;  // failure / skipped / error message
    std::string type;     // failure / error type
    std::string body;     // the full text of the failure or error, or system-out
};

struct Suite {
    std::string name;
    std::vector<Case> cases;
    std::size_t count(Outcome outcome) const {
        std::size_t n = 0;
        for (const auto& c : cases) n += c.outcome == outcome ? 1 : 0;
        return n;
    }
};

std::string reasons_text(const core::Cert& cert) {
    std::string text;
    for (const auto& reason : cert.verdict.decision_reasons) text += "- " + reason + "\n";
    return text;
}

Case cell_case(const ReportEntry& entry) {
    const core::Cert& c = entry.cert();
    Case k;
    k.name = "ctx " + std::to_string(c.cell.ctx) + " N " + std::to_string(c.cell.dispatch_n);
    // The two sides of --determinism both are two configurations of one cell: named apart.
    if (const std::string side = determinism_side(entry); !side.empty())
        k.name += " [determinism " + side + "]";
    k.file = entry.path;
    const std::string headline = entry_headline(entry);
    if (!entry.trusted()) {
        k.outcome = Outcome::Error;
        k.type = entry.kind == trust::FileKind::Inconsistent   ? "inconsistent"
                 : entry.kind == trust::FileKind::BadSignature ? "bad_signature"
                                                               : "digest_mismatch";
        k.message = entry.problem;
        k.body = headline + "\n" + reasons_text(c);
        return k;
    }
    const std::string reasons = core::join(deciding_reasons(c), "; ");
    switch (c.verdict.status) {
        case core::Status::Failed:
            k.outcome = Outcome::Failure;
            k.type = std::string(core::name(c.verdict.status));
            k.message = headline + ": " + reasons;
            k.body = headline + "\n" + reasons_text(c);
            for (const auto& line : changed_fields(c, kMaxChangedFields))
                k.body += "  " + line + "\n";
            break;
        case core::Status::GreenUnverified:
            k.outcome = Outcome::Skipped;
            k.message = headline + ": " + reasons;
            break;
        case core::Status::GreenWithCaveat:
            k.body = headline + ": " + reasons + "\n" + reasons_text(c);
            break;
        case core::Status::Green:
            k.body = headline + "\n";
            break;
    }
    return k;
}

Case unusable_case(const ReportEntry& entry) {
    Case k;
    k.name = entry.path;
    k.file = entry.path;
    k.outcome = Outcome::Error;
    k.type = entry.baseline                            ? std::string(trust::name(entry.kind))
             : entry.kind == trust::FileKind::NotACert ? "not_a_cert"
             : entry.kind == trust::FileKind::Upstream ? "upstream_cert"
                                                       : "unreadable";
    k.message = entry.problem;
    k.body = entry.problem + "\n";
    return k;
}

// A baseline check: SAME passes, CHANGED fails, DRIFT ONLY passes with its reasons, NOT
// COMPARABLE is skipped (no answer either way), a check report not to rely on is an error.
Case check_case(const CheckRow& row) {
    const ReportEntry& entry = *row.entry;
    Case k;
    k.name = "baseline ctx " + std::to_string(row.ctx) +
             (row.checked.empty() ? std::string() : " at " + row.checked);
    k.file = entry.path;
    if (!entry.trusted_check()) {
        k.outcome = Outcome::Error;
        k.type = std::string(trust::name(entry.kind));
        k.message = entry.problem;
        k.body = entry.problem + "\n";
        return k;
    }
    const auto& c = *entry.check->value;
    const std::string reasons = core::join(c.reasons, "; ");
    const std::string headline = row.status + ": " + row.baseline + " -> " + row.current;
    switch (c.status) {
        case core::BaselineStatus::Changed:
            k.outcome = Outcome::Failure;
            k.type = std::string(core::name(c.status));
            k.message = headline + ": " + reasons;
            k.body = headline + "\n";
            for (const auto& reason : c.reasons) k.body += "- " + reason + "\n";
            for (const auto& line : c.differences) k.body += "  differs: " + line + "\n";
            break;
        case core::BaselineStatus::NotComparable:
            k.outcome = Outcome::Skipped;
            k.message = headline + ": " + reasons;
            break;
        case core::BaselineStatus::DriftOnly:
        case core::BaselineStatus::Same:
            k.body = headline + ": " + reasons + "\n";
            break;
    }
    return k;
}

// A ctx's cache check (--cache-arm) is mapped as a baseline check is: CHANGED fails, NOT
// COMPARABLE is skipped, DRIFT ONLY and SAME pass with their reasons. It is a case of its own,
// once per ctx, since every N there shares it and the cells' cases are about batching; certs of
// one ctx whose checks differ are one case, decided by the most severe.
Case cache_case(std::int64_t ctx, const std::vector<CacheGroup>& groups) {
    const core::BaselineStatus status = cache_row_status(groups);
    const CacheGroup* deciding = &groups.front();
    for (const auto& group : groups)
        if (group.check().status == status) {
            deciding = &group;
            break;
        }
    Case k;
    k.name = "cache ctx " + std::to_string(ctx);
    k.file = deciding->first->path;
    const std::string line = core::cache_check_line(deciding->check());
    for (const auto& group : groups) {
        const core::CacheCheck& check = group.check();
        k.body += std::string(core::status_word(check.status)) + " (N " +
                  core::join(group.ns, ", ") + ": " + group.first->path + ")\n";
        for (const auto& reason : check.reasons) k.body += "- " + reason + "\n";
        if (!check.changed_ids.empty())
            k.body += "  changed: " + core::join(check.changed_ids, ", ") + "\n";
        if (!check.drift_ids.empty())
            k.body += "  drift only: " + core::join(check.drift_ids, ", ") + "\n";
    }
    switch (status) {
        case core::BaselineStatus::Changed:
            k.outcome = Outcome::Failure;
            k.type = "cache_" + std::string(core::name(status));
            k.message = line;
            break;
        case core::BaselineStatus::NotComparable:
            k.outcome = Outcome::Skipped;
            k.message = line;
            break;
        case core::BaselineStatus::DriftOnly:
        case core::BaselineStatus::Same:
            break;
    }
    return k;
}

std::vector<Suite> suites_of(const ReportModel& model) {
    std::map<std::string, Suite> by_model;
    std::map<std::string, Suite> cache;
    std::map<std::string, Suite> checks;
    Suite unusable{"unusable files", {}};
    for (const auto& row : check_rows(model)) {
        auto& suite = checks[row.model];
        suite.name = "baseline checks: " + row.model;
        suite.cases.push_back(check_case(row));
    }
    for (const auto& entry : model.baselines)
        if (entry.kind != trust::FileKind::Baseline) unusable.cases.push_back(unusable_case(entry));
    for (const auto& entry : model.entries) {
        if (!entry.has_cert()) {
            unusable.cases.push_back(unusable_case(entry));
            continue;
        }
        auto& suite = by_model[entry.cert().cell.model];
        suite.name = entry.cert().cell.model;
        suite.cases.push_back(cell_case(entry));
    }
    for (const auto& grid : model_grids(model))
        for (const auto& [ctx, groups] : grid.cache) {
            auto& suite = cache[grid.title()];
            suite.name = "cache checks: " + grid.title();
            suite.cases.push_back(cache_case(ctx, groups));
        }
    std::vector<Suite> suites;
    suites.reserve(by_model.size() + cache.size() + checks.size() + 1);
    for (auto& [name, suite] : by_model) suites.push_back(std::move(suite));
    for (auto& [name, suite] : cache) suites.push_back(std::move(suite));
    for (auto& [name, suite] : checks) suites.push_back(std::move(suite));
    if (!unusable.cases.empty()) suites.push_back(std::move(unusable));
    return suites;
}

void counts(std::ostream& out, std::size_t tests, std::size_t failures, std::size_t errors,
            std::size_t skipped) {
    out << " tests=\"" << tests << "\" failures=\"" << failures << "\" errors=\"" << errors
        << "\" skipped=\"" << skipped << "\"";
}

void render_case(const Suite& suite, const Case& k, std::ostream& out) {
    out << "    <testcase classname=\"" << escape_attribute(suite.name) << "\" name=\""
        << escape_attribute(k.name) << "\" file=\"" << escape_attribute(k.file) << "\">\n";
    switch (k.outcome) {
        case Outcome::Failure:
        case Outcome::Error:
            out << "      <" << (k.outcome == Outcome::Failure ? "failure" : "error") << " type=\""
                << escape_attribute(k.type) << "\" message=\"" << escape_attribute(k.message)
                << "\">" << escape_markup(k.body) << "</"
                << (k.outcome == Outcome::Failure ? "failure" : "error") << ">\n";
            break;
        case Outcome::Skipped:
            out << "      <skipped message=\"" << escape_attribute(k.message) << "\"/>\n";
            break;
        case Outcome::Passed:
            out << "      <system-out>" << escape_markup(k.body) << "</system-out>\n";
            break;
    }
    out << "    </testcase>\n";
}

}  // namespace

std::string render_junit(const ReportModel& model) {
    const auto suites = suites_of(model);
    std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
    for (const auto& s : suites) {
        tests += s.cases.size();
        failures += s.count(Outcome::Failure);
        errors += s.count(Outcome::Error);
        skipped += s.count(Outcome::Skipped);
    }
    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"bi-run report\"";
    counts(out, tests, failures, errors, skipped);
    out << ">\n";
    for (const auto& s : suites) {
        out << "  <testsuite name=\"" << escape_attribute(s.name) << "\"";
        counts(out, s.cases.size(), s.count(Outcome::Failure), s.count(Outcome::Error),
               s.count(Outcome::Skipped));
        out << ">\n";
        for (const auto& k : s.cases) render_case(s, k, out);
        out << "  </testsuite>\n";
    }
    out << "</testsuites>\n";
    return out.str();
}

}  // namespace bi::report
