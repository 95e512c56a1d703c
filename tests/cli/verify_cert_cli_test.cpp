// Runs the real bi-run binary against certs written by the core.
#include <catch2/catch.hpp>

#include "../unit/trial_builders.hpp"
#include "core/cert.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::run_command;

namespace {

std::string write_cert(const testing::ScratchDir& dir, const std::string& name,
                       const std::string& source, bool red) {
    auto e = testing::clean_cell(6, 2);
    if (red) e.arm_c[1]["id0"].score = 0.0;
    core::CertContext c;
    c.cell = {"tiny", 512, 4, "f16", 1};
    c.source = *core::parse_source(source);
    c.ts_utc = "2026-01-01T00:00:00Z";
    const std::string path = dir.file(name);
    io::write_cert(path, core::build_cert(c, core::decide_verdict(e)));
    return path;
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
    CHECK_THAT(r.out, Catch::Contains("green (promotable)"));
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
    CHECK_THAT(r.out, Catch::Contains("failed (not promotable)"));
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
    CHECK_THAT(r.out, Catch::Contains("failed (co_batching)") && Catch::Contains("green"));
    r = run_command({BI_RUN_PATH, "report", "--json", dir.file("a.json")});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("\"promotable\":true"));
    io::write_file_atomically(dir.file("c.json"), "[1]");
    r = run_command({BI_RUN_PATH, "report", dir.path()});
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("c.json: not a cert"));
}
