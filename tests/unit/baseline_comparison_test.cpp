// A stored serial baseline against the serial answers of now: same, changed, drift only, and
// every way of being not comparable (issue 26).
#include <catch2/catch.hpp>

#include "core/baseline_comparison.hpp"
#include "trial_builders.hpp"

using namespace bi;
using core::BaselineStatus;
using testing::arm;

namespace {

core::BaselineSide side(const core::ArmResults& answers) {
    core::BaselineSide s;
    s.arm_a = answers;
    s.repeat = core::serial_repeat(answers, answers);
    s.terms.source = core::Source::Live;
    s.terms.model_sha256 = "aa11";
    s.terms.rows_sha256 = "bb22";
    s.terms.model_name = "m";
    s.terms.ctx = 512;
    s.terms.endpoint = "chat";
    s.terms.scorer = "exact";
    s.terms.n_predict = 32;
    return s;
}

bool mentions(const core::BaselineComparison& c, const std::string& text) {
    for (const auto& reason : c.reasons)
        if (reason.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("baseline: the same answers are same", "[unit][baseline]") {
    const auto c = core::compare_with_baseline(side(arm(8)), side(arm(8)));
    CHECK(c.status == BaselineStatus::Same);
    CHECK(name(c.status) == "same");
    REQUIRE(c.report);
    CHECK(c.report->n_compared == 8);
    CHECK(mentions(c, "all 8 ids answer exactly as the baseline did"));
}

TEST_CASE("baseline: a moved score is changed, naming the ids", "[unit][baseline]") {
    auto now = arm(8);
    now.at("id3").extracted_answer = "something else";
    now.at("id3").passed = false;
    now.at("id3").score = 0.0;
    now.at("id3").content = "other text";
    now.at("id3").content_sha = core::content_sha("other text");
    now.at("id3").token_ids = std::vector<std::int64_t>{1, 2, 9, 9};
    const auto c = core::compare_with_baseline(side(arm(8)), side(now));
    CHECK(c.status == BaselineStatus::Changed);
    REQUIRE(c.report);
    CHECK(c.report->divergent_ids == std::vector<std::string>{"id3"});
    CHECK(c.report->first_divergent_token.at("id3") == 2);
    CHECK(mentions(c, "1 of 8 ids answer differently from the baseline: id3"));
}

TEST_CASE("baseline: text or logprobs moving under equal scores is drift only",
          "[unit][baseline]") {
    auto tokens = arm(8);
    tokens.at("id1").token_ids = std::vector<std::int64_t>{1, 2, 3, 5};
    auto c = core::compare_with_baseline(side(arm(8)), side(tokens));
    CHECK(c.status == BaselineStatus::DriftOnly);
    CHECK(name(c.status) == "drift_only");
    CHECK(mentions(c, "tokens moved for id1"));

    auto logprobs = arm(8);
    logprobs.at("id6").token_logprobs = std::vector<double>{-0.5, -0.25, -1.0, -2.5};
    c = core::compare_with_baseline(side(arm(8)), side(logprobs));
    CHECK(c.status == BaselineStatus::DriftOnly);
    CHECK(mentions(c, "logprobs moved for id6"));
    // Below the drift threshold it is no drift at all.
    c = core::compare_with_baseline(side(arm(8)), side(logprobs), 1.0);
    CHECK(c.status == BaselineStatus::Same);
}

TEST_CASE("baseline: another model, work-set, scorer or n_predict is not comparable",
          "[unit][baseline]") {
    const auto stored = side(arm(8));
    struct Case {
        const char* what;
        void (*edit)(core::BaselineSide&);
    };
    const Case cases[] = {
        {"the model file (sha256) differs: baseline aa11, now ff",
         [](core::BaselineSide& s) { s.terms.model_sha256 = "ff"; }},
        {"the work rows (sha256) differs",
         [](core::BaselineSide& s) { s.terms.rows_sha256 = "x"; }},
        {"the scorer differs: baseline exact, now spark",
         [](core::BaselineSide& s) { s.terms.scorer = "spark"; }},
        {"the scorer config differs",
         [](core::BaselineSide& s) { s.terms.scorer_config = "{\"strict\":true}"; }},
        {"n_predict differs: baseline 32, now 64",
         [](core::BaselineSide& s) { s.terms.n_predict = 64; }},
        {"ctx differs: baseline 512, now 1024", [](core::BaselineSide& s) { s.terms.ctx = 1024; }},
        {"reps differs", [](core::BaselineSide& s) { s.terms.reps = 2; }},
        {"the endpoint differs: baseline chat, now completion",
         [](core::BaselineSide& s) { s.terms.endpoint = "completion"; }},
        {"logprobs differs", [](core::BaselineSide& s) { s.terms.logprobs = 5; }},
        {"the model name (it names the test ids) differs",
         [](core::BaselineSide& s) { s.terms.model_name = "other"; }},
        {"the source differs: baseline live, now mock",
         [](core::BaselineSide& s) { s.terms.source = core::Source::Mock; }},
    };
    for (const auto& test : cases) {
        CAPTURE(test.what);
        auto now = side(arm(8));
        test.edit(now);
        const auto c = core::compare_with_baseline(stored, now);
        CHECK(c.status == BaselineStatus::NotComparable);
        CHECK(name(c.status) == "not_comparable");
        CHECK_FALSE(c.report);
        CHECK(mentions(c, test.what));
    }
}

TEST_CASE("baseline: a side that does not reproduce itself is not comparable", "[unit][baseline]") {
    auto flaky = side(arm(8));
    auto moved = arm(8);
    moved.at("id2").extracted_answer = "moved";
    flaky.repeat = core::serial_repeat(flaky.arm_a, moved);
    auto c = core::compare_with_baseline(flaky, side(arm(8)));
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the baseline run does not reproduce itself serially"));
    CHECK(mentions(c, "id2"));

    // Its own tokens moving between A and A' is enough: its jitter would read as drift.
    auto jitter = side(arm(8));
    auto drifted = arm(8);
    drifted.at("id5").token_logprobs = std::vector<double>{-0.5, -0.3, -1.0, -2.0};
    jitter.repeat = core::serial_repeat(jitter.arm_a, drifted);
    CHECK(jitter.repeat->logprob_drift_ids == std::vector<std::string>{"id5"});
    c = core::compare_with_baseline(side(arm(8)), jitter);
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c,
                   "the current run does not reproduce itself serially: A' differs from A "
                   "for id5"));

    auto no_repeat = side(arm(8));
    no_repeat.repeat.reset();
    c = core::compare_with_baseline(side(arm(8)), no_repeat);
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the current run has no serial repeat"));

    auto answered_nothing = side(arm(8));
    answered_nothing.repeat = core::serial_repeat(answered_nothing.arm_a, {});
    c = core::compare_with_baseline(side(arm(8)), answered_nothing);
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the current run's serial repeat (A') answered no id of A"));
}

TEST_CASE("baseline: answers that failed alike on both sides are not comparable",
          "[unit][baseline]") {
    // Two sides whose requests all timed out agree on every invariant field; that is no
    // agreement about the answers.
    auto failed = arm(8);
    for (auto& [id, trial] : failed) {
        trial.failure_mode = core::FailureMode::HttpTimeout;
        trial.score.reset();
        trial.passed.reset();
        trial.extracted_answer = core::Json();
    }
    auto c = core::compare_with_baseline(side(failed), side(failed));
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the baseline run has 0 of 8 answers scored ok"));
    CHECK(mentions(c, "the current run has 0 of 8 answers scored ok"));

    // 7 of 8 ok (87.5%) clears the 80% floor; 6 of 8 (75%) does not.
    auto one_failed = arm(8);
    one_failed.at("id0").failure_mode = core::FailureMode::HttpTimeout;
    c = core::compare_with_baseline(side(one_failed), side(one_failed));
    CHECK(c.status == BaselineStatus::Same);
    auto two_failed = one_failed;
    two_failed.at("id1").failure_mode = core::FailureMode::HttpTimeout;
    c = core::compare_with_baseline(side(two_failed), side(two_failed));
    CHECK(c.status == BaselineStatus::NotComparable);
}

TEST_CASE("baseline: a side that is not greedy, has a judged problem or no hashes is no reference",
          "[unit][baseline]") {
    auto not_greedy = arm(4);
    not_greedy.at("id2").top_alternatives = std::vector<std::vector<core::TokenAlternative>>{
        {{9, "x", -0.1}, {1, "a", -0.5}},  // the top-1 was token 9, the chosen one token 1
        {{2, "b", -0.25}},
        {{3, "c", -1.0}},
        {{4, "d", -2.0}}};
    auto c = core::compare_with_baseline(side(arm(4)), side(not_greedy));
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the current run is not greedy decoding: id2"));

    auto named_another = side(arm(4));
    named_another.problems.push_back("the server names model other.gguf");
    c = core::compare_with_baseline(named_another, side(arm(4)));
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the baseline: the server names model other.gguf"));

    // Unknown hashes are never equal, even to each other.
    auto unhashed = side(arm(4));
    unhashed.terms.model_sha256.clear();
    unhashed.terms.rows_sha256.clear();
    c = core::compare_with_baseline(unhashed, unhashed);
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "model file has no sha256"));
    CHECK(mentions(c, "work rows have no sha256"));
}

TEST_CASE("baseline: status names read back", "[unit][baseline]") {
    for (const auto status : {BaselineStatus::Same, BaselineStatus::Changed,
                              BaselineStatus::DriftOnly, BaselineStatus::NotComparable})
        CHECK(core::parse_baseline_status(name(status)) == status);
    CHECK_FALSE(core::parse_baseline_status("green"));
}

TEST_CASE("baseline: nothing answered on both sides is not comparable, never same",
          "[unit][baseline]") {
    const auto c = core::compare_with_baseline(side(arm(4, "old")), side(arm(4, "new")));
    // Ids present on one side only are divergent in compare_arms; with none in common there is
    // nothing to compare at all.
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "nothing to compare"));
}
