// Runs the real bi-run binary against certs written by the core.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <optional>

#include "../unit/cache_builders.hpp"
#include "../unit/trial_builders.hpp"
#include "built_paths.hpp"
#include "core/cert.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

std::string write_cert_of(const testing::ScratchDir& dir, const std::string& name,
                          const core::CellEvidence& e, const std::string& source,
                          std::optional<core::ServerRecord> server = std::nullopt,
                          std::optional<core::CacheCheck> cache_check = std::nullopt) {
    core::CertContext c;
    c.cell = {"tiny", 512, 4, "f16", 1};
    c.source = *core::parse_source(source);
    c.ts_utc = "2026-01-01T00:00:00Z";
    c.server = std::move(server);
    c.cache_check = std::move(cache_check);
    const std::string path = dir.file(name);
    io::write_cert(path, core::build_cert(c, core::decide_verdict(e)));
    return path;
}

std::string write_cert(const testing::ScratchDir& dir, const std::string& name,
                       const std::string& source, bool red) {
    auto e = testing::clean_cell(6, 2);
    if (red) e.arm_c[1]["id0"].score = 0.0;
    return write_cert_of(dir, name, e, source);
}

// Edits a cert on disk and recomputes its digest, as a forger who knows the format would.
void forge(const std::string& path, const std::function<void(core::Json&)>& edit) {
    core::Json document = io::parse_json(io::read_file(path), path);
    edit(document);
    document.set("digest", io::cert_digest(document));
    io::write_file_atomically(path, io::to_json_text(document, true) + "\n");
}

std::size_t line_count(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

testing::CommandResult verify(const std::vector<std::string>& paths) {
    std::vector<std::string> argv{BI_RUN_PATH, "verify-cert"};
    argv.insert(argv.end(), paths.begin(), paths.end());
    return run_command(argv);
}

}  // namespace

TEST_CASE("verify-cert: a live green is promotable, exit 0", "[cli][verify-cert]") {
    testing::ScratchDir dir;
    auto r = verify({write_cert(dir, "g.json", "live", false)});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("g.json: GREEN (promotable)"));
    CHECK_THAT(r.out, Catch::Contains("digest intact"));
}

TEST_CASE("verify-cert: a mock green is not promotable, exit 3", "[cli][verify-cert]") {
    testing::ScratchDir dir;
    auto r = verify({write_cert(dir, "m.json", "mock", false)});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::Contains("source is 'mock'; only a live run is promotable"));
}

TEST_CASE("verify-cert: a RED cert explains itself, exit 3", "[cli][verify-cert]") {
    testing::ScratchDir dir;
    auto r = verify({write_cert(dir, "r.json", "live", true)});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::Contains("r.json: RED (failed, co_batching), not promotable"));
    CHECK_THAT(r.out, Catch::Contains("status is 'failed', not 'green'"));
}

TEST_CASE("verify-cert: a missing file, exit 1", "[cli][verify-cert]") {
    testing::ScratchDir dir;
    auto r = verify({dir.file("absent.json")});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("cannot read") && Catch::Contains("absent.json"));
}

TEST_CASE("verify-cert: malformed JSON and a non-cert, exit 1", "[cli][verify-cert]") {
    testing::ScratchDir dir;
    io::write_file_atomically(dir.file("bad.json"), "{\"status\": ");
    auto r = verify({dir.file("bad.json")});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("invalid JSON"));

    io::write_file_atomically(dir.file("other.json"), "{\"hello\": 1}\n");
    r = verify({dir.file("other.json")});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("not a cert: $.schema: missing"));
}

TEST_CASE("verify-cert: a tampered cert fails its digest, exit 1", "[cli][verify-cert]") {
    testing::ScratchDir dir;
    const auto path = write_cert(dir, "t.json", "live", true);
    std::string text = io::read_file(path);
    text.replace(text.find("\"status\": \"failed\""), 18, "\"status\": \"green\" ");
    io::write_file_atomically(path, text);
    auto r = verify({path});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("digest mismatch"));
    CHECK_THAT(r.out, Catch::Contains("digest MISMATCH"));
}

TEST_CASE("verify-cert: a RED cert relabelled green with a fresh digest is INVALID, exit 1",
          "[cli][verify-cert]") {
    testing::ScratchDir dir;
    const auto path = write_cert(dir, "c.json", "live", true);
    forge(path, [](core::Json& cert) { cert.set("status", "green"); });
    auto r = verify({path});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("c.json: INVALID"));
    CHECK_THAT(r.err, Catch::StartsWith("bi-run: " + path +
                                        ": the cert disagrees with itself: status is green but "
                                        "the evidence gives failed (co_batching): A vs C: 1 "
                                        "id(s) diverged"));
    CHECK(line_count(r.err) == 1);
}

TEST_CASE("verify-cert: a mock cert relabelled live is INVALID, exit 1", "[cli][verify-cert]") {
    testing::ScratchDir dir;
    core::ServerRecord server;
    server.a.binary = "bi-mock-server";
    server.n.binary = "bi-mock-server";
    server.props = core::Json::Object{{"bi_mock", true}, {"total_slots", 1}};
    server.props_n = core::Json::Object{{"bi_mock", true}, {"total_slots", 4}};
    const auto path = write_cert_of(dir, "m.json", testing::clean_cell(6, 2), "mock", server);
    CHECK(verify({path}).exit_code == 3);  // honest: a mock green, not promotable
    forge(path, [](core::Json& cert) { cert.set("source", "live"); });
    auto r = verify({path});
    CHECK(r.exit_code == 1);
    CHECK(r.err == "bi-run: " + path +
                       ": the cert disagrees with itself: source is live but server.props says "
                       "bi_mock: the server was the mock\n");
}

TEST_CASE("verify-cert: a gate that contradicts its evidence is INVALID, exit 1",
          "[cli][verify-cert]") {
    testing::ScratchDir dir;
    auto e = testing::clean_cell(6, 2);
    for (auto* arm : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b, &e.arm_c[0], &e.arm_c[1]})
        for (auto& [id, r] : *arm)
            r.failure_mode = core::FailureMode::Empty;  // green_unverified by the floor
    const auto path = write_cert_of(dir, "f.json", e, "live");
    CHECK(verify({path}).exit_code == 3);
    forge(path, [](core::Json& cert) {
        cert["completion_floor"].set("ok", true);
        cert["completion_floor"].set("completion_floor_ok", true);  // its upstream name too
    });
    auto r = verify({path});
    CHECK(r.exit_code == 1);
    CHECK(r.err == "bi-run: " + path +
                       ": the cert disagrees with itself: completion_floor.ok is true but A has "
                       "0/6 ok (need 80.0%)\n");
}

TEST_CASE("verify-cert: the cache check is printed beside the verdict, which keeps the exit status",
          "[cli][verify-cert][cache]") {
    using core::BaselineStatus;
    using testing::cache_check_of;
    testing::ScratchDir dir;
    const auto green = testing::clean_cell(6, 2);
    auto red = green;
    red.arm_c[1]["id0"].score = 0.0;
    // A promotable GREEN whose warm cache changed an answer: still promotable, exit 0.
    const auto changed = write_cert_of(dir, "changed.json", green, "live", std::nullopt,
                                       cache_check_of(BaselineStatus::Changed, 6));
    auto r = verify({changed});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith(changed + ": GREEN (promotable)\n"));
    CHECK_THAT(r.out, Catch::Contains("\n  cache check: CHANGED: 1 of 6 id(s) answer otherwise "
                                      "when served from the prompt cache: id3 (repeat: 27 cached "
                                      "prompt tokens, token 2 differs)\n"));
    // A RED whose cache check is SAME: the RED decides, exit 3.
    const auto same = write_cert_of(dir, "same.json", red, "live", std::nullopt,
                                    cache_check_of(BaselineStatus::Same, 6));
    r = verify({same});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::StartsWith(same + ": RED (failed, co_batching)"));
    CHECK_THAT(r.out, Catch::Contains("\n  cache check: SAME: every warm answer equals A's: 6 of 6 "
                                      "id(s) served from the prompt cache (timings.cache_n)"));
    const auto cold = write_cert_of(dir, "cold.json", green, "mock", std::nullopt,
                                    cache_check_of(BaselineStatus::NotComparable, 6));
    r = verify({cold});
    CHECK(r.exit_code == 3);
    CHECK_THAT(r.out, Catch::Contains("\n  cache check: NOT COMPARABLE: the cache served none of "
                                      "the repeated prompts"));
    // Without --cache-arm there is no such line.
    r = verify({write_cert_of(dir, "plain.json", green, "live")});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, !Catch::Contains("cache check"));
}

TEST_CASE("verify-cert: a cache check edited with a fresh digest is INVALID, exit 1",
          "[cli][verify-cert][cache]") {
    testing::ScratchDir dir;
    const auto path = write_cert_of(dir, "c.json", testing::clean_cell(6, 2), "live", std::nullopt,
                                    testing::cache_check_of(core::BaselineStatus::Changed, 6));
    forge(path, [](core::Json& cert) { cert["cache_check"].set("status", "same"); });
    auto r = verify({path});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::StartsWith(path + ": INVALID"));
    CHECK(r.err == "bi-run: " + path +
                       ": the cert disagrees with itself: cache_check is 'same' but lists 1 "
                       "changed id(s)\n");
}

TEST_CASE("verify-cert: the worst result over several files wins", "[cli][verify-cert]") {
    testing::ScratchDir dir;
    const auto green = write_cert(dir, "g.json", "live", false);
    const auto mock = write_cert(dir, "m.json", "mock", false);
    CHECK(verify({green, mock}).exit_code == 3);
    CHECK(verify({green, mock, dir.file("absent.json")}).exit_code == 1);
    CHECK(verify({green, green}).exit_code == 0);
}

TEST_CASE("verify-cert: usage errors exit 2 and help exits 0", "[cli][verify-cert]") {
    auto r = run_command({BI_RUN_PATH, "verify-cert"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("name at least one cert file"));
    r = run_command({BI_RUN_PATH, "verify-cert", "--bogus"});
    CHECK(r.exit_code == 2);
    r = run_command({BI_RUN_PATH, "verify-cert", "--help"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("Exit status"));
}

TEST_CASE("bi-run: version, help and unknown commands", "[cli]") {
    auto r = run_command({BI_RUN_PATH, "--version"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("bi-run ") && Catch::Contains(BI_VERSION));
    r = run_command({BI_RUN_PATH, "--help"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("verify-cert"));
    r = run_command({BI_RUN_PATH, "frobnicate"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("unknown command 'frobnicate'"));
    CHECK(run_command({BI_RUN_PATH}).exit_code == 2);
}

TEST_CASE("report: one row per cert, directories expanded, bad files exit 1", "[cli][report]") {
    testing::ScratchDir dir;
    write_cert(dir, "a.json", "live", false);
    write_cert(dir, "b.json", "live", true);
    auto r = run_command({BI_RUN_PATH, "report", dir.path()});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("RED (failed, co_batching)") &&
                          Catch::Contains("GREEN (promotable)"));
    // Both bounds, each with its n: an upper bound for the clean cell, a rate for the RED one.
    CHECK_THAT(r.out, Catch::Contains("per_trial") && Catch::Contains("per_prompt") &&
                          Catch::Contains("<=0.") && Catch::Contains(" n="));
    r = run_command({BI_RUN_PATH, "report", "--json", dir.file("a.json")});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("\"promotable\":true"));
    io::write_file_atomically(dir.file("c.json"), "[1]");
    r = run_command({BI_RUN_PATH, "report", dir.path()});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("c.json: not a cert"));
}

TEST_CASE("report: a cert that disagrees with itself is refused, exit 1", "[cli][report]") {
    testing::ScratchDir dir;
    write_cert(dir, "a.json", "live", false);
    const auto forged = write_cert(dir, "b.json", "live", true);
    forge(forged, [](core::Json& cert) { cert.set("status", "green"); });
    auto r = run_command({BI_RUN_PATH, "report", dir.path()});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::StartsWith("bi-run report: " + forged +
                                        ": the cert disagrees with itself: status is green"));
    CHECK(line_count(r.err) == 1);
    CHECK_THAT(r.out, Catch::Contains("tiny"));  // the honest cert still has its row
}
