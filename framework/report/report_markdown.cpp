#include "report_markdown.hpp"

#include <algorithm>
#include <sstream>

#include "core/cert_history.hpp"
#include "core/text.hpp"
#include "recommendation.hpp"
#include "report_baselines.hpp"
#include "throughput_text.hpp"
#include "verdict_headline.hpp"

namespace bi::report {

namespace {

constexpr std::size_t kChangedFieldsShown = 3;

// The word shown in a matrix cell: the verdict word, or INVALID for a cert the report cannot
// trust, and a star when the cell is promotable.
std::string cell_word(const ReportEntry* entry) {
    if (!entry) return "·";
    if (!entry->trusted()) return "**INVALID**";
    std::string word = "**" + std::string(verdict_word(entry->cert().verdict.status)) + "**";
    if (entry->promotion.promotable) word += " ★";
    // A verdict a RED of its configuration's history holds back counts for no N.
    if (!core::sticky_red_reasons(entry->cert()).empty()) word += " (held back)";
    // What batching bought, where the cert measured it.
    if (const auto& throughput = entry->cert().throughput; throughput && throughput->speedup())
        word += " " + speedup_text(throughput);
    return word;
}

// The cache column's cell of a ctx row: its check's word, "-" where no cert of it has one.
std::string cache_cell(const ModelGrid& grid, std::int64_t ctx) {
    const auto row = grid.cache.find(ctx);
    return row == grid.cache.end() ? "-" : "**" + cache_row_word(row->second) + "**";
}

void render_grid(const ModelGrid& grid, std::ostream& out) {
    // The cache column only where a cert of the model ran the cache arm.
    const bool cache = !grid.cache.empty();
    out << "## " << escape_markdown(grid.title()) << "\n\n"
        << escape_markdown(largest_green_line(grid)) << "\n\n| ctx \\ N |";
    for (auto n : grid.ns) out << " " << n << " |";
    out << (cache ? " cache |" : "") << "\n|---:|";
    for (std::size_t i = 0; i < grid.ns.size(); ++i) out << ":---:|";
    out << (cache ? ":---:|" : "") << "\n";
    for (auto ctx : grid.ctxs) {
        out << "| " << ctx << " |";
        for (auto n : grid.ns) out << " " << cell_word(grid.at(ctx, n)) << " |";
        if (cache) out << " " << cache_cell(grid, ctx) << " |";
        out << "\n";
    }
    out << "\n";
}

// "## Cache checks": each check that is not SAME with its deciding reason, once per ctx and the
// N of the cells that hold it; "" when no cert ran the cache arm.
std::string render_cache_checks(const std::vector<ModelGrid>& grids) {
    std::string items;
    bool any = false;
    for (const auto& grid : grids)
        for (const auto& [ctx, groups] : grid.cache)
            for (const auto& group : groups) {
                any = true;
                const core::CacheCheck& check = group.check();
                if (check.status == core::BaselineStatus::Same) continue;
                items += "- **" + std::string(core::status_word(check.status)) + "** " +
                         escape_markdown(grid.title()) + " ctx " + std::to_string(ctx) + " (N " +
                         core::join(group.ns, ", ") + ")" +
                         (check.reasons.empty() ? std::string()
                                                : ": " + escape_markdown(check.reasons.front())) +
                         "\n";
            }
    if (!any) return "";
    return "## Cache checks\n\nA's answers served again from the prompt cache (--cache-arm), "
           "beside the verdict, never part of it.\n\n" +
           (items.empty() ? std::string("Every cache check is SAME.\n") : items);
}

// One list item for a cell that is not a trusted green, or for a file that is not usable.
std::string problem_item(const ReportEntry& entry) {
    if (!entry.has_cert()) return "- **ERROR** " + escape_markdown(entry.problem) + "\n";
    const core::Cert& c = entry.cert();
    std::string item =
        "- **" + std::string(entry.trusted() ? verdict_word(c.verdict.status) : "INVALID") + "** " +
        escape_markdown(c.cell.model) + " ctx " + std::to_string(c.cell.ctx) + " N " +
        std::to_string(c.cell.dispatch_n) + ": " + escape_markdown(entry_headline(entry));
    if (!entry.problem.empty()) return item + " — " + escape_markdown(entry.problem) + "\n";
    for (const auto& reason : deciding_reasons(c)) item += " — " + escape_markdown(reason);
    item += "\n";
    for (const auto& line : changed_fields(c, kChangedFieldsShown))
        item += "  - " + escape_markdown(line) + "\n";
    return item;
}

bool needs_listing(const ReportEntry& entry) {
    return !entry.trusted() || entry.cert().verdict.status != core::Status::Green;
}

}  // namespace

std::string escape_markdown(const std::string& text) {
    std::string out;
    for (char ch : text) {
        switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '\n':
            case '\r':
                out += ' ';
                break;
            case '\\':
            case '`':
            case '*':
            case '_':
            case '[':
            case ']':
            case '|':
            case '~':
            case '#':
                out += '\\';
                out += ch;
                break;
            default:
                out += ch;
        }
    }
    return out;
}

std::string render_markdown(const ReportModel& model) {
    std::ostringstream out;
    std::size_t usable = 0;
    for (const auto& entry : model.entries) usable += entry.has_cert() ? 1 : 0;
    out << "# batch-invariance report\n\n"
        << model.entries.size() << " file(s), " << usable << " cert(s)"
        << (model.checks.empty()
                ? std::string()
                : ", " + std::to_string(model.checks.size()) + " baseline check(s)")
        << ". ★ promotable, · not measured.\n\n";
    const auto grids = model_grids(model);
    for (const auto& grid : grids) render_grid(grid, out);

    std::string listing;
    std::size_t left_out = 0;
    const std::size_t head = std::min(out.str().size(), kMaxMarkdownBytes - 1024);
    const std::size_t budget = kMaxMarkdownBytes - 1024 - head;
    for (const auto& entry : model.entries) {
        if (!needs_listing(entry)) continue;
        const std::string item = problem_item(entry);
        if (listing.size() + item.size() > budget)
            ++left_out;
        else
            listing += item;
    }
    for (const auto& entry : model.baselines)
        if (entry.kind != trust::FileKind::Baseline)
            listing += "- **ERROR** " + escape_markdown(entry.problem) + "\n";
    if (listing.empty()) {
        out << (usable > 0 ? "Every cell is GREEN.\n" : "");
    } else {
        out << "## Not green\n\n" << listing;
        if (left_out > 0) out << "- … " << left_out << " more not shown (size limit)\n";
    }
    if (const std::string cache = render_cache_checks(grids); !cache.empty()) out << "\n" << cache;
    const std::string checks = render_checks_markdown(model);
    if (!checks.empty()) out << "\n" << checks;
    if (const auto pairs = determinism_pair_lines(grids); !pairs.empty()) {
        out << "\n## Determinism mode\n\n";
        for (const auto& line : pairs) out << "- " << escape_markdown(line) << "\n";
    }
    if (const auto lines = recommendation_lines(grids); !lines.empty()) {
        out << "\n## Recommendation\n\n";
        for (const auto& line : lines) out << "- " << escape_markdown(line) << "\n";
    }
    std::string text = out.str();
    if (text.size() > kMaxMarkdownBytes) text.resize(text.rfind('\n', kMaxMarkdownBytes - 1) + 1);
    return text;
}

}  // namespace bi::report
