// --arrivals through bi-run against the mock: each C pass's schedule is recorded with what its
// streams achieved, staggered passes show their prefills inside other requests' decodes, the
// default mixes the two, and a word that is not a schedule is refused by name.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_args.hpp"
#include "io/cert_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;
using testing::bi_run;
using testing::operator+;
using testing::run_command;

namespace {

// The cert of one run-mock cell (N 4, 3 passes) with `args`; null when none was written.
core::Json mock_cert(const std::vector<std::string>& args) {
    testing::ScratchDir dir;
    const auto r = run_command(bi_run(
        std::vector<std::string>{"run-mock", "--out-dir", dir.path(), "--quiet", "--passes", "3"} +
        args));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
        if (entry.path().extension() == ".json") return io::read_cert(entry.path()).document;
    return core::Json();
}

std::vector<std::string> schedules(const core::Json& cert) {
    std::vector<std::string> out;
    for (const auto& pass : cert.find("lockstep")->find("per_pass")->as_array())
        out.push_back(pass.string_or("schedule", "(none)"));
    return out;
}

}  // namespace

TEST_CASE("arrivals staggered: every pass's later prefills come inside earlier decodes",
          "[cli][arrivals]") {
    const auto cert = mock_cert({"--arrivals", "staggered"});
    REQUIRE(cert.is_object());
    CHECK(cert.find("status")->as_string() == "green");
    CHECK(cert.find("run")->string_or("arrivals", "") == "staggered");
    CHECK(schedules(cert) == std::vector<std::string>{"staggered", "staggered", "staggered"});
    for (const auto& pass : cert.find("lockstep")->find("per_pass")->as_array()) {
        // Each of the first four joins while the ones before it decode: three at least.
        CHECK(pass.find("prefills_in_decode")->as_int() >= 3);
        CHECK(pass.find("arrivals_achieved")->as_bool());
    }
}

TEST_CASE("arrivals: the default mixes the schedules pass by pass, together sends together",
          "[cli][arrivals]") {
    const auto mixed = mock_cert({});
    REQUIRE(mixed.is_object());
    CHECK(mixed.find("run")->string_or("arrivals", "") == "mixed");
    const auto passes = schedules(mixed);
    REQUIRE(passes.size() == 3);
    CHECK(passes[0] != passes[1]);
    CHECK(passes[1] != passes[2]);
    const auto together = mock_cert({"--arrivals", "together"});
    REQUIRE(together.is_object());
    CHECK(schedules(together) == std::vector<std::string>{"together", "together", "together"});
}

TEST_CASE("arrivals: another word is refused, naming the option", "[cli][arrivals]") {
    testing::ScratchDir dir;
    const auto r = run_command(
        bi_run({"run-mock", "--out-dir", dir.path(), "--arrivals", "sometimes", "--quiet"}));
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "bi-run run-mock: --arrivals must be mixed, together or staggered, not 'sometimes'\n");
    CHECK_FALSE(std::filesystem::exists(dir.file("bi-mock__ctx2048__N4.json")));
}
