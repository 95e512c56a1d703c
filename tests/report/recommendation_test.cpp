// The recommendation: the safe-N rule over the cells that may back one (live, trusted GREENs with
// no RED in their history), its speedup, and the choice between determinism sides.
#include <catch2/catch.hpp>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../unit/trial_builders.hpp"
#include "core/cert.hpp"
#include "core/configuration.hpp"
#include "report/recommendation.hpp"
#include "report/report_html.hpp"
#include "report/report_markdown.hpp"
#include "report/report_model.hpp"
#include "report/report_table.hpp"

using namespace bi;
using namespace bi::report;

namespace {

core::Throughput speedup_of(double speedup) {
    core::Throughput t;
    t.arms.push_back({"A", 100, 1.0, std::nullopt, std::nullopt});
    t.arms.push_back(
        {"C", static_cast<std::int64_t>(100 * speedup), 1.0, std::nullopt, std::nullopt});
    return t;
}

// A trusted entry with the cert's verdict set as given (the report reads no more of it here);
// `determinism` is run.determinism, "" leaving it absent.
ReportEntry cell(std::int64_t ctx, std::int64_t n, core::Status status = core::Status::Green,
                 std::optional<double> speedup = 2.0, const std::string& determinism = "",
                 core::Source source = core::Source::Live) {
    core::CertContext c = testing::fixed_cert_context();
    c.cell.ctx = ctx;
    c.cell.dispatch_n = n;
    c.source = source;
    if (speedup) c.throughput = speedup_of(*speedup);
    if (!determinism.empty()) c.run->determinism = determinism;
    ReportEntry entry;
    entry.path = core::cert_file_name(c.cell.model, ctx, n, determinism == "on");
    entry.kind = trust::FileKind::Cert;
    entry.loaded.cert = core::build_cert(c, core::decide_verdict(testing::clean_cell(6, 2)));
    entry.loaded.cert.verdict.status = status;
    entry.loaded.digest_intact = true;
    return entry;
}

ReportModel model_of(std::vector<ReportEntry> entries) {
    ReportModel model;
    model.entries = std::move(entries);
    return model;
}

std::vector<Recommendation> recommend_for(const ReportModel& model) {
    return recommend(model_grids(model));
}

}  // namespace

TEST_CASE("recommendation: the largest safe N at every ctx, with its smallest speedup",
          "[report][recommendation]") {
    const auto model = model_of(
        {cell(512, 2, core::Status::Green, 1.5), cell(1024, 2, core::Status::Green, 1.4),
         cell(512, 4, core::Status::Green, 2.5), cell(1024, 4, core::Status::Green, 2.25)});
    const auto r = recommend_for(model);
    REQUIRE(r.size() == 1);
    REQUIRE(r[0].chosen == std::optional<std::size_t>(0));
    CHECK(r[0].sides[0].n == std::optional<std::int64_t>(4));
    CHECK(r[0].sides[0].speedup == Approx(2.25));
    CHECK(recommendation_line(r[0]) ==
          std::optional<std::string>("recommendation: tiny/rand-256: --parallel 4 (2.25x, GREEN "
                                     "at every ctx measured and every N below)"));
}

TEST_CASE("recommendation: non-monotone N stops at the first N that is not GREEN",
          "[report][recommendation]") {
    // GREEN at 2 and 8, RED at 4: a server run at 8 also batches 4, so only 2 is safe.
    const auto model =
        model_of({cell(512, 2, core::Status::Green, 1.5), cell(512, 4, core::Status::Failed, 2.5),
                  cell(512, 8, core::Status::Green, 4.0)});
    const auto r = recommend_for(model);
    REQUIRE(r.size() == 1);
    CHECK(r[0].sides[0].n == std::optional<std::int64_t>(2));
    CHECK(r[0].sides[0].speedup == Approx(1.5));
}

TEST_CASE("recommendation: a contested cell answers no N", "[report][recommendation]") {
    auto model = model_of({cell(512, 2, core::Status::Green), cell(512, 4, core::Status::Green)});
    CHECK(recommend_for(model)[0].sides[0].n == std::optional<std::int64_t>(4));
    // A second trusted cert of ctx 512, N 4, even a GREEN one: that cell is contested.
    model.entries.push_back(cell(512, 4, core::Status::Green));
    const auto r = recommend_for(model);
    CHECK(r[0].sides[0].n == std::optional<std::int64_t>(2));
    model.entries.push_back(cell(512, 2, core::Status::Green));
    const auto none = recommend_for(model);
    CHECK_FALSE(none[0].chosen.has_value());
    CHECK_FALSE(recommendation_line(none[0]).has_value());
}

TEST_CASE("recommendation: never from mock certs or UNVERIFIED cells", "[report][recommendation]") {
    const auto mock = model_of({cell(512, 2, core::Status::Green, 2.0, "", core::Source::Mock),
                                cell(512, 4, core::Status::Green, 3.0, "", core::Source::Mock)});
    // The report's largest-N answer still reads the mock's GREENs; the recommendation does not.
    CHECK(largest_green_n(model_grids(mock)[0]) == std::optional<std::int64_t>(4));
    const auto r = recommend_for(mock);
    REQUIRE(r.size() == 1);
    CHECK_FALSE(r[0].chosen.has_value());
    CHECK(recommendation_lines(model_grids(mock)).empty());

    const auto unverified = model_of({cell(512, 2, core::Status::GreenUnverified)});
    CHECK(recommendation_lines(model_grids(unverified)).empty());
    const auto tampered = [] {
        auto e = cell(512, 2, core::Status::Green);
        e.kind = trust::FileKind::DigestMismatch;
        return model_of({e});
    }();
    CHECK(recommendation_lines(model_grids(tampered)).empty());
}

TEST_CASE("recommendation: a configuration with a RED in its history is excluded",
          "[report][recommendation]") {
    auto model = model_of({cell(512, 2, core::Status::Green), cell(512, 4, core::Status::Green)});
    auto& cert = model.entries[1].loaded.cert;
    core::PreviousCert earlier;
    earlier.status = core::Status::Failed;
    earlier.ts_utc = "2025-12-01T00:00:00Z";
    earlier.file = "history/x.json";
    earlier.configuration_id = "another configuration";
    cert.previous = std::vector<core::PreviousCert>{earlier};
    // A RED of another configuration says nothing about this one.
    CHECK(recommend_for(model)[0].sides[0].n == std::optional<std::int64_t>(4));
    cert.previous->front().configuration_id = core::configuration_id(cert);
    CHECK(recommend_for(model)[0].sides[0].n == std::optional<std::int64_t>(2));
    CHECK(recommendable(model.entries[0]));
    CHECK_FALSE(recommendable(model.entries[1]));
}

TEST_CASE("recommendation: both determinism sides, the most throughput among the GREEN ones",
          "[report][recommendation]") {
    // Mode off: RED at N 4 (2.7x there), GREEN at 2; mode on: GREEN to 4 at 1.9x.
    auto model = model_of({cell(512, 2, core::Status::Green, 1.5, "off"),
                           cell(512, 4, core::Status::Failed, 2.7, "off"),
                           cell(512, 2, core::Status::Green, 1.2, "on"),
                           cell(512, 4, core::Status::Green, 1.9, "on")});
    const auto grids = model_grids(model);
    REQUIRE(grids.size() == 2);  // the sides are two configurations, not a conflict
    CHECK(grids[0].conflicts.empty());
    CHECK(grids[0].determinism == "off");
    CHECK(grids[1].title() == "tiny/rand-256 (determinism mode on)");
    const auto r = recommend(grids);
    REQUIRE(r.size() == 1);
    REQUIRE(r[0].sides.size() == 2);
    CHECK(r[0].chosen == std::optional<std::size_t>(1));
    CHECK(recommendation_line(r[0]) ==
          std::optional<std::string>(
              "recommendation: tiny/rand-256: --parallel 4 with the determinism mode on (1.90x, "
              "GREEN at every ctx measured and every N below); mode off: GREEN to N 2, 1.50x; "
              "mode on: GREEN to N 4, 1.90x"));

    // Mode on RED everywhere: off's N 2 is the answer.
    model.entries[2] = cell(512, 2, core::Status::Failed, 1.2, "on");
    const auto off = recommend(model_grids(model));
    CHECK(off[0].chosen == std::optional<std::size_t>(0));
    CHECK_THAT(*recommendation_line(off[0]),
               Catch::StartsWith("recommendation: tiny/rand-256: --parallel 2 with the "
                                 "determinism mode off (1.50x") &&
                   Catch::EndsWith("; mode on: no N qualifies"));
}

TEST_CASE("a cert's determinism side: run.determinism, else a __det file", "[report]") {
    CHECK(determinism_side(cell(512, 2, core::Status::Green, 1.0, "off")) == "off");
    auto det = cell(512, 2, core::Status::Green);
    CHECK(determinism_side(det) == "");
    det.path = "out/tiny__ctx512__N2__det.json";
    CHECK(determinism_side(det) == "on");
}

TEST_CASE("determinism pairs: each cell run both ways, the mode's side first", "[report]") {
    const auto model = model_of({cell(512, 4, core::Status::Failed, 2.7, "off"),
                                 cell(512, 4, core::Status::Green, 1.9, "on"),
                                 cell(512, 8, core::Status::Green, 3.0, "on")});
    const auto lines = determinism_pair_lines(model_grids(model));
    REQUIRE(lines.size() == 1);  // N 8 ran with the mode on only
    CHECK(lines[0] == "tiny/rand-256 ctx 512 N 4: mode on: GREEN, 1.90x; off: RED, 2.70x");
    CHECK(determinism_pair_lines(model_grids(model_of({cell(512, 4)}))).empty());
}

TEST_CASE("text, Markdown and HTML end with the recommendation, absent when nothing qualifies",
          "[report][recommendation]") {
    const auto text_of = [](const ReportModel& model) {
        std::ostringstream out;
        render_text(model, out);
        return out.str();
    };
    const std::string line =
        "recommendation: tiny/rand-256: --parallel 4 with the determinism "
        "mode on (1.90x, GREEN at every ctx measured and every N below)";
    const auto both = model_of({cell(512, 2, core::Status::Green, 1.5, "off"),
                                cell(512, 4, core::Status::Failed, 2.7, "off"),
                                cell(512, 2, core::Status::Green, 1.2, "on"),
                                cell(512, 4, core::Status::Green, 1.9, "on")});
    const std::string text = text_of(both);
    CHECK_THAT(text, Catch::EndsWith(line + "; mode off: GREEN to N 2, 1.50x; mode on: GREEN to N "
                                            "4, 1.90x\n"));
    // Each side's rows say which ran with the mode, and each cell run both ways is one line.
    CHECK_THAT(text, Catch::Contains("[determinism on]") && Catch::Contains("[determinism off]"));
    CHECK_THAT(text, Catch::Contains("tiny/rand-256 ctx 512 N 4: mode on: GREEN, 1.90x; off: RED, "
                                     "2.70x\n"));
    CHECK_THAT(text, Catch::Contains("tiny/rand-256 (determinism mode on): largest N"));
    const std::string markdown = render_markdown(both);
    CHECK_THAT(markdown, Catch::Contains("\n## Recommendation\n\n- recommendation: "
                                         "tiny/rand-256: --parallel 4 with the determinism mode on "
                                         "(1.90x,"));
    CHECK_THAT(markdown, Catch::Contains("## Determinism mode") &&
                             Catch::Contains("## tiny/rand-256 (determinism mode off)"));
    const std::string html = render_html(both);
    CHECK_THAT(html, Catch::Contains("<h2>Recommendation</h2><ul>\n<li>recommendation: "
                                     "tiny/rand-256: --parallel 4 with the determinism mode on"));
    CHECK_THAT(html, Catch::EndsWith("</ul></section>\n</main></body></html>\n"));
    // The HTML matrix shows each cell's speedup beside its verdict, as the other formats do.
    CHECK_THAT(html, Catch::Contains("<span class=\"word\">RED</span><span class=\"note\">live · "
                                     "2.70x</span>"));

    // Mock certs only: the same cells, no recommendation in any format.
    const auto mock = model_of({cell(512, 2, core::Status::Green, 1.5, "", core::Source::Mock),
                                cell(512, 4, core::Status::Green, 1.9, "", core::Source::Mock)});
    CHECK_THAT(text_of(mock),
               !Catch::Contains("recommendation") && Catch::Contains("largest N that is GREEN"));
    CHECK_THAT(render_markdown(mock),
               !Catch::Contains("Recommendation") && !Catch::Contains("recommendation:"));
    CHECK_THAT(render_html(mock), !Catch::Contains("Recommendation") &&
                                      !Catch::Contains("recommendation:") &&
                                      !Catch::Contains("Determinism mode"));
}
