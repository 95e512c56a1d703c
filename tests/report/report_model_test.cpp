// The report model and the renderers' pure parts: the largest-N answer, reasons, escaping, the
// first-difference boundary, the forensics and the text excerpts a cell shows when present, and
// the cache checks per ctx.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "../unit/cache_builders.hpp"
#include "../unit/trial_builders.hpp"
#include "core/cert.hpp"
#include "io/cert_io.hpp"
#include "io/json_text.hpp"
#include "report/markup.hpp"
#include "report/report_html.hpp"
#include "report/report_junit.hpp"
#include "report/report_markdown.hpp"
#include "report/report_model.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using namespace bi::report;

namespace {

// An entry as load_report makes it, straight from a cert value.
ReportEntry entry_of(const core::CellEvidence& e, std::int64_t ctx, std::int64_t n,
                     std::optional<core::CacheCheck> cache_check = std::nullopt) {
    core::CertContext c = testing::fixed_cert_context();
    c.cell.ctx = ctx;
    c.cell.dispatch_n = n;
    c.cache_check = std::move(cache_check);
    ReportEntry entry;
    entry.path = "c.json";
    entry.kind = trust::FileKind::Cert;
    entry.loaded.cert = core::build_cert(c, core::decide_verdict(e));
    entry.loaded.digest_intact = true;
    entry.loaded.document = io::parse_json(io::render_cert(entry.loaded.cert), "c.json");
    entry.promotion = core::check_promotable(entry.loaded.cert, true);
    return entry;
}

core::CellEvidence red() {
    auto e = testing::clean_cell(6, 2);
    auto& t = e.arm_c[1]["id1"];
    t.score = 0.0;
    t.extracted_answer = "the answer is <b>";
    return e;
}

ReportModel model_of(std::vector<ReportEntry> entries) {
    ReportModel model;
    model.entries = std::move(entries);
    return model;
}

}  // namespace

TEST_CASE("largest N GREEN at every ctx: never extrapolated, none when nothing is green",
          "[report]") {
    const auto green = testing::clean_cell(6, 2);
    auto model =
        model_of({entry_of(green, 512, 4), entry_of(green, 1024, 4), entry_of(green, 512, 8),
                  entry_of(green, 512, 2), entry_of(green, 1024, 2)});
    auto grids = model_grids(model);
    REQUIRE(grids.size() == 1);
    // N = 8 is green at 512 but was never measured at 1024: it does not count.
    CHECK(largest_green_n(grids[0]) == std::optional<std::int64_t>(4));
    CHECK(largest_green_line(grids[0]) ==
          "largest N that is GREEN, with every smaller N measured, at every ctx measured (512, "
          "1024): 4 (N 3 never measured)");

    // A server run at N = 4 also batches 2: an AMBER or RED at N = 2 makes N = 4 no answer.
    model.entries[3] = entry_of(red(), 512, 2);
    CHECK_FALSE(largest_green_n(model_grids(model)[0]).has_value());
    model.entries[3] = entry_of(green, 512, 2);

    model.entries[1] = entry_of(red(), 1024, 4);
    grids = model_grids(model);
    CHECK(largest_green_n(grids[0]) == std::optional<std::int64_t>(2));
    CHECK_THAT(largest_green_line(grids[0]), Catch::EndsWith("(512, 1024): 2"));

    model.entries[1] = entry_of(green, 1024, 4);
    model.entries[4].loaded.digest_intact = false;  // a tampered green is no answer
    model.entries[4].kind = trust::FileKind::DigestMismatch;
    CHECK_FALSE(largest_green_n(model_grids(model)[0]).has_value());
    CHECK_THAT(largest_green_line(model_grids(model)[0]), Catch::EndsWith(": none"));
}

TEST_CASE("deciding reasons are the fired rule's lines, not the gates that passed", "[report]") {
    const auto e = entry_of(red(), 512, 4);
    const auto reasons = deciding_reasons(e.cert());
    REQUIRE(reasons.size() == 1);
    CHECK_THAT(reasons[0], Catch::StartsWith("A vs C: 1 id(s) diverged"));
    const auto g = entry_of(testing::clean_cell(6, 2), 512, 4);
    CHECK_THAT(deciding_reasons(g.cert()).front(), Catch::StartsWith("verdict green"));
}

TEST_CASE("a completion-floor UNVERIFIED cell is decided by the floor, not by a gate that passed",
          "[report]") {
    auto e = testing::clean_cell(6, 2);
    for (auto* results : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b})
        for (auto& [id, r] : *results) r.failure_mode = core::FailureMode::Empty;
    for (auto& pass : e.arm_c)
        for (auto& [id, r] : pass) r.failure_mode = core::FailureMode::Empty;
    const auto entry = entry_of(e, 512, 4);
    REQUIRE(entry.cert().verdict.rule.has_value());
    CHECK(entry.cert().verdict.rule->name == "completion_floor");
    const auto reasons = deciding_reasons(entry.cert());
    REQUIRE_FALSE(reasons.empty());
    CHECK_THAT(reasons.front(), Catch::StartsWith("completion floor missed in A"));
    // The same cert from before the rule was recorded: the replay finds the same rule.
    auto older = entry;
    older.loaded.cert.verdict.rule.reset();
    CHECK(deciding_reasons(older.cert()).front() == reasons.front());
}

TEST_CASE("markup escaping leaves no markup and no control characters", "[report]") {
    CHECK(escape_markup("<script>\"a\" & 'b'</script>") ==
          "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;");
    CHECK(escape_markup(std::string("a\x01z\tb", 5)) == "a\xEF\xBF\xBDz\tb");
    CHECK(escape_attribute("one\ntwo") == "one&#10;two");
    CHECK(escape_markdown("a|b *c* <i> `d`") == "a\\|b \\*c\\* &lt;i&gt; \\`d\\`");
}

TEST_CASE("the first difference falls on a character boundary", "[report]") {
    CHECK(common_prefix_chars("abc", "abd") == 2);
    CHECK(common_prefix_chars("abc", "abc") == 3);
    CHECK(common_prefix_chars("ab", "abc") == 2);
    // "é" (C3 A9) against "è" (C3 A8): the difference is the whole character, at byte 1.
    CHECK(common_prefix_chars("x\xC3\xA9", "x\xC3\xA8") == 1);
}

TEST_CASE("a cell shows forensics and the cert's text excerpts when present, its rows otherwise",
          "[report]") {
    auto e = entry_of(red(), 512, 4);
    std::string html = render_cell_html(e);
    CHECK_THAT(html, Catch::Contains("A extracted_answer"));
    CHECK_THAT(html, Catch::Contains("the answer is &lt;b&gt;"));
    CHECK_THAT(html, !Catch::Contains("near_tie"));

    core::IdForensics tags;
    tags.pass = 2;
    tags.at = {core::DivergenceBasis::TokenId, 3, 3};
    tags.a_logprob = -0.25;
    tags.c_logprob = -0.5;
    tags.a_margin = 0.01;
    tags.kind = core::DivergenceKind::NearTie;
    tags.max_prefix_logprob_delta = 0.001;
    tags.contamination = core::Contamination{"", "id4"};
    e.loaded.cert.divergence.ac.forensics["id1"] = tags;
    auto& pass = e.loaded.cert.divergence.ac.per_pass.at(1);
    core::IdForensics f;
    f.excerpt = core::content_excerpt("same start, then A", "same start, then <C>");
    pass.forensics["id1"] = f;
    html = render_cell_html(e);
    CHECK_THAT(html, Catch::Contains(">near_tie<") && Catch::Contains("basis token_id") &&
                         Catch::Contains("a_margin 0.01") &&
                         Catch::Contains("contamination ngram id4"));
    CHECK_THAT(html, Catch::Contains("A (serial) &middot; content"));
    CHECK_THAT(html, Catch::Contains("same start, then <mark>A</mark>") &&
                         Catch::Contains("same start, then <mark>&lt;C&gt;</mark>"));
}

TEST_CASE("load_report reads a cert with no forensics and refuses what is not a cert", "[report]") {
    testing::ScratchDir dir;
    const auto e = entry_of(red(), 512, 4);
    io::write_cert(dir.file("c.json"), e.cert());
    dir.write("junk.json", "[1]");
    const auto model = load_report({dir.path()});
    REQUIRE(model.entries.size() == 2);
    const auto& cert = model.entries[0];
    CHECK(cert.trusted());
    CHECK(cert.cert().divergence.ac.forensics.empty());
    CHECK(model.entries[1].kind == trust::FileKind::NotACert);
    CHECK_THAT(model.entries[1].problem,
               Catch::EndsWith("junk.json: not a cert: $.schema: missing") ||
                   Catch::Contains("junk.json: not a cert"));
}

TEST_CASE("the Markdown report stays within 1 MiB however many cells are not green", "[report]") {
    std::vector<ReportEntry> entries;
    auto e = red();
    for (int i = 0; i < 40; ++i) {  // long ids make long reasons and changed-field lines
        auto t =
            testing::scored("id-with-a-long-name-" + std::string(200, 'x') + std::to_string(i));
        e.arm_a.emplace(t.test_id, t);
        e.arm_c[1].emplace(t.test_id, t);
        e.arm_c[1][t.test_id].score = 0.0;
    }
    const auto one = entry_of(e, 512, 4);
    for (int ctx = 1; ctx <= 1500; ++ctx) {
        entries.push_back(one);
        entries.back().loaded.cert.cell.ctx = ctx;
    }
    const auto text = render_markdown(model_of(std::move(entries)));
    CHECK(text.size() <= kMaxMarkdownBytes);
    CHECK_THAT(text, Catch::Contains("more not shown (size limit)"));
    CHECK_THAT(text, Catch::Contains("| 1500 | **RED** |"));
}

TEST_CASE("two certs for one cell: the conflict is kept, and that cell answers no largest N",
          "[report]") {
    const auto green = testing::clean_cell(6, 2);
    auto model = model_of({entry_of(green, 512, 2), entry_of(green, 512, 4)});
    CHECK(largest_green_n(model_grids(model)[0]) == std::optional<std::int64_t>(4));
    model.entries.push_back(entry_of(red(), 512, 4));  // a second cert of ctx 512, N 4
    const auto grids = model_grids(model);
    REQUIRE(grids[0].conflicts.size() == 1);
    // The RED is the worse: it shows the cell, and the GREEN before it is the conflict.
    CHECK(grids[0].at(512, 4) == &model.entries[2]);
    CHECK(grids[0].conflicts.front() == &model.entries[1]);
    CHECK(grids[0].all_at(512, 4) ==
          std::vector<const ReportEntry*>{&model.entries[2], &model.entries[1]});
    CHECK(largest_green_n(grids[0]) == std::optional<std::int64_t>(2));
}

TEST_CASE("cache checks: one group per check at a ctx, a cell that cannot be trusted left out",
          "[report][cache]") {
    using core::BaselineStatus;
    using testing::cache_check_of;
    const auto green = testing::clean_cell(8, 2);
    auto model = model_of({entry_of(green, 512, 2, cache_check_of(BaselineStatus::Changed)),
                           entry_of(green, 512, 4, cache_check_of(BaselineStatus::Changed)),
                           entry_of(green, 1024, 2, cache_check_of(BaselineStatus::Same)),
                           entry_of(green, 1024, 4, cache_check_of(BaselineStatus::DriftOnly)),
                           entry_of(green, 2048, 2, cache_check_of(BaselineStatus::Changed)),
                           entry_of(green, 4096, 2)});
    model.entries[4].loaded.digest_intact = false;
    model.entries[4].kind = trust::FileKind::DigestMismatch;
    const auto grids = model_grids(model);
    REQUIRE(grids.size() == 1);
    const auto& cache = grids[0].cache;
    REQUIRE(cache.size() == 2);  // 512 and 1024: 2048's cert is not trusted, 4096 has none
    REQUIRE(cache.at(512).size() == 1);
    CHECK(cache.at(512)[0].ns == std::vector<std::int64_t>{2, 4});
    CHECK(cache.at(512)[0].first == &model.entries[0]);
    CHECK(cache_row_word(cache.at(512)) == "CHANGED");
    CHECK(cache_row_status(cache.at(512)) == BaselineStatus::Changed);
    REQUIRE(cache.at(1024).size() == 2);
    CHECK(cache_row_word(cache.at(1024)) == "SAME / DRIFT ONLY");
    CHECK(cache_row_status(cache.at(1024)) == BaselineStatus::DriftOnly);
    CHECK(cache_row_word({}) == "-");
    CHECK(cache_word(model.entries[5].cert()) == "-");
    CHECK(cache_word(model.entries[2].cert()) == "SAME");
}

TEST_CASE("cache checks: the most severe answers for a row", "[report][cache]") {
    using core::BaselineStatus;
    const auto green = testing::clean_cell(8, 2);
    const BaselineStatus order[] = {BaselineStatus::Same, BaselineStatus::DriftOnly,
                                    BaselineStatus::NotComparable, BaselineStatus::Changed};
    for (std::size_t worst = 1; worst < 4; ++worst) {
        std::vector<ReportEntry> entries;
        for (std::size_t i = 0; i <= worst; ++i)
            entries.push_back(entry_of(green, 512, static_cast<std::int64_t>(i + 2),
                                       testing::cache_check_of(order[i])));
        const auto model = model_of(std::move(entries));
        const auto grids = model_grids(model);
        CHECK(cache_row_status(grids[0].cache.at(512)) == order[worst]);
    }
}

TEST_CASE("a cell's cache section shows the check, its text escaped", "[report][cache]") {
    auto e = entry_of(testing::clean_cell(8, 2), 512, 4,
                      testing::cache_check_of(core::BaselineStatus::Changed));
    e.loaded.cert.cache_check->reasons.push_back("the cache arm did not finish: <b>died</b>");
    const std::string html = render_cell_html(e);
    CHECK_THAT(html,
               Catch::Contains("<h4 id=\"cell-tiny~2Frand-256__ctx512__N4-cache\">Cache check "
                               "<span class=\"badge v-red\">CHANGED</span></h4>"));
    CHECK_THAT(html, Catch::Contains("<li>the cache arm did not finish: &lt;b&gt;died&lt;/b&gt;"));
    CHECK_THAT(html, Catch::Contains("<code>timings.cache_n</code>") &&
                         Catch::Contains("<dd>8 of 8 id(s)</dd>") &&
                         Catch::Contains("no continuation cuts: the chat endpoint takes no token"));
    CHECK_THAT(html, Catch::Contains(
                         "<tr><td class=\"mono\">id3</td><td>repeat</td><td>27</td>"
                         "<td>2</td><td><span class=\"bad\">changed</span> (an invariant field)"));
    const std::string without = render_cell_html(entry_of(testing::clean_cell(8, 2), 512, 4));
    CHECK_THAT(without, !Catch::Contains("Cache check"));
}

TEST_CASE("JUnit: a cache check is a case per ctx, mapped as a baseline check is",
          "[report][cache]") {
    using core::BaselineStatus;
    const auto green = testing::clean_cell(8, 2);
    auto xml = render_junit(
        model_of({entry_of(green, 512, 2), entry_of(green, 512, 4), entry_of(green, 1024, 2)}));
    CHECK_THAT(xml, !Catch::Contains("cache checks") && !Catch::Contains("cache ctx"));
    xml = render_junit(
        model_of({entry_of(green, 512, 2, testing::cache_check_of(BaselineStatus::DriftOnly)),
                  entry_of(green, 1024, 2, testing::cache_check_of(BaselineStatus::Same)),
                  entry_of(green, 2048, 2, testing::cache_check_of(BaselineStatus::Changed))}));
    CHECK_THAT(xml, Catch::Contains("<testsuite name=\"cache checks: tiny/rand-256\" tests=\"3\" "
                                    "failures=\"1\" errors=\"0\" skipped=\"0\">"));
    // The cells' own cases keep their names and pass: the cache check is not about batching.
    CHECK_THAT(xml,
               Catch::Contains("<testsuite name=\"tiny/rand-256\" tests=\"3\" failures=\"0\""));
    CHECK_THAT(xml, Catch::Contains("name=\"ctx 2048 N 2\" file=\"c.json\">\n      <system-out>"));
    CHECK_THAT(xml, Catch::Contains("name=\"cache ctx 512\" file=\"c.json\">\n      <system-out>"
                                    "DRIFT ONLY (N 2: c.json)\n- 1 of 8 id(s) generate otherwise"));
    CHECK_THAT(xml, Catch::Contains("  drift only: id4\n"));
    CHECK_THAT(xml, Catch::Contains("name=\"cache ctx 2048\" file=\"c.json\">\n      <failure "
                                    "type=\"cache_changed\" message=\"CHANGED: 1 of 8 id(s)"));
}
