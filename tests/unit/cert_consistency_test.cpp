// cert_disagreements: every honest cert of the verdict's rows agrees with itself, and each kind
// of edit (status, class, gates, comparisons, reasons, source, cache check) is named.
#include <catch2/catch.hpp>

#include <functional>
#include <utility>

#include "cache_builders.hpp"
#include "core/cert.hpp"
#include "core/cert_consistency.hpp"
#include "io/cert_schema.hpp"
#include "trial_builders.hpp"

using namespace bi;
using bi::testing::clean_cell;

namespace {

using Scenario = std::function<void(core::CellEvidence&)>;

core::Cert cert_of(const core::CellEvidence& e, core::Source source = core::Source::Live) {
    core::CertContext c;
    c.cell = {"tiny", 512, 4, "f16", 1};
    c.source = source;
    c.ts_utc = "2026-01-01T00:00:00Z";
    return core::build_cert(c, core::decide_verdict(e));
}

core::Cert cert_of(const Scenario& scenario) {
    auto e = clean_cell();
    scenario(e);
    return cert_of(e);
}

// The cert as verify-cert sees it: written through the field table and read back.
core::Cert round_tripped(core::Cert cert) {
    cert.digest = "0000";
    auto parsed = io::cert_from_json(io::cert_to_json(cert));
    REQUIRE(parsed.problem.empty());
    return *parsed.cert;
}

bool says(const std::vector<std::string>& lines, const std::string& text) {
    for (const auto& line : lines)
        if (line.find(text) != std::string::npos) return true;
    return false;
}

std::string first(const std::vector<std::string>& lines) {
    return lines.empty() ? "" : lines.front();
}

// Each row of verdict_test.cpp's precedence table, as the evidence that produces it.
const std::vector<std::pair<std::string, Scenario>>& honest_scenarios() {
    static const std::vector<std::pair<std::string, Scenario>> kScenarios{
        {"green", [](core::CellEvidence&) {}},
        {"row 1 serial",
         [](core::CellEvidence& e) {
             (*e.arm_a_prime)["id3"].extracted_answer = "other";
             e.arm_c[0]["id3"].extracted_answer = "other";
         }},
        {"row 2 score flip", [](core::CellEvidence& e) { e.arm_c[2]["id5"].score = 0.0; }},
        {"row 2 timeout",
         [](core::CellEvidence& e) {
             e.arm_c[0]["id0"].failure_mode = core::FailureMode::HttpTimeout;
         }},
        {"row 2 missing id", [](core::CellEvidence& e) { e.arm_c[1].erase("id9"); }},
        {"row 2 slot allocation",
         [](core::CellEvidence& e) {
             (*e.arm_b)["id2"].score = 0.0;
             for (auto& pass : e.arm_c) pass["id2"].score = 0.0;
         }},
        {"row 2 slot allocation and co-batching",
         [](core::CellEvidence& e) {
             (*e.arm_b)["id2"].score = 0.0;
             for (auto& pass : e.arm_c) pass["id2"].score = 0.0;
             e.arm_c[1]["id7"].score = 0.5;
         }},
        {"RED without overlap",
         [](core::CellEvidence& e) {
             e.server_c_passes.clear();
             e.arm_c[0]["id0"].score = 0.0;
         }},
        {"row 3 no client overlap",
         [](core::CellEvidence& e) {
             for (auto& pass : e.arm_c) pass = bi::testing::serial(pass);
         }},
        {"row 3 no server overlap",
         [](core::CellEvidence& e) {
             for (auto& s : e.server_c_passes) {
                 s.peak_busy_slots = 1;
                 s.peak_requests_processing = 1;
             }
         }},
        {"row 4 all failures",
         [](core::CellEvidence& e) {
             for (auto* results : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b})
                 for (auto& [id, r] : *results) r.failure_mode = core::FailureMode::Empty;
             for (auto& pass : e.arm_c)
                 for (auto& [id, r] : pass) r.failure_mode = core::FailureMode::Empty;
         }},
        {"row 5 missing interval",
         [](core::CellEvidence& e) { e.arm_c[1]["id6"].dispatch_ns.reset(); }},
        {"row 5 one pass not co-batched",
         [](core::CellEvidence& e) { e.arm_c[1] = bi::testing::serial(e.arm_c[1]); }},
        {"row 6 B disagrees",
         [](core::CellEvidence& e) { (*e.arm_b)["id4"].extracted_answer = "b moved"; }},
        {"row 7 token only", [](core::CellEvidence& e) { e.arm_c[0]["id1"].content = "x"; }},
        {"row 7 logit drift",
         [](core::CellEvidence& e) { (*e.arm_c[2]["id8"].token_logprobs)[0] = -0.5000001; }},
        {"row 7 token and logit drift",
         [](core::CellEvidence& e) {
             e.arm_c[0]["id1"].token_ids = std::vector<std::int64_t>{1, 2, 3, 5};
             (*e.arm_c[1]["id2"].token_logprobs)[1] = -0.3;
         }},
        {"no concurrent pass", [](core::CellEvidence& e) { e.arm_c.clear(); }},
        {"no A' and no B",
         [](core::CellEvidence& e) {
             e.arm_a_prime.reset();
             e.arm_b.reset();
             e.server_b.reset();
         }},
        {"busy arm B", [](core::CellEvidence& e) { e.server_b->peak_busy_slots = 3; }},
    };
    return kScenarios;
}

core::Cert scenario_cert(const std::string& label) {
    for (const auto& [name, scenario] : honest_scenarios())
        if (name == label) return cert_of(scenario);
    FAIL("no scenario " << label);
    return {};
}

core::Cert red_cert() {
    return cert_of([](core::CellEvidence& e) { e.arm_c[1]["id2"].score = 0.0; });
}

}  // namespace

TEST_CASE("every honest cert agrees with itself, in memory and read back", "[cert][consistency]") {
    for (const auto& [label, scenario] : honest_scenarios()) {
        INFO(label);
        const auto cert = cert_of(scenario);
        CHECK(core::cert_disagreements(cert).empty());
        CHECK(core::cert_disagreements(round_tripped(cert)).empty());
    }
    CHECK(core::cert_disagreements(cert_of(clean_cell(6, 1), core::Source::Mock)).empty());
}

TEST_CASE("a RED cert relabelled green is refused with the rule that fires",
          "[cert][consistency]") {
    auto cert = red_cert();
    cert.verdict.status = core::Status::Green;
    cert.verdict.divergence_class.reset();
    const auto lines = core::cert_disagreements(cert);
    CHECK_THAT(first(lines), Catch::StartsWith("status is green but the evidence gives failed "
                                               "(co_batching): A vs C: 1 id(s) diverged"));
    CHECK(lines.size() == 1);  // its reasons still end with the rule that fired
    cert.verdict.decision_reasons.back() = "verdict green: no divergence detected";
    CHECK(says(core::cert_disagreements(cert),
               "decision_reasons end with 'verdict green: no divergence detected', not 'verdict "
               "failed (co_batching)'"));
    for (auto status : {core::Status::GreenWithCaveat, core::Status::GreenUnverified}) {
        cert.verdict.status = status;
        CHECK_THAT(first(core::cert_disagreements(cert)),
                   Catch::Contains("but the evidence gives failed (co_batching)"));
    }
}

TEST_CASE("the recorded rule must be the one the evidence fires", "[cert][consistency]") {
    for (const auto& [label, scenario] : honest_scenarios()) {
        INFO(label);
        const auto cert = cert_of(scenario);
        REQUIRE(cert.verdict.rule.has_value());
        CHECK(core::deciding_rule(cert) == *cert.verdict.rule);
    }
    auto cert = red_cert();
    REQUIRE(cert.verdict.rule->name == "ac_invariant_divergence");
    cert.verdict.rule->name = "none";
    CHECK(says(core::cert_disagreements(cert),
               "verdict.rule is 'none' but the evidence fires 'ac_invariant_divergence'"));
    cert = red_cert();
    cert.verdict.rule->first_reason = cert.verdict.decision_reasons.size();
    CHECK_THAT(first(core::cert_disagreements(cert)),
               Catch::StartsWith("verdict.rule.first_reason is "));
    // A cert written before the rule was recorded: the replay names it, its lines last.
    cert = red_cert();
    const auto recorded = *cert.verdict.rule;
    cert.verdict.rule.reset();
    CHECK(core::cert_disagreements(cert).empty());
    CHECK(core::deciding_rule(cert).name == recorded.name);
    CHECK(core::deciding_rule(cert).first_reason <= recorded.first_reason);
}

TEST_CASE("a serial self-check failure must stay serial_nondeterminism", "[cert][consistency]") {
    auto cert = scenario_cert("row 1 serial");
    REQUIRE(cert.verdict.divergence_class == core::DivergenceClass::SerialNondeterminism);
    cert.verdict.divergence_class = core::DivergenceClass::CoBatching;
    CHECK(first(core::cert_disagreements(cert)) ==
          "divergence_class is 'co_batching' but the evidence gives 'serial_nondeterminism'");
    cert.verdict.status = core::Status::Green;
    cert.verdict.divergence_class.reset();
    cert.verdict.decision_reasons.back() = "verdict green: no divergence";
    const auto lines = core::cert_disagreements(cert);
    CHECK_THAT(first(lines), Catch::Contains("serial self-check failed: A and A' differ on 1"));
    CHECK(says(lines, "not 'serial self-check failed"));
}

TEST_CASE("AC divergence hidden in the aggregate is still seen in the passes",
          "[cert][consistency]") {
    auto cert = red_cert();
    cert.divergence.ac.divergent_ids.clear();
    cert.verdict.status = core::Status::Green;
    auto lines = core::cert_disagreements(cert);
    CHECK(first(lines) == "A vs C lists 0 divergent id(s) but its passes list 1");

    cert = scenario_cert("green");
    cert.divergence.ac.per_pass_divergent[1] = 2;
    lines = core::cert_disagreements(cert);
    CHECK(first(lines) == "A vs C pass 2 counts 2 divergent id(s) but lists 0");

    cert = red_cert();
    cert.divergence.ac.per_pass[1].divergent_ids.clear();
    cert.divergence.ac.divergent_ids.clear();
    cert.divergence.ac.per_pass_divergent = {0, 0, 0};
    CHECK(first(core::cert_disagreements(cert)) ==
          "A vs C pass 2: id id2 has a mismatched score but is not divergent");
}

TEST_CASE("AMBER and drift certs relabelled green are refused", "[cert][consistency]") {
    auto cert = scenario_cert("row 6 B disagrees");  // row 6
    cert.verdict.status = core::Status::Green;
    cert.verdict.anomaly.reset();
    CHECK_THAT(first(core::cert_disagreements(cert)),
               Catch::StartsWith("status is green but the evidence gives green_with_caveat "
                                 "(AC_agree_B_disagrees): A vs B diverged on 1 id(s)"));
    cert = scenario_cert("row 7 token only");  // token only
    cert.verdict.status = core::Status::Green;
    cert.verdict.anomaly.reset();
    CHECK_THAT(first(core::cert_disagreements(cert)),
               Catch::StartsWith("status is green but the evidence gives green_with_caveat "
                                 "(token_only)"));
    cert = scenario_cert("row 7 token only");
    cert.verdict.anomaly = core::Anomaly::LogitDrift;
    CHECK(first(core::cert_disagreements(cert)) ==
          "anomaly is 'logit_drift' but the evidence gives 'token_only'");
}

TEST_CASE("the overlap gate must follow client depth and server peaks", "[cert][consistency]") {
    auto cert = scenario_cert("row 3 no client overlap");  // no client overlap
    cert.gates.overlap.ok = true;
    auto lines = core::cert_disagreements(cert);
    CHECK(first(lines) ==
          "overlap_ok is true but its evidence gives \"pass 1: client depth 1 "
          "(need 4)\"");
    cert = scenario_cert("row 3 no server overlap");  // no server overlap
    cert.gates.overlap.ok = true;
    CHECK_THAT(first(core::cert_disagreements(cert)),
               Catch::Contains("server peak busy slots 1 (need 4)"));
    cert = scenario_cert("green");
    cert.gates.overlap.client_max_depth = 1;
    CHECK(first(core::cert_disagreements(cert)) ==
          "overlap.client_max_depth is 1 but the deepest pass reached 10");
    cert = scenario_cert("green");
    cert.gates.overlap.ok = false;
    CHECK_THAT(first(core::cert_disagreements(cert)), Catch::StartsWith("overlap_ok is false"));
}

TEST_CASE("the completion floor must follow each arm's census", "[cert][consistency]") {
    auto cert = scenario_cert("row 4 all failures");  // all failures
    cert.gates.completion_floor.ok = true;
    CHECK(first(core::cert_disagreements(cert)) ==
          "completion_floor.ok is true but A has 0/10 ok (need 80.0%)");
    cert = scenario_cert("green");
    cert.gates.completion_floor.ok = false;
    CHECK(first(core::cert_disagreements(cert)) ==
          "completion_floor.ok is false but A and every C pass meet the floor of 80.0%");
    cert = scenario_cert("green");
    cert.gates.completion_floor.threshold = 0.0;
    CHECK_THAT(first(core::cert_disagreements(cert)),
               Catch::StartsWith("completion_floor.threshold is 0.000"));
    cert = scenario_cert("green");
    cert.gates.completion_floor.arms.pop_back();
    CHECK(says(core::cert_disagreements(cert), "completion_floor lists 3 arm(s)"));
}

TEST_CASE("co-batch coverage must follow each pass's own counts", "[cert][consistency]") {
    auto cert = scenario_cert("row 5 missing interval");  // missing interval in pass 2
    auto& pass = cert.gates.cobatch_coverage.per_pass[1];
    pass.attribution_certain = true;
    CHECK(first(core::cert_disagreements(cert)) ==
          "cobatch_coverage pass 2: attribution_certain is true but 1 of 10 ids lack an interval");
    cert = scenario_cert("row 5 one pass not co-batched");  // pass 2 serial
    cert.gates.cobatch_coverage.per_pass[1].ok = true;
    CHECK(first(core::cert_disagreements(cert)) ==
          "cobatch_coverage pass 2: ok is true but 0 of 10 ids were co-batched (need 8), "
          "attribution certain");
    cert = scenario_cert("row 5 one pass not co-batched");
    cert.gates.cobatch_coverage.per_pass[1].required = 0;
    CHECK_THAT(first(core::cert_disagreements(cert)),
               Catch::StartsWith("cobatch_coverage pass 2: required is 0 but"));
    cert = scenario_cert("row 5 one pass not co-batched");
    cert.gates.cobatch_coverage.ok = true;
    CHECK(first(core::cert_disagreements(cert)) ==
          "cobatch_coverage.ok is true but its passes give false");
}

TEST_CASE("arm B and the serial self-check must follow their comparisons", "[cert][consistency]") {
    auto cert = scenario_cert("row 6 B disagrees");  // B disagrees
    cert.gates.arm_b.ab_passed = true;
    CHECK(first(core::cert_disagreements(cert)) ==
          "arm_b.ab_passed is true but A vs B lists 1 divergent id(s)");
    cert = scenario_cert("busy arm B");  // busy arm B
    cert.gates.arm_b.serial = true;
    CHECK(first(core::cert_disagreements(cert)) ==
          "arm_b.serial is true but arm B's server peaks are 3 busy slot(s), 1 "
          "requests_processing");
    cert = scenario_cert("row 1 serial");  // serial self-check failed
    cert.gates.serial_self_check.passed = true;
    CHECK(first(core::cert_disagreements(cert)) ==
          "serial_self_check.passed is true but A vs A' lists 1 divergent id(s)");
    cert = scenario_cert("green");
    cert.gates.arm_b.ran = false;
    CHECK(first(core::cert_disagreements(cert)) ==
          "arm_b.ran is false but divergence_report.AB is present");
}

TEST_CASE("sensitivity must count A vs C", "[cert][consistency]") {
    auto cert = red_cert();
    core::SensitivityCounts counts;
    counts.n_hot_trials = 30;
    counts.trials = 30;
    counts.prompts = 10;
    cert.sensitivity = core::sensitivity_bounds(counts, 0.95);
    auto lines = core::cert_disagreements(cert);
    CHECK_THAT(first(lines),
               Catch::StartsWith("sensitivity counts 0 divergence(s) in 30 trials but A vs C "
                                 "gives 1 in at most"));
    // Counts that say one divergence, with the figures of none: the bounds do not fit.
    cert.sensitivity.divergences_seen = 1;
    cert.sensitivity.per_prompt.divergent = 1;
    lines = core::cert_disagreements(cert);
    CHECK(says(lines, "sensitivity's bounds do not fit 1 divergence(s) in 30 trials"));
}

TEST_CASE("a planned run's record must fit its passes and counted trials", "[cert][consistency]") {
    auto cert = scenario_cert("green");
    core::PassPlanRecord plan;
    plan.target_rate = 0.01;
    plan.trials_needed = 299;
    plan.max_passes = static_cast<int>(cert.n_passes());
    plan.passes_used = plan.max_passes;
    plan.trials_counted = cert.sensitivity.per_trial.n;
    plan.ended = core::PlanEnd::MaxPasses;
    cert.plan = plan;
    CHECK(core::cert_disagreements(cert).empty());
    cert.plan->reached = true;  // claims the target with too few trials
    CHECK(
        says(core::cert_disagreements(cert), "plan.reached is true but it ended by 'max_passes'"));
    cert.plan = plan;
    cert.plan->passes_used += 1;
    CHECK(says(core::cert_disagreements(cert), "plan.passes_used is"));
    cert.plan = plan;
    cert.plan->trials_counted += 1;
    CHECK(says(core::cert_disagreements(cert), "plan.trials_counted is"));
}

TEST_CASE("decision_reasons must end with the verdict's own line", "[cert][consistency]") {
    auto cert = scenario_cert("row 3 no client overlap");
    cert.verdict.decision_reasons.back() = "verdict green";
    CHECK(first(core::cert_disagreements(cert)) ==
          "decision_reasons end with 'verdict green', not 'verdict green_unverified'");
    cert.verdict.decision_reasons.clear();
    CHECK(first(core::cert_disagreements(cert)) ==
          "decision_reasons is empty; its last line must be 'verdict green_unverified'");
}

TEST_CASE("a mock cert relabelled live is refused", "[cert][consistency]") {
    auto cert = cert_of(clean_cell(), core::Source::Live);
    cert.server = core::ServerRecord{};
    cert.server->props = core::Json::Object{{"bi_mock", true}};
    CHECK(first(core::cert_disagreements(cert)) ==
          "source is live but server.props says bi_mock: the server was the mock");
    cert.server->props = core::Json::Object{{"bi_mock", false}};
    cert.server->props_n = core::Json::Object{{"bi_mock", true}};
    CHECK(first(core::cert_disagreements(cert)) ==
          "source is live but server.props_N says bi_mock: the server was the mock");
    cert.source = core::Source::Mock;
    CHECK(core::cert_disagreements(cert).empty());
}

TEST_CASE("check_promotable lists every disagreement as a reason", "[cert][consistency]") {
    auto cert = red_cert();
    cert.verdict.status = core::Status::Green;
    cert.verdict.divergence_class.reset();
    const auto p = core::check_promotable(cert, true);
    CHECK_FALSE(p.promotable);
    REQUIRE(p.reasons.size() == core::cert_disagreements(cert).size());
    CHECK_THAT(p.reasons.front(),
               Catch::StartsWith("the cert disagrees with itself: status is green but"));
}

namespace {

// The C passes streamed: each id's token times, ten ids of a pass in groups of four decoding at
// once. `how` places each id's tokens: "batched" (every decoding request makes its token in the
// same step), "serial" (one request after another, no overlapping windows) or "round-robin"
// (four overlapping windows whose tokens take turns).
core::CellEvidence streamed_cell(const std::string& how) {
    auto e = clean_cell();
    e.streamed = true;
    for (auto& pass : e.arm_c) {
        int i = 0;
        for (auto& [id, r] : pass) {
            std::vector<double> times;
            const double group = 1000.0 * (i / 4);
            for (int k = 0; k < 16; ++k) {
                if (how == "batched") times.push_back(group + 4.0 * k + 0.001 * (i % 4));
                if (how == "serial") times.push_back(100.0 * i + 4.0 * k);
                if (how == "round-robin") times.push_back(group + 4.0 * k + 1.0 * (i % 4));
            }
            r.token_ms = times;
            ++i;
        }
    }
    return e;
}

}  // namespace

TEST_CASE("a streamed cell's lockstep gate agrees with itself, honest or lying",
          "[cert][consistency]") {
    for (const std::string how : {"batched", "serial", "round-robin"}) {
        const auto cert = cert_of(streamed_cell(how));
        INFO(how);
        REQUIRE(cert.gates.lockstep.checked);
        CHECK(core::cert_disagreements(cert).empty());
        CHECK(core::cert_disagreements(round_tripped(cert)).empty());
        if (how == "batched") {
            CHECK(cert.verdict.status == core::Status::Green);
            CHECK(cert.gates.lockstep.ok);
        } else {
            // The server's samples say four computed together; the streams do not.
            CHECK(cert.verdict.status == core::Status::GreenUnverified);
            CHECK(cert.verdict.rule->name == "lockstep");
            CHECK(says(cert.verdict.decision_reasons, "the server reports 4 computing together"));
        }
    }
}

TEST_CASE("an edit to the lockstep gate's numbers is caught", "[cert][consistency]") {
    const auto liar = round_tripped(cert_of(streamed_cell("serial")));
    // The liar's passes made to look batched, derived fields and all, problems and verdict kept:
    // its ids still share no step, and its windows never overlap.
    auto cert = liar;
    for (auto& pass : cert.gates.lockstep.per_pass) {
        pass.streams.multi_steps = 100;
        pass.streams.lockstep_multi_steps = 100;
        pass.streams.peak = 4;
    }
    auto lines = core::cert_disagreements(cert);
    CHECK(says(lines, "lockstep pass 1: no two decode windows overlap, yet a phase"));
    CHECK(says(lines, "lockstep pass 1: its problems are not what its streams give"));
    // ... and with its problems and ok cleared too, the gate and the verdict disagree.
    for (auto& pass : cert.gates.lockstep.per_pass) pass.problems.clear();
    cert.gates.lockstep.problems.clear();
    cert.gates.lockstep.ok = true;
    lines = core::cert_disagreements(cert);
    CHECK(says(lines, "lockstep.ok is true but its streams give"));

    // An id said to share more steps than it has.
    cert = round_tripped(cert_of(streamed_cell("batched")));
    cert.gates.lockstep.per_pass[0].streams.ids[0].shared = 99;
    CHECK(says(core::cert_disagreements(cert), "has 99 shared of 15 steps"));
    // A phase where no two windows overlap.
    cert = liar;
    cert.gates.lockstep.per_pass[1].streams.phase = 0.01;
    CHECK(says(core::cert_disagreements(cert), "no two decode windows overlap, yet a phase"));
    // The coverage's stream counts.
    cert = round_tripped(cert_of(streamed_cell("batched")));
    cert.gates.cobatch_coverage.per_pass[0].n_stream_cobatched = 3;
    CHECK(says(core::cert_disagreements(cert), "judged ids co-batched, but its coverage counts 3"));
    // Which evidence decided.
    cert = round_tripped(cert_of(streamed_cell("batched")));
    cert.gates.lockstep.decided_by = core::BatchingEvidence::Streams;
    CHECK(says(core::cert_disagreements(cert), "lockstep.decided_by is \"streams\""));
}

namespace {

using core::BaselineStatus;

// A green cert carrying `check`, as run-live --cache-arm writes it.
core::Cert cert_with_cache(core::CacheCheck check) {
    core::CertContext c;
    c.cell = {"tiny", 512, 4, "f16", 1};
    c.source = core::Source::Live;
    c.ts_utc = "2026-01-01T00:00:00Z";
    c.cache_check = std::move(check);
    return core::build_cert(c, core::decide_verdict(clean_cell()));
}

core::TrialRecord& moved(core::TrialRecord& trial) {
    trial.extracted_answer = "moved";
    trial.score = 0.0;
    trial.passed = false;
    trial.content = "moved text";
    trial.content_sha = core::content_sha(trial.content);
    trial.token_ids = std::vector<std::int64_t>{1, 9, 9, 9};
    return trial;
}

// Every way core::check_cache ends, including those that keep changes beside another status.
std::vector<std::pair<std::string, core::CacheCheck>> honest_cache_checks() {
    using testing::arm;
    using testing::cache_check_of;
    using testing::cache_witness;
    using testing::warm_repeat;
    std::vector<std::pair<std::string, core::CacheCheck>> checks;
    for (auto status : {BaselineStatus::Same, BaselineStatus::Changed, BaselineStatus::DriftOnly,
                        BaselineStatus::NotComparable})
        checks.emplace_back(std::string(core::name(status)), cache_check_of(status));
    const auto a = arm(10);
    auto changed = warm_repeat(a);
    moved(changed.answers.at("id1"));
    checks.emplace_back("no witness", core::check_cache(core::CacheWitness{}, a, a, {changed}, ""));
    auto a_prime = a;
    moved(a_prime.at("id2"));
    checks.emplace_back("A does not repeat",
                        core::check_cache(cache_witness(), a, a_prime, {changed}, ""));
    checks.emplace_back("did not finish", core::check_cache(cache_witness(), a, a, {changed}, "",
                                                            0.0, "the server died"));
    auto few = changed;
    for (const char* id : {"id5", "id6", "id7"}) few.answers.at(id).prompt_cached = 0;
    checks.emplace_back("changed under the floor",
                        core::check_cache(cache_witness(), a, a, {few}, ""));
    few.answers.at("id1") = a.at("id1");
    few.answers.at("id1").prompt_cached = 27;
    checks.emplace_back("under the floor", core::check_cache(cache_witness(), a, a, {few}, ""));
    // A cut that drifted for an id the repeat changed, and one that could not be scored.
    core::CacheProbe cut = warm_repeat(a);
    cut.name = "cut 1";
    for (const auto& [id, trial] : a) cut.cut_at[id] = 1;
    cut.answers.at("id1").content = "text-id1, resumed otherwise";
    cut.answers.at("id1").content_sha = core::content_sha(cut.answers.at("id1").content);
    cut.unscored = {"id8"};
    checks.emplace_back("cuts", core::check_cache(cache_witness(), a, a, {changed, cut}, ""));
    checks.emplace_back("cuts, drift only",
                        core::check_cache(cache_witness(), a, a, {warm_repeat(a), cut}, ""));
    // More changes than a cert keeps.
    const auto many = arm(40);
    auto all_moved = warm_repeat(many);
    for (auto& [id, trial] : all_moved.answers)
        if (id != "id0") moved(trial);
    checks.emplace_back("changes left out",
                        core::check_cache(cache_witness(), many, many, {all_moved}, ""));
    return checks;
}

// The disagreements of a cert carrying `check` after `edit`.
std::vector<std::string> edited(core::CacheCheck check,
                                const std::function<void(core::CacheCheck&)>& edit) {
    edit(check);
    return core::cert_disagreements(cert_with_cache(std::move(check)));
}

}  // namespace

TEST_CASE("every cache check core::check_cache gives agrees with itself, read back too",
          "[cert][consistency][cache]") {
    for (const auto& [label, check] : honest_cache_checks()) {
        INFO(label << ": " << core::cache_check_line(check));
        const auto cert = cert_with_cache(check);
        CHECK(core::cert_disagreements(cert).empty());
        CHECK(core::cert_disagreements(round_tripped(cert)).empty());
    }
    const auto checks = honest_cache_checks();
    const auto& left_out = checks.back().second;
    CHECK(left_out.changes.size() == core::kMaxSummaryIds);  // the list the test means to cover
    CHECK(left_out.changed_ids.size() == 39);
}

TEST_CASE("a cache check's status must follow its lists", "[cert][consistency][cache]") {
    using testing::cache_check_of;
    auto lines = edited(cache_check_of(BaselineStatus::Changed),
                        [](auto& k) { k.status = BaselineStatus::Same; });
    CHECK(first(lines) == "cache_check is 'same' but lists 1 changed id(s)");
    lines = edited(cache_check_of(BaselineStatus::DriftOnly),
                   [](auto& k) { k.status = BaselineStatus::Same; });
    CHECK(first(lines) == "cache_check is 'same' but lists 1 drift id(s)");
    lines = edited(cache_check_of(BaselineStatus::DriftOnly),
                   [](auto& k) { k.status = BaselineStatus::Changed; });
    CHECK(first(lines) == "cache_check is 'changed' but lists no changed id");
    lines = edited(cache_check_of(BaselineStatus::Same),
                   [](auto& k) { k.status = BaselineStatus::DriftOnly; });
    CHECK(first(lines) == "cache_check is 'drift_only' but lists no drift id");
    // Nothing served is not comparable, whatever the lists say.
    lines = edited(cache_check_of(BaselineStatus::NotComparable),
                   [](auto& k) { k.status = BaselineStatus::Same; });
    CHECK(first(lines) ==
          "cache_check is 'same' but the cache served only 0 of 8 id(s), under the completion "
          "floor");
    // A CHANGED hidden by emptying its lists: its change still names the id.
    lines = edited(cache_check_of(BaselineStatus::Changed), [](auto& k) {
        k.status = BaselineStatus::Same;
        k.changed_ids.clear();
    });
    CHECK(first(lines) ==
          "cache_check's change of id3 (repeat) moved an invariant field but its "
          "id is not among changed_ids");
}

TEST_CASE("a cache check's counts and lists must agree with each other",
          "[cert][consistency][cache]") {
    using testing::cache_check_of;
    const auto same = cache_check_of(BaselineStatus::Same);
    const auto changed = cache_check_of(BaselineStatus::Changed);
    CHECK(first(edited(same, [](auto& k) { k.n_served = 9; })) ==
          "cache_check counts 9 served of 8 id(s) and 0 cut(s)");
    CHECK(first(edited(same, [](auto& k) { k.n_served = 7; })) ==
          "cache_check counts 7 served and 0 not exercised of 8 id(s)");
    CHECK(first(edited(same,
                       [](auto& k) {
                           k.n_served = 5;
                           k.not_exercised = {"id5", "id6", "id7"};
                       })) ==
          "cache_check is 'same' but the cache served only 5 of 8 id(s), under the "
          "completion floor");
    CHECK(first(edited(changed, [](auto& k) { k.drift_ids.push_back("id3"); })) ==
          "cache_check lists id3 both as changed and as drift");
    CHECK(first(edited(changed, [](auto& k) { k.changed_ids.push_back("id3"); })) ==
          "cache_check.changed_ids lists id3 twice");
    CHECK(first(edited(changed, [](auto& k) { k.changed_ids.push_back("id5"); })) ==
          "cache_check lists 2 changed and 0 drift id(s) but its changes give 1 and 0");
    CHECK(first(edited(changed, [](auto& k) { k.changes.front().cached = 0; })) ==
          "cache_check's change of id3 (repeat) counts 0 cached prompt tokens: the cache served "
          "nothing");
    CHECK(first(edited(same, [](auto& k) { k.witness.clear(); })) ==
          "cache_check names no cache witness, yet counts ids the cache served, changed or did "
          "not exercise");
    CHECK(first(edited(same, [](auto& k) { k.reasons.clear(); })) == "cache_check gives no reason");
    CHECK(first(edited(same, [](auto& k) { k.n_ids = 4; })) ==
          "cache_check counts 8 served of 4 id(s) and 0 cut(s)");
}

TEST_CASE("a cache check lists its invariant changes first", "[cert][consistency][cache]") {
    auto a = testing::arm(8);
    auto probe = testing::warm_repeat(a);
    moved(probe.answers.at("id2"));
    probe.answers.at("id5").content = "text-id5, longer";
    probe.answers.at("id5").content_sha = core::content_sha(probe.answers.at("id5").content);
    auto check = core::check_cache(testing::cache_witness(), a, a, {probe}, "");
    REQUIRE(check.changes.size() == 2);
    CHECK(core::cert_disagreements(cert_with_cache(check)).empty());
    const auto lines =
        edited(check, [](auto& k) { std::swap(k.changes.front(), k.changes.back()); });
    CHECK(says(lines,
               "cache_check's change of id2 (repeat) moved an invariant field but comes "
               "after a drift"));
}

TEST_CASE("a cache check beside a verdict never changes it, and is checked after it",
          "[cert][consistency][cache]") {
    auto cert = cert_with_cache(testing::cache_check_of(BaselineStatus::Changed));
    CHECK(cert.verdict.status == core::Status::Green);
    CHECK(core::check_promotable(cert, true).promotable);
    cert.verdict.status = core::Status::Failed;
    cert.cache_check->status = BaselineStatus::Same;
    const auto lines = core::cert_disagreements(cert);
    REQUIRE(lines.size() >= 2);
    CHECK_THAT(lines.front(), Catch::StartsWith("status is failed but the evidence gives green"));
    CHECK(lines.back() == "cache_check is 'same' but lists 1 changed id(s)");
}
