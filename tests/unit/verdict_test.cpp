#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/verdict.hpp"
#include "trial_builders.hpp"

using namespace bi;
using bi::testing::clean_cell;

namespace {
bool mentions(const core::Verdict& v, const std::string& text) {
    for (const auto& line : v.decision_reasons)
        if (line.find(text) != std::string::npos) return true;
    return false;
}
}  // namespace

// Rows in precedence order, RED first.

TEST_CASE("row 1: A differs from A' -> failed, serial_nondeterminism", "[verdict]") {
    auto e = clean_cell();
    (*e.arm_a_prime)["id3"].extracted_answer = "other";
    e.arm_c[0]["id3"].extracted_answer = "other";  // C diverges too: row 1 still wins
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Failed);
    CHECK(v.divergence_class == core::DivergenceClass::SerialNondeterminism);
    CHECK(mentions(v, "serial self-check failed"));
}

TEST_CASE("row 2: a score flip under co-batching -> failed, co_batching", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[2]["id5"].score = 0.0;
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Failed);
    CHECK(v.divergence_class == core::DivergenceClass::CoBatching);
    CHECK(v.ac.divergent_ids == std::vector<std::string>{"id5"});
    CHECK(v.ac.per_pass_divergent == std::vector<std::size_t>{0, 0, 1});
}

TEST_CASE("row 2: a timeout in one pass is a divergence, not a skip", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[0]["id0"].failure_mode = core::FailureMode::HttpTimeout;
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Failed);
}

TEST_CASE("row 2: an id missing from one pass -> failed", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[1].erase("id9");
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Failed);
    CHECK(v.ac.divergent_ids == std::vector<std::string>{"id9"});
}

TEST_CASE("row 2: divergence on only one of several passes -> failed", "[verdict]") {
    auto e = clean_cell(10, 5);
    e.arm_c[3]["id1"].extracted_answer = "changed";
    CHECK(core::decide_verdict(e).status == core::Status::Failed);
}

TEST_CASE("row 2: dirty B -> slot_allocation class", "[verdict]") {
    auto e = clean_cell();
    (*e.arm_b)["id2"].score = 0.0;
    for (auto& pass : e.arm_c) pass["id2"].score = 0.0;  // C agrees with B; both differ from A
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Failed);
    CHECK(v.divergence_class == core::DivergenceClass::SlotAllocation);
    e.arm_c[1]["id7"].score = 0.5;  // and C also moves away from B elsewhere
    CHECK(core::decide_verdict(e).divergence_class ==
          core::DivergenceClass::SlotAllocationAndCoBatching);
}

TEST_CASE("RED wins over missing overlap evidence", "[verdict]") {
    auto e = clean_cell();
    e.server_c_passes.clear();
    e.arm_c[0]["id0"].score = 0.0;
    CHECK(core::decide_verdict(e).status == core::Status::Failed);
}

TEST_CASE("row 3: no client overlap -> green_unverified", "[verdict]") {
    auto e = clean_cell();
    for (auto& pass : e.arm_c) pass = bi::testing::serial(pass);
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK_FALSE(v.gates.overlap.ok);
    CHECK(v.gates.overlap.client_max_depth == 1);
    CHECK(mentions(v, "no real overlap"));
}

TEST_CASE("row 3: no server overlap -> green_unverified", "[verdict]") {
    auto e = clean_cell();
    for (auto& s : e.server_c_passes) {
        s.peak_busy_slots = 1;
        s.peak_requests_processing = 1;
    }
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(v.gates.overlap.client_max_depth >= 2);
}

TEST_CASE("row 3: stale slot info is not evidence", "[verdict]") {
    // A poller that saw only stale id_task entries reports zero busy slots.
    auto e = clean_cell();
    for (auto& s : e.server_c_passes) {
        s = core::ServerOverlapEvidence{};
        s.n_samples = 40;
    }
    CHECK(core::decide_verdict(e).status == core::Status::GreenUnverified);
}

TEST_CASE("row 4: all-failure arms -> green_unverified (completion floor)", "[verdict]") {
    auto e = clean_cell();
    for (auto* results : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b})
        for (auto& [id, r] : *results) r.failure_mode = core::FailureMode::Empty;
    for (auto& pass : e.arm_c)
        for (auto& [id, r] : pass) r.failure_mode = core::FailureMode::Empty;
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK_FALSE(v.gates.completion_floor.ok);
    CHECK(mentions(v, "completion floor missed in A"));
    CHECK(v.sensitivity.n_hot_trials == 0);
    CHECK_FALSE(v.sensitivity.rule_of_three_upper.has_value());
}

TEST_CASE("row 4: floor is exactly 80 percent", "[verdict]") {
    auto e = clean_cell(10, 1);
    auto fail = [&](int k) {
        for (int i = 0; i < k; ++i) {
            const std::string id = "id" + std::to_string(i);
            for (auto* results : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b, &e.arm_c[0]})
                (*results)[id].failure_mode = core::FailureMode::PrematureEos;
        }
    };
    fail(2);
    CHECK(core::decide_verdict(e).gates.completion_floor.ok);
    fail(3);
    CHECK_FALSE(core::decide_verdict(e).gates.completion_floor.ok);
}

TEST_CASE("row 5: a missing interval -> coverage fails closed", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[1]["id6"].dispatch_ns.reset();
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK_FALSE(v.gates.cobatch_coverage.ok);
    CHECK(mentions(v, "attribution uncertain"));
}

TEST_CASE("row 5: coverage is judged per pass, never mixing passes", "[verdict]") {
    auto e = clean_cell(10, 2);
    // Pass 2 runs its ids one after another but at the same wall times as pass 1's batch:
    // mixing the passes' intervals would wrongly call them co-batched.
    std::int64_t t = 1000;
    for (auto& [id, r] : e.arm_c[1]) {
        r.dispatch_ns = t;
        r.complete_ns = t + 100;
        t += 100;
    }
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(v.gates.cobatch_coverage.per_pass[0].ok);
    CHECK_FALSE(v.gates.cobatch_coverage.per_pass[1].ok);
}

TEST_CASE("row 6: A and C agree but B differs -> AMBER AC_agree_B_disagrees", "[verdict]") {
    auto e = clean_cell();
    (*e.arm_b)["id4"].extracted_answer = "b moved";
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenWithCaveat);
    CHECK(v.anomaly == core::Anomaly::AcAgreeBDisagrees);
    CHECK_FALSE(v.divergence_class.has_value());
}

TEST_CASE("row 7: token-only drift -> AMBER token_only", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[0]["id1"].content = "text-id1 ";
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenWithCaveat);
    CHECK(v.anomaly == core::Anomaly::TokenOnly);
    CHECK(v.ac.token_only_ids == std::vector<std::string>{"id1"});
}

TEST_CASE("row 7: reasoning-only drift -> AMBER token_only, never green", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[1]["id2"].reasoning_content = "thought differently under batching";
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenWithCaveat);
    CHECK(v.anomaly == core::Anomaly::TokenOnly);
    CHECK(v.ac.token_only_ids == std::vector<std::string>{"id2"});
}

TEST_CASE("row 7: tool-call-only drift -> AMBER token_only, never green", "[verdict]") {
    const auto call = [](const char* arguments) {
        core::Json c = core::Json::object();
        c["function"].set("name", "lookup");
        c["function"].set("arguments", arguments);
        return core::Json(core::Json::Array{c});
    };
    auto e = clean_cell();
    for (auto* results : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b})
        (*results)["id5"].tool_calls = call(R"({"q":"a"})");
    for (auto& pass : e.arm_c) pass["id5"].tool_calls = call(R"({"q":"a"})");
    CHECK(core::decide_verdict(e).status == core::Status::Green);  // the same calls everywhere
    e.arm_c[2]["id5"].tool_calls = call(R"({"q":"b"})");
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenWithCaveat);
    CHECK(v.anomaly == core::Anomaly::TokenOnly);
    CHECK(v.ac.token_only_ids == std::vector<std::string>{"id5"});
}

TEST_CASE("row 7: a changed token count or stop reason alone -> AMBER token_only", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[0]["id6"].completion_tokens = 3;
    e.arm_c[0]["id6"].finish_reason = "stop";
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenWithCaveat);
    CHECK(v.anomaly == core::Anomaly::TokenOnly);
}

TEST_CASE("row 7: logprob-only drift -> AMBER logit_drift", "[verdict]") {
    auto e = clean_cell();
    (*e.arm_c[2]["id8"].token_logprobs)[0] = -0.5000001;
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenWithCaveat);
    CHECK(v.anomaly == core::Anomaly::LogitDrift);
}

TEST_CASE("row 7: tokens and logprobs both drift -> token_and_logit_drift", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[0]["id1"].token_ids = std::vector<std::int64_t>{1, 2, 3, 5};
    (*e.arm_c[1]["id2"].token_logprobs)[1] = -0.3;
    CHECK(core::decide_verdict(e).anomaly == core::Anomaly::TokenAndLogitDrift);
}

TEST_CASE("row 8: a clean cell -> green with bounds", "[verdict]") {
    auto e = clean_cell(10, 3);
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Green);
    CHECK(v.gates.overlap.ok);
    CHECK(v.gates.completion_floor.ok);
    CHECK(v.gates.cobatch_coverage.ok);
    CHECK(v.sensitivity.n_hot_trials == 30);
    // Three passes of one unchanging batch: each id met one composition, so 10 trials count.
    CHECK(v.sensitivity.per_trial.n == 10);
    CHECK(*v.sensitivity.rule_of_three_upper == Approx(0.3));
    CHECK(*v.sensitivity.clopper_pearson_upper_95 == Approx(1.0 - std::pow(0.05, 1.0 / 10)));
    CHECK(*v.sensitivity.per_trial.clopper_pearson_upper == Approx(1.0 - std::pow(0.05, 0.1)));
    CHECK_FALSE(v.sensitivity.per_trial.observed_rate.has_value());
    CHECK(v.sensitivity.per_pass.empty());
    CHECK(v.decision_reasons.back().find("verdict green") == 0);
}

TEST_CASE("no concurrent pass can never be green", "[verdict]") {
    auto e = clean_cell();
    e.arm_c.clear();
    CHECK(core::decide_verdict(e).status == core::Status::GreenUnverified);
}

TEST_CASE("arm B is the canary: a busy serial arm makes the evidence untrusted", "[verdict]") {
    auto e = clean_cell();
    e.server_b->peak_busy_slots = 3;
    auto v = core::decide_verdict(e);
    CHECK_FALSE(v.gates.arm_b.serial);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(mentions(v, "arm B (serial) showed 3 busy slots"));
    CHECK(mentions(v, "cannot be trusted"));
    e = clean_cell();
    e.server_b->peak_requests_processing = 2;  // /metrics alone says so: same verdict
    CHECK(core::decide_verdict(e).status == core::Status::GreenUnverified);
}

TEST_CASE("no upper bound once a divergence was seen: the rate and its interval", "[verdict]") {
    core::SensitivityCounts counts;
    counts.divergent_ids = 1;
    counts.trials = 100;
    counts.divergent_trials = 2;
    counts.prompts = 40;
    counts.per_pass = {{50, 2}, {50, 0}};
    const auto s = core::sensitivity_bounds(counts, 0.95);
    CHECK_FALSE(s.rule_of_three_upper.has_value());
    CHECK_FALSE(s.clopper_pearson_upper_95.has_value());
    CHECK_FALSE(s.per_trial.clopper_pearson_upper.has_value());
    CHECK_FALSE(s.per_trial.rule_of_three_upper.has_value());
    CHECK(*s.per_trial.observed_rate == Approx(0.02));
    const auto interval = core::clopper_pearson_interval(2, 100, 0.95);
    CHECK(*s.per_trial.interval_lower == Approx(interval.lower));
    CHECK(*s.per_trial.interval_upper == Approx(interval.upper));
    CHECK(*s.per_prompt.observed_rate == Approx(1.0 / 40));
    REQUIRE(s.per_pass.size() == 2);
    CHECK(*s.per_pass[0].bound.observed_rate == Approx(0.04));
    CHECK(*s.per_pass[1].bound.observed_rate == 0.0);  // a clean pass of a RED cell: [0, u]
    CHECK(*s.per_pass[1].bound.interval_lower == 0.0);
    CHECK_FALSE(s.per_pass[1].bound.clopper_pearson_upper.has_value());

    counts = {};
    counts.trials = 1;
    counts.prompts = 1;
    CHECK(*core::sensitivity_bounds(counts, 0.95).clopper_pearson_upper_95 == Approx(0.95));
    CHECK(*core::sensitivity_bounds(counts, 0.99).per_trial.clopper_pearson_upper == Approx(0.99));
}

TEST_CASE("a divergent trial counts although its composition repeats", "[verdict]") {
    auto e = clean_cell(10, 3);
    e.arm_c[2]["id4"].extracted_answer = "other";
    const auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Failed);
    CHECK(v.sensitivity.per_trial.n == 11);
    CHECK(v.sensitivity.per_trial.divergent == 1);
    CHECK(v.sensitivity.per_prompt.n == 10);
    CHECK(v.sensitivity.per_prompt.divergent == 1);
    CHECK(*v.sensitivity.per_trial.observed_rate == Approx(1.0 / 11));
    REQUIRE(v.sensitivity.per_pass.size() == 3);
    CHECK(v.sensitivity.per_pass[2].bound.n == 10);  // a pass's rate: all its proven trials
    CHECK(*v.sensitivity.per_pass[2].bound.observed_rate == Approx(0.1));
    CHECK_FALSE(v.sensitivity.rule_of_three_upper.has_value());
}

TEST_CASE("trials of a pass whose overlap is unproven do not count", "[verdict]") {
    auto e = clean_cell(10, 3);
    e.arm_c[1] = bi::testing::concurrent(bi::testing::arm(10), 5000, 6000);  // a new batch
    e.server_c_passes[1].peak_busy_slots = 2;                                // below N = 4
    const auto v = core::decide_verdict(e);
    CHECK(v.sensitivity.per_trial.n == 10);
    e.server_c_passes[1] = bi::testing::busy_server();
    e.server_c_passes[1].busy_samples = {{5200, 5300, 4, {}}};
    CHECK(core::decide_verdict(e).sensitivity.per_trial.n == 10);  // same neighbours: no new
}

TEST_CASE("the length scope: n_predict and the generated lengths reached", "[verdict]") {
    auto e = clean_cell(4, 1);
    e.n_predict = 16;
    int i = 0;
    for (auto* arm : {&e.arm_a, &e.arm_c[0]})
        for (auto& [id, r] : *arm) {
            r.completion_tokens = 4 + 4 * (i++ % 4);  // 4, 8, 12, 16
            r.finish_reason = *r.completion_tokens == 16 ? "length" : "stop";
        }
    const auto v = core::decide_verdict(e);
    CHECK(*v.length.n_predict == 16);
    CHECK(v.length.n_trials == 8);
    CHECK(*v.length.generated_min == 4);
    CHECK(*v.length.generated_median == 8);
    CHECK(*v.length.generated_max == 16);
    CHECK(v.length.n_hit_limit == 2);
}

TEST_CASE("the precedence table is the ordered rule list", "[verdict]") {
    std::vector<std::string> names;
    for (const auto& rule : core::verdict_rules()) names.emplace_back(core::name(rule.id));
    CHECK(names ==
          std::vector<std::string>{"cold_cache", "drafting", "determinism", "serial_given_up",
                                   "serial_self_check", "ac_invariant_divergence", "incomplete",
                                   "server_identity", "overlap", "lockstep", "missing_evidence",
                                   "greedy", "completion_floor", "cobatch_coverage",
                                   "ab_invariant_divergence", "generation_drift"});
    // Each rule fires on its own row's evidence and passes on a clean cell.
    const auto clean = core::decide_verdict(clean_cell());
    for (const auto& rule : core::verdict_rules()) CHECK_FALSE(rule.fires(clean));
    auto e = clean_cell();
    e.arm_c[0]["id1"].score = 0.0;
    CHECK(core::verdict_rules()[5].fires(core::decide_verdict(e)));
}

TEST_CASE("a serial arm given up on its completion floor: UNVERIFIED, each failure named",
          "[verdict]") {
    core::CellEvidence e;
    e.dispatch_n = 4;
    for (const char* id : {"id1", "id2", "id3"}) {
        core::TrialRecord r;
        r.test_id = id;
        r.arm = "A";
        r.content = "7";
        r.failure_mode = core::FailureMode::Ok;
        e.arm_a[id] = r;
    }
    e.arm_a["id2"].failure_mode = core::FailureMode::HttpError;
    e.arm_a["id2"].error = "POST /completion: HTTP 500: graph capture not finished";
    e.arm_a["id3"].failure_mode = core::FailureMode::Incomplete;
    e.arm_a["id3"].error = "gave up on the arm: not sent";
    core::ArmResults sent = e.arm_a;
    sent.erase("id3");
    e.given_up = core::GivenUpArm{"A", "1 of 3 request(s) failed (http_error x1)",
                                  core::completion_census(sent, "A")};
    const auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(v.rule.name == "serial_given_up");
    const auto& reasons = v.decision_reasons;
    REQUIRE(reasons.size() >= v.rule.first_reason + 3);
    CHECK(reasons[v.rule.first_reason] ==
          "completion floor out of reach: arm A given up: 1 of 3 request(s) failed (http_error "
          "x1); no other arm ran, so nothing batched was compared");
    CHECK(reasons[v.rule.first_reason + 1] ==
          "A: id2: http_error: POST /completion: HTTP 500: graph capture not finished");
    // Without the give-up the same arm is judged as any other: not by this rule.
    e.given_up.reset();
    CHECK(core::decide_verdict(e).rule.name != "serial_given_up");
}

TEST_CASE("the cold-cache gate: a cached or a short-evaluated prompt is a hit, in arm order",
          "[verdict][cache]") {
    core::ArmResults a, a2, c1;
    const auto answer = [](std::optional<std::int64_t> cached,
                           std::optional<std::int64_t> evaluated, std::int64_t prompt) {
        core::TrialRecord r;
        r.failure_mode = core::FailureMode::Ok;
        r.prompt_cached = cached;
        r.prompt_evaluated = evaluated;
        r.prompt_tokens_measured = prompt;
        return r;
    };
    a["x"] = answer(0, std::nullopt, 40);
    a["y"] = answer(std::nullopt, 30, 30);
    a["z"] = answer(std::nullopt, std::nullopt, 12);  // states no witness
    a2["x"] = answer(39, std::nullopt, 40);           // served from the cache
    a2["y"] = answer(std::nullopt, 30, 30);
    c1["y"] = answer(std::nullopt, 1, 1);  // evaluated 1 of the 30 tokens A evaluated
    core::CacheWitness witness;
    witness.cached_tokens = {"timings.cache_n"};
    witness.evaluated_tokens = {"timings.prompt_n"};
    const auto gate = core::cold_cache_gate(witness, {{"A", &a}, {"A'", &a2}, {"C1", &c1}});
    CHECK(gate.witness == "timings.cache_n, prompt tokens - timings.prompt_n");
    CHECK(gate.witnessed == 5);
    CHECK(gate.unwitnessed == 1);
    REQUIRE(gate.hits.size() == 2);
    CHECK(gate.hits[0].arm == "A'");
    CHECK(gate.hits[0].test_id == "x");
    CHECK(gate.hits[0].cached == 39);
    CHECK(gate.hits[1].arm == "C1");
    CHECK(gate.hits[1].cached == 29);
    CHECK_FALSE(gate.ok());

    // Through the verdict: the hit is row 0, before A vs A' or A vs C could blame the server.
    auto e = clean_cell();
    e.cache_witness = witness;
    CHECK(core::decide_verdict(e).status == core::Status::Green);
    e.arm_c[0].begin()->second.prompt_cached = 5;
    e.arm_c[0].begin()->second.score = 0.0;  // and its answer changed
    const auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(v.rule.name == "cold_cache");
    CHECK_FALSE(v.divergence_class.has_value());
}

TEST_CASE("the drafting gate: an answer that drafted otherwise than A's, in arm order",
          "[verdict][draft]") {
    core::ArmResults a, c1, c2;
    const auto answer = [](std::optional<std::int64_t> drafted) {
        core::TrialRecord r;
        r.failure_mode = core::FailureMode::Ok;
        r.drafted = drafted;
        return r;
    };
    a["x"] = answer(std::nullopt);  // stated nothing: drafted nothing
    a["y"] = answer(12);
    c1["x"] = answer(0);
    c1["y"] = answer(12);
    c2["x"] = answer(7);  // drafted where A did not
    c2["y"] = answer(9);  // drafted other tokens
    c2["z"] = answer(3);  // A has no such item: nothing to compare
    const auto gate =
        core::drafting_gate({"timings.draft_n"}, "", {{"A", &a}, {"C1", &c1}, {"C2", &c2}});
    CHECK(gate.fields == "timings.draft_n");
    REQUIRE(gate.arms.size() == 3);
    CHECK(gate.arms[0].answers == 2);
    CHECK(gate.arms[0].drafting == 1);
    CHECK(gate.arms[0].drafted_tokens == 12);
    CHECK(gate.arms[2].drafted_tokens == 19);
    REQUIRE(gate.mismatches.size() == 2);
    CHECK(gate.mismatches[0].test_id == "x");
    CHECK(gate.mismatches[0].arm == "C2");
    CHECK(gate.mismatches[0].drafted == 7);
    CHECK(gate.mismatches[0].drafted_a == 0);
    CHECK(gate.mismatches[1].drafted_a == 12);
    CHECK(gate.drafted());
    CHECK_FALSE(gate.ok());

    // A draft model in the launch, as one token with its value or two.
    core::KindFlags names;
    names.draft_model = {"-md", "--model-draft"};
    CHECK(core::draft_launch_flag(names, {"-t", "4", "-md", "d.gguf"}) == "-md d.gguf");
    CHECK(core::draft_launch_flag(names, {"--model-draft=d.gguf"}) == "--model-draft=d.gguf");
    CHECK(core::draft_launch_flag(names, {"--model", "m.gguf"}).empty());
    CHECK(core::draft_launch_flag(core::KindFlags{}, {"-md", "d.gguf"}).empty());
    CHECK(core::drafting_gate({}, "-md d.gguf", {{"A", &a}}).drafted());

    // Through the verdict: drafting alike is green and says so; otherwise the cell is
    // unverified before A vs C could blame batching.
    auto e = clean_cell();
    e.draft_fields = std::vector<std::string>{"timings.draft_n"};
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Green);
    REQUIRE(v.gates.drafting);
    CHECK_FALSE(v.gates.drafting->drafted());
    e.arm_a.begin()->second.drafted = 4;
    for (auto& pass : e.arm_c) pass.begin()->second.drafted = 4;
    if (e.arm_a_prime) e.arm_a_prime->begin()->second.drafted = 4;
    if (e.arm_b) e.arm_b->begin()->second.drafted = 4;
    v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Green);
    CHECK(std::any_of(v.decision_reasons.begin(), v.decision_reasons.end(),
                      [](const std::string& line) {
                          return line.rfind("drafting: the server decodes speculatively", 0) == 0;
                      }));
    e.arm_c[0].begin()->second.drafted = 5;
    e.arm_c[0].begin()->second.score = 0.0;  // and its answer changed
    v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(v.rule.name == "drafting");
    CHECK_FALSE(v.divergence_class.has_value());
}

TEST_CASE("the verdict records the rule that fired and where its lines start", "[verdict]") {
    const auto green = core::decide_verdict(clean_cell());
    CHECK(green.rule.name == core::kNoRuleFired);
    REQUIRE(green.rule.first_reason + 1 == green.decision_reasons.size());
    CHECK(green.decision_reasons.back() == core::kGreenReason);

    auto e = clean_cell();
    for (auto* results : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b})
        for (auto& [id, r] : *results) r.failure_mode = core::FailureMode::Empty;
    for (auto& pass : e.arm_c)
        for (auto& [id, r] : pass) r.failure_mode = core::FailureMode::Empty;
    const auto floor = core::decide_verdict(e);
    CHECK(floor.rule.name == "completion_floor");
    REQUIRE(floor.rule.first_reason < floor.decision_reasons.size());
    CHECK_THAT(floor.decision_reasons[floor.rule.first_reason],
               Catch::StartsWith("completion floor missed in A"));

    auto red = clean_cell();
    red.arm_c[1]["id2"].score = 0.0;
    const auto v = core::decide_verdict(red);
    CHECK(v.rule.name == "ac_invariant_divergence");
    CHECK_THAT(v.decision_reasons[v.rule.first_reason], Catch::StartsWith("A vs C: 1 id(s)"));
}

TEST_CASE("per-pass server evidence merges into one record", "[verdict]") {
    const auto pass = [](std::int64_t busy, std::int64_t processing, std::optional<double> mean,
                         std::size_t samples) {
        core::ServerOverlapEvidence s;
        s.peak_busy_slots = busy;
        s.peak_requests_processing = processing;
        s.mean_busy_slots_per_decode = mean;
        s.n_samples = samples;
        return s;
    };
    const auto p1 = pass(3, 2, 2.5, 10);
    auto p2 = pass(4, 1, std::nullopt, 5);
    const auto p3 = pass(2, 4, 3.5, 7);
    const auto merged = core::merge_pass_evidence({p1, p2, p3});
    CHECK(merged.peak_busy_slots == 4);
    CHECK(merged.peak_requests_processing == 4);
    CHECK(merged.n_samples == 22);
    REQUIRE(merged.mean_busy_slots_per_decode);
    CHECK(*merged.mean_busy_slots_per_decode == 3.0);
    CHECK_FALSE(core::merge_pass_evidence({}).mean_busy_slots_per_decode);
    CHECK(merged.slots_available);
    p2.metrics_available = false;  // one pass without /metrics: the merged record says so
    CHECK_FALSE(core::merge_pass_evidence({p1, p2, p3}).metrics_available);
    CHECK_FALSE(core::merge_pass_evidence({}).slots_available);
}

TEST_CASE("row 3: an incomplete arm is green_unverified, never RED", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[1]["id4"].failure_mode = core::FailureMode::Incomplete;  // cut off by the arm deadline
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(v.gates.incomplete_ids == std::vector<std::string>{"id4"});
    CHECK(mentions(v, "incomplete run: 1 item(s)"));
    e.arm_c[0]["id1"].score = 0.0;  // a real divergence elsewhere is still RED
    CHECK(core::decide_verdict(e).status == core::Status::Failed);
}

TEST_CASE("row 4: overlap must reach N in every pass, from agreeing sources", "[verdict]") {
    SECTION("total_slots must equal N") {
        auto e = clean_cell();
        e.reported_total_slots = 6;
        auto v = core::decide_verdict(e);
        CHECK(v.status == core::Status::GreenUnverified);
        CHECK(mentions(v, "reports total_slots 6, asked for N = 4"));
    }
    SECTION("one pass short of N is enough to refuse") {
        auto e = clean_cell();
        e.server_c_passes[1].peak_busy_slots = 3;
        auto v = core::decide_verdict(e);
        CHECK(v.status == core::Status::GreenUnverified);
        CHECK(mentions(v, "pass 2: server peak busy slots 3 (need 4)"));
        CHECK(v.gates.overlap.per_pass[0].ok());
        CHECK_FALSE(v.gates.overlap.per_pass[1].ok());
    }
    SECTION("/metrics must agree with /slots") {
        auto e = clean_cell();
        e.server_c_passes[0].peak_requests_processing = 1;
        CHECK(mentions(core::decide_verdict(e), "contradicting /slots"));
    }
    SECTION("the decode counters must agree with /slots") {
        auto e = clean_cell();
        for (auto& s : e.server_c_passes) s.mean_busy_slots_per_decode = 1.0;
        auto v = core::decide_verdict(e);
        CHECK(v.status == core::Status::GreenUnverified);
        CHECK(mentions(v, "1.00 busy slots per decode"));
    }
    SECTION("a missing endpoint is not evidence") {
        auto e = clean_cell();
        e.server_c_passes[0].slots_available = false;
        CHECK(mentions(core::decide_verdict(e), "/slots gave no evidence"));
        e = clean_cell();
        e.server_c_passes[0].metrics_available = false;
        CHECK(mentions(core::decide_verdict(e), "/metrics gave no requests_processing"));
    }
    SECTION("client depth must reach N") {
        auto e = clean_cell(3, 2);  // three items cannot put four requests in flight
        CHECK(mentions(core::decide_verdict(e), "client depth 3 (need 4)"));
    }
}

TEST_CASE("row 5: requested or reference evidence missing in a compared trial", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[2]["id3"].token_logprobs.reset();
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(mentions(v, "missing evidence: no token_logprobs in C3 for 1 id(s): id3"));
    e = clean_cell();
    for (auto* arm : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b}) {
        for (auto& [id, r] : *arm) r.token_logprobs.reset();
    }
    for (auto& pass : e.arm_c)
        for (auto& [id, r] : pass) r.token_logprobs.reset();
    e.logprobs_requested = true;  // asked for, returned nowhere
    CHECK(mentions(core::decide_verdict(e), "no token_logprobs in A"));
}

TEST_CASE("coverage needs the server's own sample inside the interval", "[verdict]") {
    auto e = clean_cell();
    for (auto& s : e.server_c_passes)
        s.busy_samples = {{2500, 2600, 4, {}}};  // after every request
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(mentions(v, "only 0 of 10 ids co-batched"));
    CHECK(v.sensitivity.n_hot_trials == 0);
    CHECK(core::decide_verdict(clean_cell()).sensitivity.n_hot_trials == 30);
}

TEST_CASE("a RED names requests that failed under concurrency", "[verdict]") {
    auto e = clean_cell();
    e.arm_c[0]["id1"].failure_mode = core::FailureMode::HttpTimeout;
    e.arm_c[1]["id2"].failure_mode = core::FailureMode::HttpError;
    e.arm_c[1]["id3"].score = 0.0;
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Failed);
    CHECK(mentions(v,
                   "2 id(s) failed under concurrency (http_error x1, http_timeout x1) after "
                   "succeeding serially; 1 id(s) changed their answer"));
}

TEST_CASE("a RED the slot alone explains is slot_allocation", "[verdict]") {
    auto e = clean_cell();
    std::int64_t slot = 0;
    for (auto& [id, r] : *e.arm_b) r.id_slot = slot++ % 4;
    (*e.arm_b)["id1"].extracted_answer = "slot-1";  // slot 1 answers differently
    for (auto& pass : e.arm_c)
        for (auto& [id, r] : pass) r.id_slot = (*e.arm_b)[id].id_slot;
    for (auto& pass : e.arm_c) pass["id1"].extracted_answer = "slot-1";
    CHECK(core::decide_verdict(e).divergence_class == core::DivergenceClass::SlotAllocation);
    e.arm_c[0]["id5"].extracted_answer = "batched";  // on its B slot, still not B's answer
    CHECK(core::decide_verdict(e).divergence_class ==
          core::DivergenceClass::SlotAllocationAndCoBatching);
}

TEST_CASE("a pass meant to be staggered that showed no prefill inside a decode is not counted",
          "[verdict][arrivals]") {
    // Groups of four in lockstep, 10 tokens each; `lag`: request r of a group joins r steps late.
    const auto streamed_cell = [](int lag) {
        auto e = clean_cell(8, 2);
        e.streamed = true;
        e.c_schedules = {core::Arrivals::Staggered, core::Arrivals::Staggered};
        for (auto& pass : e.arm_c) {
            int i = 0;
            for (auto& [id, r] : pass) {
                const int group = i / 4, r_in_group = i % 4;
                std::vector<double> ms;
                for (int k = 0; k < 10; ++k)
                    ms.push_back(1000.0 * group + 10.0 * (lag * r_in_group + k));
                r.token_ms = ms;
                ++i;
            }
        }
        return e;
    };
    const auto together = core::decide_verdict(streamed_cell(0));
    REQUIRE(together.gates.lockstep.per_pass.size() == 2);
    CHECK_FALSE(together.gates.lockstep.per_pass[0].arrivals_achieved());
    CHECK(together.sensitivity.per_trial.n == 0);
    CHECK(std::any_of(together.decision_reasons.begin(), together.decision_reasons.end(),
                      [](const std::string& line) {
                          return line.find("meant to be staggered") != std::string::npos;
                      }));
    const auto staggered = core::decide_verdict(streamed_cell(1));
    CHECK(staggered.gates.lockstep.per_pass[0].arrivals_achieved());
    CHECK(staggered.gates.lockstep.per_pass[0].streams.prefills_in_decode() == 6);
    CHECK(staggered.sensitivity.per_trial.n > 0);
}

TEST_CASE("the determinism gate: a mode asked on must be in effect where the server says",
          "[verdict][determinism]") {
    const auto reasons_say = [](const core::Verdict& v, const std::string& text) {
        for (const auto& line : v.decision_reasons)
            if (line.find(text) != std::string::npos) return true;
        return false;
    };
    auto e = clean_cell();
    core::DeterminismGate mode;
    mode.on = true;
    mode.how = "--det";
    mode.status = "GET /info det";
    mode.reports = {{"1-slot", true, "det = true"}, {"N-slot", false, "det = false"}};
    e.determinism = mode;
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(v.rule.name == "determinism");
    CHECK(reasons_say(v,
                      "asked on (--det), but the 1-slot server reports det = true; the N-slot "
                      "server reports det = false"));
    // A server that answered without the field says nothing: no evidence of the mode either.
    mode.reports = {{"1-slot", std::nullopt, "nothing: GET /info has no det"}};
    e.determinism = mode;
    CHECK(core::decide_verdict(e).status == core::Status::GreenUnverified);
    // Both said on: confirmed. No status to ask: claimed. Off: said so.
    mode.reports = {{"1-slot", true, "det = true"}, {"N-slot", true, "det = true"}};
    e.determinism = mode;
    v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Green);
    CHECK(reasons_say(v, "determinism mode on (--det), confirmed"));
    mode.status.clear();
    mode.reports.clear();
    e.determinism = mode;
    v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Green);
    CHECK(reasons_say(v, "claimed, not confirmed"));
    mode.on = false;
    e.determinism = mode;
    CHECK(reasons_say(core::decide_verdict(e), "determinism mode off (--det not set)"));
}
