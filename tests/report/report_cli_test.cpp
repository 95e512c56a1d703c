// `bi-run report`'s formats through the real binary: CSV, HTML written whole, formats that
// share stdout refused, an unwritable --html named; run-live --report-html at the end of a run.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "built_paths.hpp"
#include "core/json.hpp"
#include "core/sha256.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

std::string fixtures(const testing::ScratchDir& dir, const std::string& set = "") {
    const std::string certs = dir.file("certs");
    std::filesystem::create_directory(certs);
    std::vector<std::string> argv{BI_REPORT_FIXTURES, certs};
    if (!set.empty()) argv.push_back(set);
    REQUIRE(run_command(argv).exit_code == 0);
    return certs;
}

// `command` (run-live or sweep) against bi-mock-server at ctx 512, two passes, quiet, then
// `extra`; the model file is written into `dir` first.
std::vector<std::string> mock_server_run(testing::ScratchDir& dir, const std::string& command,
                                         const std::vector<std::string>& extra) {
    io::write_file_atomically(dir.file("model.gguf"), "not really a model");
    std::vector<std::string> argv{BI_RUN_PATH,     command,
                                  "--server-bin",  BI_MOCK_SERVER_PATH,
                                  "--model",       dir.file("model.gguf"),
                                  "--model-alias", "m",
                                  "--out-dir",     dir.file("out"),
                                  "--workset",     BI_SMALL_WORKSET,
                                  "--n-predict",   "40",
                                  "--passes",      "2",
                                  "--ctx",         "512",
                                  "--quiet"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

}  // namespace

TEST_CASE("report --csv: a header and one row per usable cert, verdict word first",
          "[report][cli]") {
    testing::ScratchDir dir;
    const auto r = run_command({BI_RUN_PATH, "report", "--csv", fixtures(dir)});
    // The fixtures hold one edited cert: shown, and the exit status says a file was not sound.
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains(": digest mismatch: the cert was edited or corrupted"));
    CHECK_THAT(r.out, Catch::StartsWith("model,ctx,N,verdict,source,promotable,diverged,per_trial,"
                                        "per_prompt,history,speedup,cache\r\n"));
    // No cert here ran the cache arm: the column says so in every row.
    CHECK_THAT(r.out, Catch::Contains("tiny/rand-256,512,2,GREEN (promotable),live,yes,0,") &&
                          Catch::EndsWith(",-\r\n"));
    CHECK_THAT(r.out,
               Catch::Contains("tiny/rand-256,512,4,\"RED (failed, co_batching)\",live,no,1,"));
    CHECK_THAT(r.out, Catch::Contains("tiny/rand-256,512,2,GREEN (promotable),live,yes,0,"));
    CHECK_THAT(r.out, Catch::Contains("UNVERIFIED (green_unverified)"));
    CHECK_THAT(r.out, Catch::Contains(",\"INVALID (digest mismatch), claims GREEN (green, not "
                                      "promotable)\",live,no,"));
}

TEST_CASE("report --csv and text: each cert's cache check in the cache column, - without one",
          "[report][cli][cache]") {
    testing::ScratchDir dir;
    const auto certs = fixtures(dir, "cache");
    auto r = run_command({BI_RUN_PATH, "report", "--csv", certs});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out,
               Catch::Contains("tiny/rand-256,512,4,\"RED (failed, co_batching)\",live,no,1,"));
    for (const char* row : {"tiny/rand-256,512,2,", "tiny/rand-256,512,4,"}) {
        const auto at = r.out.find(row);
        REQUIRE(at != std::string::npos);
        CHECK_THAT(r.out.substr(at, r.out.find("\r\n", at) - at), Catch::EndsWith(",CHANGED"));
    }
    CHECK_THAT(r.out, Catch::Contains(",SAME\r\n") && Catch::Contains(",DRIFT ONLY\r\n") &&
                          Catch::Contains(",NOT COMPARABLE\r\n") && Catch::Contains(",-\r\n"));
    r = run_command({BI_RUN_PATH, "report", certs});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("model ") && Catch::Contains(" speedup  cache\n"));
    CHECK_THAT(r.out, Catch::Contains(" CHANGED\n") && Catch::Contains(" NOT COMPARABLE\n"));
}

TEST_CASE("report --json carries each cert's whole cache_check object, null without one",
          "[report][cli][cache]") {
    testing::ScratchDir dir;
    const auto certs = fixtures(dir, "cache");
    const auto r = run_command({BI_RUN_PATH, "report", "--json", certs});
    CHECK(r.exit_code == 0);
    const core::Json rows = io::parse_json(r.out, "report --json");
    REQUIRE(rows.as_array().size() == 6);
    std::size_t with = 0;
    for (const auto& row : rows.as_array()) {
        const core::Json* check = row.find("cache_check");
        REQUIRE(check);
        const std::string path = row.string_or("path", "");
        const core::Json document = io::parse_json(io::read_file(path), path);
        if (check->is_null()) {
            CHECK(document.find("cache_check") == nullptr);
            continue;
        }
        ++with;
        // The object as the cert holds it, every member.
        REQUIRE(document.find("cache_check"));
        CHECK(io::to_json_text(*check) == io::to_json_text(*document.find("cache_check")));
    }
    CHECK(with == 5);
    CHECK_THAT(r.out, Catch::Contains("\"changed_ids\"") && Catch::Contains("\"not_exercised\"") &&
                          Catch::Contains("\"status\":\"changed\""));
}

TEST_CASE("report --html with cache checks: a cache column linking to each cell's cache section",
          "[report][cli][cache]") {
    testing::ScratchDir dir;
    const auto page = dir.file("r.html");
    const auto r = run_command({BI_RUN_PATH, "report", "--html", page, fixtures(dir, "cache")});
    CHECK(r.exit_code == 0);
    const std::string html = testing::read_text(page);
    CHECK_THAT(html, Catch::Contains("<th>N = 2</th><th>N = 4</th><th>cache</th>"));
    CHECK_THAT(html, Catch::Contains("<td class=\"v-red\"><a href=\"#cell-tiny~2Frand-256__ctx512__"
                                     "N2-cache\"") &&
                         Catch::Contains("<span class=\"word cache\">CHANGED</span>"));
    CHECK_THAT(html, Catch::Contains("<span class=\"word cache\">NOT COMPARABLE / DRIFT ONLY"
                                     "</span><span class=\"note\">2 runs differ</span>"));
    for (const char* anchor :
         {"cell-tiny~2Frand-256__ctx512__N2-cache", "cell-tiny~2Frand-256__ctx512__N4-cache",
          "cell-other-model__ctx512__N4-cache"})
        CHECK_THAT(html, Catch::Contains(std::string("<h4 id=\"") + anchor + "\">Cache check"));
    CHECK_THAT(html, Catch::Contains("1 of 8 id(s) answer otherwise when served from the prompt "
                                     "cache: id3 (repeat: 27 cached prompt tokens, token 2 "
                                     "differs"));
    // The AMBER cell ran no cache arm: its detail has no cache section.
    CHECK_THAT(html, !Catch::Contains("cell-tiny~2Frand-256__ctx1024__N4-cache"));
}

TEST_CASE("report --html without cache checks has no cache column", "[report][cli][cache]") {
    testing::ScratchDir dir;
    const auto page = dir.file("r.html");
    run_command({BI_RUN_PATH, "report", "--html", page, fixtures(dir)});
    const std::string html = testing::read_text(page);
    CHECK_THAT(html, Catch::Contains("<th>N = 2</th><th>N = 4</th></tr>"));
    CHECK_THAT(html, !Catch::Contains("<th>cache</th>") && !Catch::Contains("Cache check"));
}

TEST_CASE("report text: the verdict column starts with the verdict word", "[report][cli]") {
    testing::ScratchDir dir;
    const auto r = run_command({BI_RUN_PATH, "report", fixtures(dir)});
    CHECK(r.exit_code == 1);  // the fixtures' edited cert
    // The safe-N line, as Markdown and HTML state it.
    CHECK_THAT(r.out, Catch::Contains("tiny/rand-256: largest N that is GREEN, with every smaller "
                                      "N measured, at every ctx measured (512, 1024): 2\n"));
    CHECK_THAT(r.out, Catch::Contains("AMBER (green_with_caveat: token_only)") &&
                          Catch::Contains("GREEN (promotable)"));
}

TEST_CASE("report --html writes one self-contained page with every cell", "[report][cli]") {
    testing::ScratchDir dir;
    const auto page = dir.file("r.html");
    const auto r = run_command({BI_RUN_PATH, "report", "--html", page, fixtures(dir)});
    CHECK(r.exit_code == 1);  // the fixtures' edited cert: the page is written all the same
    const std::string html = testing::read_text(page);
    CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>") && Catch::EndsWith("</html>\n"));
    CHECK_THAT(html, !Catch::Contains("<script") && !Catch::Contains("http://") &&
                         !Catch::Contains("https://"));
    CHECK_THAT(html, Catch::Contains("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; "
                                     "&amp; &#39;quoted&#39;"));
    CHECK_THAT(html, Catch::Contains(
                         "Largest N that is GREEN, with every smaller N measured, at every ctx "
                         "measured: <b>N = 2</b>"));
    CHECK_THAT(html, Catch::Contains("A (serial) &middot; content"));
    for (const char* anchor : {"cell-tiny~2Frand-256__ctx512__N2",
                               "cell-tiny~2Frand-256__ctx512__N4", "cell-other-model__ctx512__N2"})
        CHECK_THAT(html, Catch::Contains(std::string("href=\"#") + anchor + "\"") &&
                             Catch::Contains(std::string("id=\"") + anchor + "\""));
}

TEST_CASE("report --junit: a cert that disagrees with itself is an error, its model's suite kept",
          "[report][cli]") {
    testing::ScratchDir dir;
    const auto certs = fixtures(dir);
    // Relabel the RED cert green and give it a fresh digest, as a forger who knows the format.
    const auto red = certs + "/tiny~2Frand-256__ctx512__N4.json";
    core::Json document = io::parse_json(io::read_file(red), red);
    document.set("status", "green");
    document.set("digest", io::cert_digest(document));
    io::write_file_atomically(red, io::to_json_text(document, true) + "\n");
    const auto xml = dir.file("j.xml");
    const auto r = run_command({BI_RUN_PATH, "report", "--junit", xml, certs});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains(red + ": the cert disagrees with itself"));
    const std::string junit = testing::read_text(xml);
    CHECK_THAT(junit, Catch::Contains("<error type=\"inconsistent\" message=\"" + red +
                                      ": the cert disagrees with itself"));
    CHECK_THAT(junit, Catch::Contains("errors=\"2\"") && Catch::Contains("failures=\"0\""));
}

TEST_CASE("report: bad output options are usage errors naming the option", "[report][cli]") {
    testing::ScratchDir dir;
    const auto certs = fixtures(dir);
    auto r = run_command({BI_RUN_PATH, "report", "--csv", "--markdown", certs});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--json, --csv and --markdown all print to stdout"));
    r = run_command({BI_RUN_PATH, "report", "--html", dir.file("missing/r.html"), certs});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("bi-run report: --html " + dir.file("missing/r.html")));
}

TEST_CASE("run-live --report-html writes the page for the run's cert", "[report][cli]") {
    testing::ScratchDir dir;
    const auto page = dir.file("run.html");
    const auto r = run_command(mock_server_run(dir, "run-live", {"--report-html", page}));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::StartsWith("GREEN (green, not promotable)  m  ctx 512  N 4"));
    CHECK_THAT(r.out, Catch::EndsWith("report: " + page + "\n"));
    CHECK_THAT(testing::read_text(page), Catch::Contains("id=\"cell-m__ctx512__N4\""));
    const auto refused =
        run_command({BI_RUN_PATH, "run-live", "--server-bin", BI_MOCK_SERVER_PATH, "--model",
                     dir.file("model.gguf"), "--model-alias", "m", "--out-dir", dir.file("out2"),
                     "--report-html", dir.file("nowhere/r.html")});
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("--report-html " + dir.file("nowhere/r.html")));
    CHECK_FALSE(std::filesystem::exists(dir.file("out2")));
}

TEST_CASE("sweep --report-html: one page with a matrix cell per (ctx, N) of the sweep",
          "[report][cli]") {
    testing::ScratchDir dir;
    const auto page = dir.file("sweep.html");
    const auto r =
        run_command(mock_server_run(dir, "sweep", {"--parallel", "2,4", "--report-html", page}));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::Contains("summary (m)") && Catch::Contains("report: " + page));
    const std::string html = testing::read_text(page);
    CHECK_THAT(html, Catch::Contains("<th>N = 2</th><th>N = 4</th>"));
    for (const char* anchor : {"cell-m__ctx512__N2", "cell-m__ctx512__N4"})
        CHECK_THAT(html, Catch::Contains(std::string("href=\"#") + anchor + "\""));
}

TEST_CASE("report names two certs of one cell, and that cell answers no largest N",
          "[report][cli]") {
    testing::ScratchDir dir;
    const std::string certs = fixtures(dir);
    std::filesystem::copy_file(certs + "/tiny~2Frand-256__ctx512__N2.json", certs + "/again.json");
    const auto r = run_command({BI_RUN_PATH, "report", certs});
    INFO(r.err);
    CHECK_THAT(r.err, Catch::Contains("note: two certs for tiny/rand-256 ctx 512 N 2: ") &&
                          Catch::Contains("again.json") &&
                          Catch::Contains("tiny~2Frand-256__ctx512__N2.json"));
    // N = 2 was the answer; contested, there is none.
    CHECK_THAT(r.out, Catch::Contains("tiny/rand-256: largest N that is GREEN, with every smaller "
                                      "N measured, at every ctx measured (512, 1024): none\n"));
}

TEST_CASE("report --html: a cell three certs claim shows its worst verdict and every cert of it",
          "[report][cli]") {
    testing::ScratchDir dir;
    const std::string certs = fixtures(dir, "contested");
    const auto page = dir.file("r.html");
    const auto r = run_command({BI_RUN_PATH, "report", "--html", page, certs});
    INFO(r.err);
    CHECK(r.exit_code == 0);
    const std::string html = testing::read_text(page);
    // The matrix shows the RED, though a-amber.json comes first by name.
    CHECK_THAT(html, Catch::Contains("<td class=\"v-red\"><a href=\"#cell-tiny~2Frand-256__ctx512__"
                                     "N4\"") &&
                         Catch::Contains("3 certs, the worst shown"));
    // Each cert that is not GREEN is listed, and each has its detail section.
    for (const char* word : {"RED", "UNVERIFIED", "AMBER"})
        CHECK_THAT(html, Catch::Contains(std::string(">") + word +
                                         "</span>tiny/rand-256 &middot; ctx 512 &middot; N 4"));
    for (const char* file : {"a-amber.json", "m-unverified.json", "z-red.json"})
        CHECK_THAT(html, Catch::Contains("<code>" + certs + "/" + file + "</code></p>"));
    for (const char* anchor : {"cell-tiny~2Frand-256__ctx512__N4\"",
                               "cell-tiny~2Frand-256__ctx512__"
                               "N4-2\"",
                               "cell-tiny~2Frand-256__ctx512__N4-3\""})
        CHECK_THAT(html,
                   Catch::Contains(std::string("<section class=\"card cell\" id=\"") + anchor));
    // What report says on stderr is on the page too.
    const std::string note = "two certs for tiny/rand-256 ctx 512 N 4: " + certs +
                             "/a-amber.json and " + certs +
                             "/z-red.json (the matrix shows the "
                             "worst, RED of " +
                             certs + "/z-red.json; that cell answers no largest N)";
    CHECK_THAT(r.err, Catch::Contains("bi-run report: note: " + note));
    CHECK_THAT(html, Catch::Contains("<h2>Cells with more than one cert</h2>") &&
                         Catch::Contains("<li>" + note + "</li>"));
    // Every format's matrix shows the worst.
    const auto md = run_command({BI_RUN_PATH, "report", "--markdown", certs});
    const auto row = md.out.find("\n| 512 |");
    REQUIRE(row != std::string::npos);
    CHECK_THAT(md.out.substr(row, md.out.find('\n', row + 1) - row),
               Catch::EndsWith("| **RED** |") && !Catch::Contains("AMBER"));
}

TEST_CASE("report --html names the model file's whole sha256 and its first MiB's apart",
          "[report][cli]") {
    testing::ScratchDir dir;
    const auto r = run_command(mock_server_run(dir, "run-live", {"--parallel", "2"}));
    INFO(r.err);
    REQUIRE(r.exit_code != 1);
    const auto page = dir.file("r.html");
    REQUIRE(run_command({BI_RUN_PATH, "report", "--html", page, dir.file("out")}).exit_code != 2);
    const std::string html = testing::read_text(page);
    // What sha256sum prints for the file, and the hash of its first MiB, each under its name.
    const std::string whole = core::sha256_hex("not really a model");
    CHECK_THAT(html, Catch::Contains(", sha256 <code>" + whole +
                                     "</code>, sha256 of the first "
                                     "MiB <code>"));
    CHECK_THAT(html, !Catch::Contains("sha256 head"));
}
