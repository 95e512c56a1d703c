#include "report_html.hpp"

#include <sstream>

#include "core/cert_history.hpp"
#include "markup.hpp"
#include "recommendation.hpp"
#include "report_baselines.hpp"
#include "throughput_text.hpp"
#include "verdict_headline.hpp"

namespace bi::report {

namespace {

const char* const kStyle = R"CSS(
:root{--green:#1a7f37;--green-bg:#dafbe1;--red:#cf222e;--red-bg:#ffebe9;--amber:#9a6700;
--amber-bg:#fff8c5;--grey:#57606a;--grey-bg:#eaeef2;--invalid:#8250df;--invalid-bg:#fbefff;
--line:#d0d7de;--ink:#1f2328;--soft:#656d76}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
color:var(--ink);background:#f6f8fa}
main{max-width:1180px;margin:0 auto;padding:28px 32px 60px}
h1{font-size:26px;margin:0 0 4px}h2{font-size:21px;margin:0 0 8px}
h3{font-size:18px;margin:0 0 6px}h4{font-size:14px;margin:18px 0 6px;text-transform:uppercase;
letter-spacing:.04em;color:var(--soft)}
.sub{color:var(--soft);margin:0 0 20px}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:20px 24px;
margin:0 0 20px}
.answer{font-size:17px;margin:0 0 14px;padding:10px 14px;border-left:4px solid var(--green);
background:#f6fff8}
.answer.none{border-color:var(--red);background:#fff8f7}
.answer b{font-size:20px}
table{border-collapse:collapse}
.matrix th,.matrix td{border:1px solid var(--line);padding:0;text-align:center;min-width:118px}
.matrix th{background:var(--grey-bg);padding:6px 10px;font-weight:600}
.matrix td a,.matrix td span.cellbox{display:block;padding:10px 8px;color:inherit;
text-decoration:none}
.matrix td a:hover{outline:2px solid var(--ink);outline-offset:-2px}
.word{display:block;font-weight:700;letter-spacing:.03em}
.note{display:block;font-size:12px}
.v-green{background:var(--green-bg);color:var(--green)}
.v-red{background:var(--red-bg);color:var(--red)}
.v-amber{background:var(--amber-bg);color:var(--amber)}
.v-unverified{background:var(--grey-bg);color:var(--grey)}
.v-invalid{background:var(--invalid-bg);color:var(--invalid)}
.v-none{background:#fff;color:#8c959f;font-size:12px}
.badge{display:inline-block;padding:1px 9px;border-radius:999px;font-weight:700;font-size:13px;
border:1px solid currentColor;vertical-align:2px;margin-right:6px}
.legend{display:flex;gap:10px;flex-wrap:wrap;margin:6px 0 0;font-size:13px}
.headline{font-size:16px;font-weight:600;margin:4px 0}
.meta{color:var(--soft);font-size:13px;margin:0 0 4px;word-break:break-all}
ol,ul{margin:4px 0;padding-left:22px}
.gates{width:100%}.gates td,.gates th{border-bottom:1px solid var(--line);padding:6px 8px;
vertical-align:top;text-align:left}
.gates th{font-size:13px;color:var(--soft);font-weight:600}
.ok{color:var(--green);font-weight:700}.bad{color:var(--red);font-weight:700}
.na{color:var(--soft)}
code,pre,.mono{font-family:ui-monospace,"SFMono-Regular","DejaVu Sans Mono",Menlo,monospace;
font-size:13px}
.sbs{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin:6px 0}
.sbs pre{margin:0;padding:10px;background:#f6f8fa;border:1px solid var(--line);border-radius:6px;
white-space:pre-wrap;word-break:break-word;max-height:260px;overflow:auto}
.sbs .label{font-size:12px;color:var(--soft);margin-bottom:2px}
.attention{list-style:none;padding:0}.attention li{margin:4px 0;overflow:hidden;
text-overflow:ellipsis;white-space:nowrap}.attention a{color:var(--ink);text-decoration:none;
font-weight:600;margin-right:6px}
details summary{cursor:pointer;color:var(--soft);margin:10px 0}
mark{background:#ffd8b5;color:inherit;border-radius:2px}
.div{border-top:1px dashed var(--line);padding-top:10px;margin-top:10px}
.tag{display:inline-block;font-size:12px;padding:0 7px;border-radius:4px;background:var(--grey-bg);
margin:0 4px 2px 0}
.tag.warn{background:var(--amber-bg);color:var(--amber)}.tag.bad{background:var(--red-bg);
color:var(--red)}
.problems li{color:var(--red)}
dl{display:grid;grid-template-columns:170px 1fr;gap:2px 12px;margin:4px 0}dt{color:var(--soft)}
dd{margin:0;word-break:break-all}
)CSS";

std::string cell_box(const ModelGrid& grid, std::int64_t ctx, std::int64_t n) {
    const ReportEntry* entry = grid.at(ctx, n);
    if (!entry) return "<td class=\"v-none\"><span class=\"cellbox\">not measured</span></td>";
    std::string word, note;
    if (entry->trusted()) {
        word = verdict_word(entry->cert().verdict.status);
        note = entry->promotion.promotable ? "★ promotable"
                                           : std::string(core::name(entry->cert().source));
        // A GREEN that a RED of its configuration's history holds back counts for no N.
        if (!core::sticky_red_reasons(entry->cert()).empty()) note = "held back by its history";
        // A cell two certs claim shows the worse; the other is in the details below.
        if (grid.contested(ctx, n))
            note = std::to_string(grid.all_at(ctx, n).size()) + " certs, the worst shown";
        // What batching bought, where the cert measured it: C's tokens/s over A's.
        if (const auto& throughput = entry->cert().throughput; throughput && throughput->speedup())
            note += " · " + speedup_text(throughput);
    } else {
        word = "INVALID";
        note = std::string(trust::name(entry->kind));
    }
    return "<td class=\"" + verdict_class(*entry) + "\"><a href=\"#" +
           escape_attribute(cell_anchor(entry->cert())) + "\" title=\"" +
           escape_attribute(entry_headline(*entry)) + "\"><span class=\"word\">" + word +
           "</span><span class=\"note\">" + escape_markup(note) + "</span></a></td>";
}

// The cache column's cell of a ctx row: the word of its check in the check's colour, linking to
// the first cell's cache section; "-" where no trusted cert of the row ran the cache arm.
std::string cache_box(const ModelGrid& grid, std::int64_t ctx) {
    const auto row = grid.cache.find(ctx);
    if (row == grid.cache.end())
        return "<td class=\"v-none\"><span class=\"cellbox\">-</span></td>";
    const auto& groups = row->second;
    const CacheGroup& first = groups.front();
    const std::string note = groups.size() > 1
                                 ? std::to_string(groups.size()) + " runs differ"
                                 : std::to_string(first.check().n_served) + " of " +
                                       std::to_string(first.check().n_ids) + " served";
    return "<td class=\"" + check_status_class(cache_row_status(groups)) + "\"><a href=\"#" +
           escape_attribute(cache_anchor(first.first->cert())) + "\" title=\"" +
           escape_attribute(core::cache_check_line(first.check())) +
           "\"><span class=\"word cache\">" + escape_markup(cache_row_word(groups)) +
           "</span><span class=\"note\">" + note + "</span></a></td>";
}

// "; N 3 never measured" for the sizes below the answer a server there batches but no cert
// measured.
std::string never_measured(const ModelGrid& grid, const std::optional<std::int64_t>& best) {
    if (!best) return "";
    std::string missing;
    for (auto k : unmeasured_below(grid, *best))
        missing += (missing.empty() ? "" : ", ") + std::to_string(k);
    return missing.empty() ? "" : "; N " + missing + " never measured";
}

void render_grid(const ModelGrid& grid, std::ostream& out) {
    const auto best = largest_green_n(grid);
    out << "<section class=\"card model\"><h2>" << escape_markup(grid.title()) << "</h2>\n"
        << "<p class=\"answer" << (best ? "" : " none")
        << "\">Largest N that is GREEN, with every smaller N measured, at every ctx "
        << "measured: <b>" << (best ? "N = " + std::to_string(*best) : std::string("none"))
        << "</b> <span class=\"meta\">(" << grid.ctxs.size() << " ctx measured"
        << never_measured(grid, best) << "; never extrapolated)</span></p>\n"
        << "<table class=\"matrix\"><tr><th>ctx \\ N</th>";
    for (auto n : grid.ns) out << "<th>N = " << n << "</th>";
    // The cache column only where a cert of the model ran the cache arm.
    const bool cache = !grid.cache.empty();
    out << (cache ? "<th>cache</th>" : "") << "</tr>\n";
    for (auto ctx : grid.ctxs) {
        out << "<tr><th>" << ctx << "</th>";
        for (auto n : grid.ns) out << cell_box(grid, ctx, n);
        if (cache) out << cache_box(grid, ctx);
        out << "</tr>\n";
    }
    out << "</table></section>\n";
}

void render_unusable(const ReportModel& model, std::ostream& out) {
    std::string items;
    for (const auto& entry : model.entries)
        if (!entry.problem.empty()) items += "<li>" + escape_markup(entry.problem) + "</li>\n";
    for (const auto& entry : model.baselines)
        if (entry.kind != trust::FileKind::Baseline)
            items += "<li>" + escape_markup(entry.problem) + "</li>\n";
    if (items.empty()) return;
    out << "<section class=\"card\"><h2>Files the report cannot rely on</h2><ul class=\"problems\">"
        << items << "</ul></section>\n";
}

// Every cert of a cell that is not a trusted GREEN, with the reason that decided it and a link
// to it: a contested cell lists each of its certs.
void render_attention(const std::vector<ModelGrid>& grids, std::ostream& out) {
    std::string items;
    for (const auto& grid : grids)
        for (auto ctx : grid.ctxs)
            for (auto n : grid.ns) {
                const auto entries = grid.all_at(ctx, n);
                for (std::size_t k = 0; k < entries.size(); ++k) {
                    const ReportEntry& entry = *entries[k];
                    if (entry.trusted() && entry.cert().verdict.status == core::Status::Green)
                        continue;
                    const auto reasons = deciding_reasons(entry.cert(), 1);
                    const std::string why = !entry.problem.empty() ? entry.problem
                                            : reasons.empty()      ? std::string()
                                                                   : reasons.front();
                    items +=
                        "<li><a href=\"#" + escape_attribute(entry_anchor(entry.cert(), k)) +
                        "\"><span class=\"badge " + verdict_class(entry) + "\">" +
                        (entry.trusted() ? std::string(verdict_word(entry.cert().verdict.status))
                                         : std::string("INVALID")) +
                        "</span>" + escape_markup(grid.title()) + " &middot; ctx " +
                        std::to_string(ctx) + " &middot; N " + std::to_string(n) + "</a> " +
                        (entries.size() > 1 ? "<code>" + escape_markup(entry.path) + "</code> "
                                            : std::string()) +
                        "<span class=\"meta\">" + escape_markup(why) + "</span></li>\n";
                }
            }
    if (items.empty()) return;
    out << "<section class=\"card\"><h2>Cells that are not GREEN</h2><ul class=\"attention\">"
        << items << "</ul></section>\n";
}

// The cells more than one cert claims, as report's note on stderr says it.
void render_conflicts(const std::vector<ModelGrid>& grids, std::ostream& out) {
    std::vector<std::string> notes;
    for (const auto& grid : grids)
        for (auto& note : conflict_notes(grid)) notes.push_back(std::move(note));
    if (notes.empty()) return;
    out << "<section class=\"card conflicts\"><h2>Cells with more than one cert</h2><ul>\n";
    for (const auto& note : notes) out << "<li>" << escape_markup(note) << "</li>\n";
    out << "</ul></section>\n";
}

void render_summary(const ReportModel& model, std::ostream& out) {
    std::size_t counts[5] = {0, 0, 0, 0, 0};  // green, red, amber, unverified, invalid
    for (const auto& entry : model.entries) {
        if (!entry.trusted()) {
            ++counts[4];
            continue;
        }
        switch (entry.cert().verdict.status) {
            case core::Status::Green:
                ++counts[0];
                break;
            case core::Status::Failed:
                ++counts[1];
                break;
            case core::Status::GreenWithCaveat:
                ++counts[2];
                break;
            case core::Status::GreenUnverified:
                ++counts[3];
                break;
        }
    }
    out << "<div class=\"legend\">"
        << "<span class=\"badge v-green\">GREEN " << counts[0] << "</span>"
        << "<span class=\"badge v-red\">RED " << counts[1] << "</span>"
        << "<span class=\"badge v-amber\">AMBER " << counts[2] << "</span>"
        << "<span class=\"badge v-unverified\">UNVERIFIED " << counts[3] << "</span>"
        << "<span class=\"badge v-invalid\">INVALID " << counts[4] << "</span>"
        << "<span class=\"meta\">★ promotable: a GREEN from a live server with every gate "
           "proven and an intact digest</span></div>\n";
}

}  // namespace

std::string verdict_class(const ReportEntry& entry) {
    if (!entry.trusted()) return "v-invalid";
    switch (entry.cert().verdict.status) {
        case core::Status::Green:
            return "v-green";
        case core::Status::Failed:
            return "v-red";
        case core::Status::GreenWithCaveat:
            return "v-amber";
        case core::Status::GreenUnverified:
            return "v-unverified";
    }
    return "v-unverified";
}

std::string cache_anchor(const core::Cert& cert) {
    return cell_anchor(cert) + "-cache";
}

std::string check_status_class(core::BaselineStatus status) {
    switch (status) {
        case core::BaselineStatus::Same:
            return "v-green";
        case core::BaselineStatus::Changed:
            return "v-red";
        case core::BaselineStatus::DriftOnly:
            return "v-amber";
        case core::BaselineStatus::NotComparable:
            break;
    }
    return "v-unverified";
}

std::size_t common_prefix_chars(std::string_view a, std::string_view b) {
    const auto continues = [](std::string_view s, std::size_t k) {
        return k < s.size() && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80;
    };
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    // The bytes before i are equal, so backing up to a character start is the same for both.
    while (i > 0 && (continues(a, i) || continues(b, i))) --i;
    return i;
}

namespace {

// A card of escaped lines under a heading; nothing when there are none.
void render_lines_card(const std::string& css_class, const std::string& heading,
                       const std::vector<std::string>& lines, std::ostream& out) {
    if (lines.empty()) return;
    out << "<section class=\"card " << css_class << "\"><h2>" << heading << "</h2><ul>\n";
    for (const auto& line : lines) out << "<li>" << escape_markup(line) << "</li>\n";
    out << "</ul></section>\n";
}

}  // namespace

std::string render_html(const ReportModel& model) {
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
           "style-src 'unsafe-inline'; img-src data:\">\n"
        << "<title>batch-invariance report</title>\n<style>" << kStyle << "</style></head>\n"
        << "<body><main>\n<h1>batch-invariance report</h1>\n<p class=\"sub\">Does batching "
           "change the answers? One cell per (model, ctx, N); "
        << model.entries.size() + model.checks.size() + model.baselines.size()
        << " file(s). A GREEN is a per-cell &ldquo;not detected&rdquo;, never a proof.</p>\n";
    render_summary(model, out);
    out << "<div style=\"height:14px\"></div>\n";
    const auto grids = model_grids(model);
    for (const auto& grid : grids) render_grid(grid, out);
    render_attention(grids, out);
    render_conflicts(grids, out);
    render_unusable(model, out);
    for (const auto& grid : grids)
        for (auto ctx : grid.ctxs)
            for (auto n : grid.ns) {
                const auto entries = grid.all_at(ctx, n);
                for (std::size_t k = 0; k < entries.size(); ++k)
                    out << render_cell_html(*entries[k], entry_anchor(entries[k]->cert(), k));
            }
    out << render_checks_html(model);
    // The page ends with the operator's decision: each cell run both ways, then the answer.
    render_lines_card("determinism", "Determinism mode", determinism_pair_lines(grids), out);
    render_lines_card("recommendation", "Recommendation", recommendation_lines(grids), out);
    out << "</main></body></html>\n";
    return out.str();
}

}  // namespace bi::report
