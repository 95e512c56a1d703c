// A stored serial baseline against the serial answers of now: same, changed, drift only, and
// every way of being not comparable (issue 26).
#include <catch2/catch.hpp>

#include "core/baseline.hpp"
#include "trial_builders.hpp"

using namespace bi;
using core::BaselineStatus;
using testing::arm;

namespace {

core::BaselineSide side(const core::ArmResults& answers) {
    core::BaselineSide s;
    s.arm_a = answers;
    s.arm_a_prime = answers;
    s.model_sha256 = "aa11";
    s.rows_sha256 = "bb22";
    s.scorer = "exact";
    s.n_predict = 32;
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
         [](core::BaselineSide& s) { s.model_sha256 = "ff"; }},
        {"the work rows (sha256) differs", [](core::BaselineSide& s) { s.rows_sha256 = "x"; }},
        {"the scorer differs: baseline exact, now spark",
         [](core::BaselineSide& s) { s.scorer = "spark"; }},
        {"n_predict differs: baseline 32, now 64", [](core::BaselineSide& s) { s.n_predict = 64; }},
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
    flaky.arm_a_prime->at("id2").extracted_answer = "moved";
    auto c = core::compare_with_baseline(flaky, side(arm(8)));
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the baseline run does not reproduce itself serially"));
    CHECK(mentions(c, "id2"));

    // Its own tokens moving between A and A' is enough: its jitter would read as drift.
    auto jitter = side(arm(8));
    jitter.arm_a_prime->at("id5").token_logprobs = std::vector<double>{-0.5, -0.3, -1.0, -2.0};
    c = core::compare_with_baseline(side(arm(8)), jitter);
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c,
                   "the current run does not reproduce itself serially: A' differs from A "
                   "for id5"));

    auto no_repeat = side(arm(8));
    no_repeat.arm_a_prime.reset();
    c = core::compare_with_baseline(side(arm(8)), no_repeat);
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the current run has no serial repeat"));
}

TEST_CASE("baseline: nothing answered on both sides is not comparable, never same",
          "[unit][baseline]") {
    const auto c = core::compare_with_baseline(side(arm(4, "old")), side(arm(4, "new")));
    // Ids present on one side only are divergent in compare_arms; with none in common there is
    // nothing to compare at all.
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "nothing to compare"));
}
