// One cell's detail section of the HTML report: verdict, reasons, gates, bounds, a chart of
// divergent ids per pass, each divergent id's A and C texts side by side, the cache check and
// provenance.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "core/cert_consistency.hpp"
#include "core/configuration.hpp"
#include "core/logprob_drift.hpp"
#include "core/text.hpp"
#include "io/json_text.hpp"
#include "markup.hpp"
#include "report_html.hpp"
#include "sensitivity_text.hpp"
#include "verdict_headline.hpp"

namespace bi::report {

namespace {

constexpr std::size_t kMaxIdsShown = 50;
constexpr std::size_t kIdsOpen = 4;

std::string esc(std::string_view text) {
    return escape_markup(text);
}

std::string yes_no(bool ok, const char* good = "ok", const char* bad = "NOT ok") {
    return ok ? std::string("<span class=\"ok\">") + good + "</span>"
              : std::string("<span class=\"bad\">") + bad + "</span>";
}

std::string value_text(const core::Json& value) {
    return value.is_string() ? value.as_string() : io::to_json_text(value);
}

std::string list_items(const std::vector<std::string>& lines) {
    std::string html;
    for (const auto& line : lines) html += "<li>" + esc(line) + "</li>";
    return html;
}

void gate_row(std::ostream& out, const std::string& gate, const std::string& result,
              const std::string& evidence) {
    out << "<tr><td>" << gate << "</td><td>" << result << "</td><td>" << evidence << "</td></tr>\n";
}

std::string overlap_evidence(const core::Cert& c) {
    const auto& o = c.gates.overlap;
    std::string html =
        "total_slots " +
        (o.total_slots ? std::to_string(*o.total_slots) : std::string("unreported")) +
        " for N = " + std::to_string(c.cell.dispatch_n) + "<br>";
    for (const auto& p : o.per_pass)
        html +=
            "pass " + std::to_string(p.pass) + ": client depth " + std::to_string(p.client_depth) +
            " / N " + std::to_string(c.cell.dispatch_n) + ", server busy slots " +
            std::to_string(p.server.peak_busy_slots) + ", requests processing " +
            std::to_string(p.server.peak_requests_processing) +
            (p.server.mean_busy_slots_per_decode
                 ? ", busy/decode " + core::format_fixed(*p.server.mean_busy_slots_per_decode, 2)
                 : std::string()) +
            " " + yes_no(p.ok(), "proven", "not proven") + "<br>";
    for (const auto& problem : o.problems)
        html += "<span class=\"bad\">" + esc(problem) + "</span><br>";
    return html;
}

std::string floor_evidence(const core::Cert& c) {
    const auto& f = c.gates.completion_floor;
    std::string html;
    for (const auto& arm : f.arms)
        html += esc(arm.arm) + " " + std::to_string(arm.n_ok) + "/" + std::to_string(arm.n) +
                " ok (" + core::format_percent(arm.ratio(), 0) + ")" +
                (arm.meets(f.threshold) ? "" : " <span class=\"bad\">below</span>") + "; ";
    return html + "need " + core::format_percent(f.threshold, 0);
}

std::string coverage_evidence(const core::Cert& c) {
    const auto& g = c.gates.cobatch_coverage;
    if (!g.checked) return "<span class=\"na\">not checked</span>";
    std::string html;
    for (const auto& p : g.per_pass)
        html += "pass " + std::to_string(p.pass) + ": " + std::to_string(p.n_cobatched) + " of " +
                std::to_string(p.n_ids) + " ids co-batched (need " + std::to_string(p.required) +
                ")" + (p.attribution_certain ? "" : ", attribution uncertain") + "<br>";
    return html;
}

std::string optional_pass(const std::optional<bool>& passed) {
    if (!passed) return "<span class=\"na\">n/a</span>";
    return yes_no(*passed, "agree", "DIVERGED");
}

void render_gates(const core::Cert& c, std::ostream& out) {
    const auto& g = c.gates;
    out << "<h4>Gates</h4><table class=\"gates\"><tr><th>gate</th><th>result</th>"
           "<th>evidence</th></tr>\n";
    const auto& s = g.serial_self_check;
    gate_row(out, "serial self-check (A vs A&prime;)",
             s.ran ? optional_pass(s.passed) : "<span class=\"na\">did not run</span>",
             s.n_compared ? std::to_string(*s.n_compared) + " ids compared" : "");
    gate_row(out, "overlap at N", yes_no(g.overlap.ok, "proven", "NOT proven"),
             overlap_evidence(c));
    gate_row(out, "completion floor", yes_no(g.completion_floor.ok, "met", "missed"),
             floor_evidence(c));
    gate_row(out, "co-batch coverage",
             g.cobatch_coverage.checked ? yes_no(g.cobatch_coverage.ok, "met", "missed")
                                        : "<span class=\"na\">n/a</span>",
             coverage_evidence(c));
    const auto& b = g.arm_b;
    gate_row(
        out, "arm B (N slots, serial)",
        b.ran ? yes_no(b.serial, "serial", "NOT serial") : "<span class=\"na\">did not run</span>",
        b.ran ? "A vs B " + optional_pass(b.ab_passed) + ", B vs C " + optional_pass(b.bc_passed)
              : "");
    out << "</table>\n";
}

// The threshold the cert's run judged logprob drift by: 0 (every delta counts) unless set.
double drift_eps(const core::Cert& c) {
    return c.run && c.run->logit_drift_eps ? *c.run->logit_drift_eps : 0.0;
}

// The ids of pass t whose generation or chosen-token logprobs moved, invariants intact.
std::size_t drifted_in_pass(const core::UnionReport& ac, std::size_t t) {
    std::size_t drifted = t < ac.per_pass_token_only.size() ? ac.per_pass_token_only[t] : 0;
    if (t >= ac.per_pass.size()) return drifted;
    const auto& pass = ac.per_pass[t];
    for (const auto& id : pass.logprob_drift_ids)
        if (std::find(pass.token_only_ids.begin(), pass.token_only_ids.end(), id) ==
            pass.token_only_ids.end())
            ++drifted;
    return drifted;
}

// A bar per C pass: ids that diverged (red) and ids whose generation or logprobs moved only
// (amber), and for drift, how far the logprobs went.
void render_chart(const core::Cert& c, std::ostream& out) {
    const auto& ac = c.divergence.ac;
    const std::size_t passes = ac.per_pass.size();
    if (passes == 0) return;
    std::size_t peak = 1;
    for (std::size_t t = 0; t < passes; ++t) {
        const std::size_t red = t < ac.per_pass_divergent.size() ? ac.per_pass_divergent[t] : 0;
        peak = std::max({peak, red, drifted_in_pass(ac, t)});
    }
    const int bar = 16, gap = 14, height = 80,
              width = static_cast<int>(passes) * (2 * bar + gap) + 40;
    out << "<h4>Divergent ids per pass</h4><svg width=\"" << width << "\" height=\"" << height + 34
        << "\" role=\"img\" aria-label=\"divergent ids "
        << "per concurrent pass\"><line x1=\"30\" y1=\"" << height + 4 << "\" x2=\"" << width
        << "\" y2=\"" << height + 4 << "\" stroke=\"#d0d7de\"/><text x=\"0\" y=\"12\" "
        << "font-size=\"11\" fill=\"#656d76\">" << peak << "</text><text x=\"0\" y=\"" << height + 4
        << "\" font-size=\"11\" fill=\"#656d76\">0</text>";
    for (std::size_t t = 0; t < passes; ++t) {
        const std::size_t red = t < ac.per_pass_divergent.size() ? ac.per_pass_divergent[t] : 0;
        const std::size_t amber = drifted_in_pass(ac, t);
        const int x = 34 + static_cast<int>(t) * (2 * bar + gap);
        const auto h = [&](std::size_t v) { return static_cast<int>(v * height / peak); };
        out << "<rect x=\"" << x << "\" y=\"" << height + 4 - h(red) << "\" width=\"" << bar
            << "\" height=\"" << h(red) << "\" fill=\"#cf222e\"><title>C" << t + 1 << ": " << red
            << " divergent</title></rect><rect x=\"" << x + bar << "\" y=\""
            << height + 4 - h(amber) << "\" width=\"" << bar << "\" height=\"" << h(amber)
            << "\" fill=\"#d4a72c\"><title>C" << t + 1 << ": " << amber
            << " drifted</title></rect><text x=\"" << x + 4 << "\" y=\"" << height + 20
            << "\" font-size=\"12\" fill=\"#1f2328\">C" << t + 1 << "</text><text x=\"" << x
            << "\" y=\"" << height + 32 << "\" font-size=\"10\" fill=\"#656d76\">" << red << "/"
            << amber << "</text>";
    }
    out << "</svg><div class=\"meta\">red: ids whose invariant fields diverged; amber: ids whose "
           "generation or chosen-token logprobs moved with the invariants intact";
    if (!ac.logprob_drift_ids.empty() || !ac.token_only_ids.empty())
        out << "; " << esc(core::logprob_drift_size(ac.max_logprob_delta, drift_eps(c)));
    out << "</div>\n";
}

void launch_rows(const char* which, const core::ServerLaunch& launch, std::ostream& out) {
    out << "<dt>server " << which << "</dt><dd><code>" << esc(launch.binary) << "</code>"
        << (launch.binary_sha256 ? " sha256 <code>" + esc(*launch.binary_sha256) + "</code>" : "")
        << "</dd>";
    if (launch.argv) {
        std::string argv;
        for (const auto& a : *launch.argv) argv += (argv.empty() ? "" : " ") + a;
        out << "<dt>argv " << which << "</dt><dd><code>" << esc(argv) << "</code></dd>";
    }
}

void timing(std::ostream& out, const char* name, const std::optional<double>& seconds) {
    if (seconds)
        out << "<span class=\"tag\">" << name << " " << core::format_fixed(*seconds, 2)
            << " s</span>";
}

void render_provenance(const core::Cert& c, std::ostream& out) {
    out << "<h4>Provenance</h4><dl>";
    if (c.server) {
        launch_rows("A", c.server->a, out);
        launch_rows("N", c.server->n, out);
    }
    if (c.model_file)
        out << "<dt>model file</dt><dd><code>" << esc(c.model_file->path) << "</code>, "
            << c.model_file->size << " bytes"
            << (c.model_file->sha256
                    ? ", sha256 <code>" + esc(*c.model_file->sha256) + "</code>"
                    : std::string(", sha256 <span class=\"na\">not recorded</span>"))
            << (c.model_file->sha256_head ? ", sha256 of the first MiB <code>" +
                                                esc(*c.model_file->sha256_head) + "</code>"
                                          : std::string())
            << (c.model_file->store_digest
                    ? ", store digest <code>" + esc(*c.model_file->store_digest) + "</code>"
                    : std::string())
            << "</dd>";
    if (c.host)
        out << "<dt>host</dt><dd>" << esc(c.host->hostname.value_or("")) << " " << esc(c.host->cpu)
            << " (" << c.host->n_cpus << " CPUs)</dd>";
    out << "<dt>written</dt><dd>" << esc(c.ts_utc) << "</dd>";
    // The certs this one replaced for the cell, kept under history/, the latest last.
    if (c.previous && !c.previous->empty()) {
        const std::string id = core::configuration_id(c);
        out << "<dt>replaced</dt><dd><ul>";
        for (const auto& p : *c.previous)
            out << "<li><code>" << esc(p.file) << "</code> " << esc(p.status.word()) << " of "
                << esc(p.ts_utc) << ", "
                << (p.configuration_id == id
                        ? std::string("the same configuration")
                        : "another configuration (" + esc(p.configuration_id.value_or("unknown")) +
                              ")")
                << "</li>";
        out << "</ul></dd>";
    }
    if (c.timings) {
        const auto& t = *c.timings;
        out << "<dt>timings</dt><dd>";
        timing(out, "launch A", t.launch_a_s);
        timing(out, "A", t.arm_a_s);
        timing(out, "A&prime;", t.arm_a_prime_s);
        timing(out, "launch N", t.launch_n_s);
        timing(out, "B", t.arm_b_s);
        if (t.arm_c_s)
            for (std::size_t i = 0; i < t.arm_c_s->size(); ++i)
                timing(out, ("C" + std::to_string(i + 1)).c_str(), (*t.arm_c_s)[i]);
        timing(out, "total", t.total_s);
        out << "</dd>";
    }
    out << "</dl>\n";
}

// A's and C's text with everything from the first difference on marked.
std::string marked(std::string_view text, std::size_t prefix) {
    const std::string rest(text.substr(std::min(prefix, text.size())));
    return esc(text.substr(0, std::min(prefix, text.size()))) +
           (rest.empty() ? std::string() : "<mark>" + esc(rest) + "</mark>");
}

// The pass in which an id first diverged, with its report; nullptr when none lists it.
const core::PairReport* first_divergent_pass(const core::Cert& c, const std::string& id) {
    for (const auto& pass : c.divergence.ac.per_pass)
        if (std::find(pass.divergent_ids.begin(), pass.divergent_ids.end(), id) !=
            pass.divergent_ids.end())
            return &pass;
    return nullptr;
}

// The texts side by side: the excerpt of both contents the pass's forensics hold (under the
// cert's digest), else the extracted answers of the cert's rows. True when the answers were shown.
bool render_texts(const core::PairReport* pass, const std::string& id, const std::string& arm,
                  const std::vector<const core::FieldMismatch*>& rows, std::ostream& out) {
    if (pass)
        if (const auto f = pass->forensics.find(id);
            f != pass->forensics.end() && f->second.excerpt) {
            const auto& excerpt = *f->second.excerpt;
            const std::string where =
                excerpt.truncated
                    ? " &middot; content from byte " + std::to_string(excerpt.offset) + " (excerpt)"
                    : " &middot; content";
            out << side_by_side("A (serial)" + where, excerpt.a, esc(arm) + " (concurrent)",
                                excerpt.c);
            return false;
        }
    const auto answer = std::find_if(rows.begin(), rows.end(),
                                     [](const auto* r) { return r->field == "extracted_answer"; });
    if (answer == rows.end()) {
        if (!rows.empty())
            out << "<div class=\"meta\">content sha A <code>" << esc(rows.front()->left_sha)
                << "</code>, " << esc(arm) << " <code>" << esc(rows.front()->right_sha)
                << "</code> (no text excerpt in the cert)</div>";
        return false;
    }
    const auto label = [](const std::string& which, const std::string& sha) {
        return which + " extracted_answer &middot; content sha <code>" + esc(sha) + "</code>";
    };
    out << side_by_side(label("A", (*answer)->left_sha), value_text((*answer)->left),
                        label(esc(arm), (*answer)->right_sha), value_text((*answer)->right));
    return true;
}

void render_field_rows(const std::string& arm, const std::vector<const core::FieldMismatch*>& rows,
                       bool answer_shown, std::ostream& out) {
    std::string body;
    for (const auto* row : rows)
        if (!answer_shown || row->field != "extracted_answer")
            body += "<tr><td class=\"mono\">" + esc(row->field) + "</td><td class=\"mono\">" +
                    esc(value_text(row->left)) + "</td><td class=\"mono\">" +
                    esc(value_text(row->right)) + "</td></tr>";
    if (body.empty()) return;
    out << "<table class=\"gates\"><tr><th>field that differed</th><th>A</th><th>" << esc(arm)
        << "</th></tr>" << body << "</table>";
}

void render_divergent_id(const ReportEntry& entry, const std::string& id, std::ostream& out) {
    const core::Cert& c = entry.cert();
    const core::PairReport* pass = first_divergent_pass(c, id);
    const std::string arm = pass ? pass->right_arm : "C";
    out << "<div class=\"div\"><h5 class=\"mono\" style=\"margin:0 0 4px;font-size:14px\">"
        << esc(id) << " <span class=\"meta\">first diverged in " << esc(arm) << "</span></h5>";
    if (const auto token = c.divergence.ac.first_divergent_token.find(id);
        token != c.divergence.ac.first_divergent_token.end())
        out << "<span class=\"tag\">first divergent token " << token->second << "</span>";
    if (const auto f = c.divergence.ac.forensics.find(id); f != c.divergence.ac.forensics.end())
        out << forensics_tags(f->second);
    std::vector<const core::FieldMismatch*> rows;
    if (pass)
        for (const auto& row : pass->rows)
            if (row.test_id == id) rows.push_back(&row);
    const bool answer_shown = render_texts(pass, id, arm, rows, out);
    render_field_rows(arm, rows, answer_shown, out);
    out << "</div>\n";
}

// The first ids open, the rest folded (a details element needs no script).
void render_divergent_ids(const ReportEntry& entry, std::ostream& out) {
    const auto& ids = entry.cert().divergence.ac.divergent_ids;
    if (ids.empty()) return;
    out << "<h4>Divergent ids (" << ids.size() << ")</h4>";
    const std::size_t shown = std::min(ids.size(), kMaxIdsShown);
    for (std::size_t i = 0; i < shown; ++i) {
        if (i == kIdsOpen) out << "<details><summary>" << shown - kIdsOpen << " more</summary>";
        render_divergent_id(entry, ids[i], out);
    }
    if (shown > kIdsOpen) out << "</details>";
    if (ids.size() > shown)
        out << "<p class=\"meta\">" << ids.size() - shown << " more not shown</p>";
}

// At most kMaxIdsShown ids, then how many there are in all.
std::string ids_text(const std::vector<std::string>& ids) {
    if (ids.size() <= kMaxIdsShown) return core::join(ids, ", ");
    return core::join({ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(kMaxIdsShown)},
                      ", ") +
           ", … (" + std::to_string(ids.size()) + " in all)";
}

// The cache arm's check (--cache-arm): beside the verdict, never part of it. Its reasons, what
// the witness shows the cache served, and each warm answer that differs from A's.
void render_cache_check(const core::Cert& c, const std::string& anchor, std::ostream& out) {
    if (!c.cache_check) return;
    const core::CacheCheck& k = *c.cache_check;
    out << "<h4 id=\"" << escape_attribute(anchor + "-cache")
        << "\">Cache check <span class=\"badge " << check_status_class(k.status) << "\">"
        << core::status_word(k.status)
        << "</span></h4><p class=\"meta\">A's prompts served again from the prompt cache and "
           "compared with A; beside the verdict, never part of it.</p><ol>"
        << list_items(k.reasons) << "</ol>\n<dl><dt>witness</dt><dd>"
        << (k.witness.empty() ? std::string("none stated by the kind")
                              : "<code>" + esc(k.witness) + "</code>")
        << "</dd><dt>served from the cache</dt><dd>" << k.n_served << " of " << k.n_ids
        << " id(s)</dd><dt>continuation cuts</dt><dd>"
        << (k.cuts_note.empty() ? std::to_string(k.n_cuts) + " served" : esc(k.cuts_note))
        << "</dd>";
    const std::pair<const char*, const std::vector<std::string>*> lists[] = {
        {"changed", &k.changed_ids},
        {"drift only", &k.drift_ids},
        {"not exercised", &k.not_exercised}};
    for (const auto& [what, ids] : lists)
        if (!ids->empty())
            out << "<dt>" << what << " (" << ids->size() << ")</dt><dd class=\"mono\">"
                << esc(ids_text(*ids)) << "</dd>";
    out << "</dl>\n";
    if (k.changes.empty()) return;
    out << "<table class=\"gates\"><tr><th>id</th><th>probe</th><th>cached prompt tokens</th>"
           "<th>first differing token</th><th>moved</th></tr>\n";
    for (const auto& change : k.changes) {
        std::string moved = change.invariant
                                ? "<span class=\"bad\">changed</span> (an invariant field)"
                                : std::string("drift only");
        if (!change.divergence.empty() && change.divergence != "unknown")
            moved += " <span class=\"tag\">" + esc(change.divergence) + "</span>";
        out << "<tr><td class=\"mono\">" << esc(change.test_id) << "</td><td>" << esc(change.probe)
            << (change.cut_at > 0 ? " after " + std::to_string(change.cut_at) + " token(s)"
                                  : std::string())
            << "</td><td>" << change.cached << "</td><td>"
            << (change.first_token ? std::to_string(*change.first_token) : std::string("-"))
            << "</td><td>" << moved << "</td></tr>\n";
    }
    out << "</table>\n";
}

}  // namespace

std::string side_by_side(const std::string& left_label, const std::string& left,
                         const std::string& right_label, const std::string& right) {
    const std::size_t prefix = common_prefix_chars(left, right);
    return "<div class=\"sbs\"><div><div class=\"label\">" + left_label + "</div><pre>" +
           marked(left, prefix) + "</pre></div><div><div class=\"label\">" + right_label +
           "</div><pre>" + marked(right, prefix) + "</pre></div></div>\n";
}

std::string forensics_tags(const core::IdForensics& f) {
    std::string tags;
    const auto tag = [&](const std::string& text, const char* kind = "") {
        tags += std::string("<span class=\"tag ") + kind + "\">" + esc(text) + "</span>";
    };
    const std::string kind(core::name(f.kind));
    tag(kind, f.kind == core::DivergenceKind::Decisive ? "bad" : "warn");
    tag("basis " + std::string(core::name(f.at.basis)));
    tag("index " + std::to_string(f.at.index));
    tag("common_prefix " + std::to_string(f.at.common_prefix));
    const std::pair<const char*, const std::optional<double>*> numbers[] = {
        {"a_logprob", &f.a_logprob},
        {"c_logprob", &f.c_logprob},
        {"a_margin", &f.a_margin},
        {"max_prefix_logprob_delta", &f.max_prefix_logprob_delta}};
    for (const auto& [key, value] : numbers)
        if (*value) tag(std::string(key) + " " + value_text(core::Json(**value)));
    if (f.pass > 0) tag("pass " + std::to_string(f.pass));
    if (f.contamination) {
        if (!f.contamination->neighbour.empty())
            tag("contamination neighbour " + f.contamination->neighbour, "warn");
        tag("contamination ngram " + f.contamination->ngram, "warn");
    }
    return tags;
}

std::string entry_anchor(const core::Cert& cert, std::size_t k) {
    return k == 0 ? cell_anchor(cert) : cell_anchor(cert) + "-" + std::to_string(k + 1);
}

std::string render_cell_html(const ReportEntry& entry, const std::string& anchor_given) {
    const core::Cert& c = entry.cert();
    const std::string anchor = anchor_given.empty() ? cell_anchor(c) : anchor_given;
    std::ostringstream out;
    const std::string cls = verdict_class(entry);
    const std::string word =
        entry.trusted() ? std::string(verdict_word(c.verdict.status)) : std::string("INVALID");
    out << "<section class=\"card cell\" id=\"" << escape_attribute(anchor) << "\">\n<h3>"
        << "<span class=\"badge " << cls << "\">" << word << "</span>" << esc(c.cell.model)
        << " &middot; ctx " << c.cell.ctx << " &middot; N " << c.cell.dispatch_n << "</h3>\n"
        << "<p class=\"headline\">" << esc(entry_headline(entry)) << "</p>\n"
        << "<p class=\"meta\">source " << esc(core::name(c.source)) << " &middot; digest "
        << (entry.loaded.digest_intact ? "intact" : "<span class=\"bad\">MISMATCH</span>")
        << " &middot; " << c.n_passes() << " concurrent pass(es) &middot; <code>" << esc(entry.path)
        << "</code></p>\n";
    if (!entry.problem.empty()) out << "<p class=\"bad\">" << esc(entry.problem) << "</p>\n";
    out << "<h4>Decision reasons <span class=\"meta\">(rule <code>"
        << esc(core::deciding_rule(c).name) << "</code>)</span></h4><ol>"
        << list_items(c.verdict.decision_reasons) << "</ol>\n";
    if (!entry.promotion.reasons.empty())
        out << "<h4>Not promotable because</h4><ul>" << list_items(entry.promotion.reasons)
            << "</ul>\n";
    render_gates(c, out);
    out << "<h4>Sensitivity</h4><ul>" << list_items(sensitivity_lines(c)) << "</ul>\n";
    render_chart(c, out);
    render_divergent_ids(entry, out);
    render_cache_check(c, anchor, out);
    render_provenance(c, out);
    out << "</section>\n";
    return out.str();
}

}  // namespace bi::report
