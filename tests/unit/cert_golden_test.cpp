// Golden files of the rendered cert, one per colour: GREEN, RED (A vs C diverged), AMBER (B moved).
// The context fixes timestamp and paths, so a render is byte-stable; a mismatch leaves
// <name>.received.json in the build tree, and copying it over the .approved.json approves it.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "built_paths.hpp"
#include "core/cert.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "scratch_dir.hpp"
#include "trial_builders.hpp"

using namespace bi;

namespace {

core::Cert cert_of(core::CellEvidence evidence,
                   std::optional<core::PassPlanRecord> plan = std::nullopt) {
    core::CertContext c = testing::fixed_cert_context();
    c.plan = std::move(plan);
    evidence.n_predict = c.run->n_predict;
    return core::build_cert(c, core::decide_verdict(evidence));
}

// The rendered cert must equal golden/<name>.approved.json byte for byte. A missing approved file
// reads as empty, so a new case fails the same way and leaves its received file to approve.
void check_golden(const std::string& name, const core::Cert& cert) {
    const std::string approved =
        testing::read_text(std::string(BI_TEST_DATA_DIR) + "/" + name + ".approved.json");
    const std::string rendered = io::render_cert(cert);
    const std::string received = std::string(BI_TEST_OUTPUT_DIR) + "/" + name + ".received.json";
    if (rendered != approved) io::write_file_atomically(received, rendered);
    INFO("received: " << received);
    CHECK(rendered == approved);
}

// A trial whose scored answer moved: every invariant that follows from the answer differs.
void move_answer(core::TrialRecord& trial, const std::string& answer) {
    trial.extracted_answer = answer;
    trial.score = 0.0;
    trial.passed = false;
    trial.content = "text-" + answer;
    trial.content_sha = core::content_sha(trial.content);
    trial.token_ids = std::vector<std::int64_t>{1, 2, 9, 9};
}

}  // namespace

TEST_CASE("the cert file matches the approved golden file", "[cert_io][golden]") {
    check_golden("clean_cell", cert_of(testing::clean_cell(6, 2)));
}

TEST_CASE("a RED cert (A vs C divergence over two passes) matches its golden file",
          "[cert_io][golden]") {
    auto evidence = testing::clean_cell(6, 2);
    move_answer(evidence.arm_c[0]["id1"], "moved");  // pass 1: one id
    move_answer(evidence.arm_c[1]["id1"], "moved");  // pass 2: the same id again, and another
    move_answer(evidence.arm_c[1]["id4"], "other");
    const auto cert = cert_of(evidence);
    REQUIRE(cert.verdict.status == core::Status::Failed);
    check_golden("co_batching_red", cert);
}

TEST_CASE("a planned run that hit --max-passes says the target was not reached",
          "[cert_io][golden]") {
    core::PassPlanRecord plan;
    plan.target_rate = 0.01;
    plan.trials_needed = 299;
    plan.max_passes = 2;
    plan.passes_used = 2;
    plan.trials_counted = 6;
    plan.ended = core::PlanEnd::MaxPasses;
    const auto cert = cert_of(testing::clean_cell(6, 2), plan);
    REQUIRE(cert.verdict.status == core::Status::Green);
    check_golden("planned_not_reached", cert);
}

TEST_CASE("an AMBER cert (A and C agree, B disagrees) matches its golden file",
          "[cert_io][golden]") {
    auto evidence = testing::clean_cell(6, 2);
    move_answer(evidence.arm_b->at("id2"), "drifted");
    const auto cert = cert_of(evidence);
    REQUIRE(cert.verdict.status == core::Status::GreenWithCaveat);
    check_golden("control_moved_amber", cert);
}
