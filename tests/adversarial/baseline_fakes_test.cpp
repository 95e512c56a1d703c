// Every way a misbehaving server could pass a baseline check it should not (docs/baseline.md):
// bi-run baseline record and check against fake_llama_server.py, one misbehaviour each, with the
// honest work-alike as the control. A check that cannot tell is NOT COMPARABLE, never SAME.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "built_paths.hpp"
#include "core/baseline_documents.hpp"
#include "io/baseline_io.hpp"
#include "run_command.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

struct Fakes {
    testing::ScratchDir dir;
    std::string model = dir.write("model.gguf", "not really a model");
    std::string baseline = dir.file("m.baseline.json");

    std::vector<std::string> server(const std::vector<std::string>& fake) const {
        std::vector<std::string> argv{"--server-bin", BI_FAKE_SERVER,
                                      "--model",      model,
                                      "--quiet",      "--server-flag=--fake-tick-ms=1"};
        for (const auto& token : fake) argv.push_back("--server-flag=" + token);
        return argv;
    }

    testing::CommandResult record(const std::vector<std::string>& fake = {}) const {
        std::vector<std::string> argv{
            BI_RUN_PATH, "baseline", "record",    "--model-alias",  "m",
            "--ctx",     "512",      "--workset", BI_SMALL_WORKSET, "--n-predict",
            "16",        "--out",    baseline};
        const auto s = server(fake);
        argv.insert(argv.end(), s.begin(), s.end());
        return testing::run_command(argv);
    }

    // The check's exit status and its report (status NotComparable when none was written).
    std::pair<int, core::BaselineCheck> check(const std::vector<std::string>& fake = {}) const {
        const std::string out = dir.file("check.json");
        std::vector<std::string> argv{BI_RUN_PATH, "baseline", "check", "--baseline",
                                      baseline,    "--out",    out};
        const auto s = server(fake);
        argv.insert(argv.end(), s.begin(), s.end());
        const auto r = testing::run_command(argv);
        INFO(r.err);
        const auto loaded = io::read_check(out);
        REQUIRE(loaded.value);
        return {r.exit_code, *loaded.value};
    }
};

bool mentions(const core::BaselineCheck& c, const std::string& text) {
    return std::any_of(c.reasons.begin(), c.reasons.end(),
                       [&](const auto& line) { return line.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("baseline control: the honest work-alike is SAME against itself, from a live source",
          "[adversarial][baseline]") {
    Fakes fakes;
    const auto recorded = fakes.record();
    INFO(recorded.err);
    REQUIRE(recorded.exit_code == 0);
    const auto [code, check] = fakes.check();
    CHECK(code == 0);
    CHECK(check.status == core::BaselineStatus::Same);
    CHECK(check.baseline.source == core::Source::Live);
    CHECK(check.current.source == core::Source::Live);
}

TEST_CASE("baseline: a server that does not reproduce itself serially is no reference",
          "[adversarial][baseline]") {
    Fakes fakes;
    // As the baseline: written, but it says it cannot stand as a reference.
    const auto recorded = fakes.record({"--fake-serial-jitter"});
    CHECK(recorded.exit_code == 3);
    CHECK_THAT(recorded.out, Catch::Contains("the recorded run does not reproduce itself "
                                             "serially: A' differs from A"));
    auto [code, check] = fakes.check();
    CHECK(code == 3);
    CHECK(check.status == core::BaselineStatus::NotComparable);
    CHECK(mentions(check, "the baseline run does not reproduce itself serially"));

    // As the build of now, against a good baseline: its own jitter would read as a change.
    REQUIRE(fakes.record().exit_code == 2);  // the jittering one is kept until --replace
    std::vector<std::string> argv{
        BI_RUN_PATH, "baseline", "record",       "--model-alias",  "m",
        "--ctx",     "512",      "--workset",    BI_SMALL_WORKSET, "--n-predict",
        "16",        "--out",    fakes.baseline, "--replace"};
    const auto s = fakes.server({});
    argv.insert(argv.end(), s.begin(), s.end());
    REQUIRE(testing::run_command(argv).exit_code == 0);
    std::tie(code, check) = fakes.check({"--fake-serial-jitter"});
    CHECK(code == 3);
    CHECK(check.status == core::BaselineStatus::NotComparable);
    CHECK(mentions(check, "the current run does not reproduce itself serially"));
    CHECK_FALSE(check.comparison);
}

TEST_CASE("baseline: a server that names another model than the one launched is no reference",
          "[adversarial][baseline]") {
    Fakes fakes;
    REQUIRE(fakes.record().exit_code == 0);
    const auto [code, check] = fakes.check({"--fake-report-model=other-model.gguf"});
    CHECK(code == 3);
    CHECK(check.status == core::BaselineStatus::NotComparable);
    CHECK(mentions(check, "other-model.gguf"));
}

TEST_CASE("baseline: answers that move only under some other condition still count",
          "[adversarial][baseline]") {
    // A build whose answers depend on the slot they ran in: serially, one slot, A and A' agree
    // and so does the baseline; the check is honest about the one-slot server it measured.
    Fakes fakes;
    REQUIRE(fakes.record().exit_code == 0);
    const auto [code, check] = fakes.check({"--fake-slot-dependent"});
    // Slot 0 gets its own text: every id moved, and the check names them all.
    CHECK(code == 3);
    CHECK(check.status == core::BaselineStatus::Changed);
    REQUIRE(check.comparison);
    CHECK(check.comparison->divergent_ids.size() == 8);
}
