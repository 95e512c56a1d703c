// The cache arm's comparison (docs/design.md §5.2.6): warm answers the cache really served,
// against A, fail closed: same, changed, drift only, and every way of being not comparable.
#include <catch2/catch.hpp>

#include "cache_builders.hpp"
#include "core/cache_check.hpp"
#include "core/cert.hpp"
#include "io/cert_schema.hpp"
#include "trial_builders.hpp"

using namespace bi;
using core::BaselineStatus;
using testing::arm;
using testing::change_answer;

namespace {

core::CacheWitness cached_witness() {
    return testing::cache_witness();
}

core::CacheProbe repeat_of(const core::ArmResults& a, std::int64_t cached = 99) {
    return testing::warm_repeat(a, cached);
}

bool mentions(const core::CacheCheck& c, const std::string& text) {
    for (const auto& reason : c.reasons)
        if (reason.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("cache check: warm answers equal to A's are same", "[unit][cache]") {
    const auto a = arm(8);
    const auto c = core::check_cache(cached_witness(), a, a, {repeat_of(a)}, "");
    CHECK(c.status == BaselineStatus::Same);
    CHECK(c.n_ids == 8);
    CHECK(c.n_served == 8);
    CHECK(c.not_exercised.empty());
    CHECK(c.changed_ids.empty());
    CHECK(mentions(c, "every warm answer equals A's: 8 of 8 id(s) served from the prompt cache"));
    CHECK(core::cache_check_line(c).rfind("SAME: ", 0) == 0);
}

TEST_CASE("cache check: a served answer whose invariants moved is changed, naming it",
          "[unit][cache]") {
    const auto a = arm(8);
    auto probe = repeat_of(a, 27);
    change_answer(probe.answers.at("id3"));
    const auto c = core::check_cache(cached_witness(), a, a, {probe}, "");
    CHECK(c.status == BaselineStatus::Changed);
    CHECK(c.changed_ids == std::vector<std::string>{"id3"});
    REQUIRE(c.changes.size() == 1);
    CHECK(c.changes[0].probe == "repeat");
    CHECK(c.changes[0].cached == 27);
    CHECK(c.changes[0].invariant);
    CHECK(c.changes[0].first_token == 2);
    CHECK(mentions(c,
                   "1 of 8 id(s) answer otherwise when served from the prompt cache: id3 "
                   "(repeat: 27 cached prompt tokens, token 2 differs)"));
}

TEST_CASE("cache check: an answer the cache did not serve proves nothing", "[unit][cache]") {
    const auto a = arm(10);
    auto probe = repeat_of(a);
    // Computed cold (cache_n 0) and changed: not the cache's doing, not exercised.
    probe.answers.at("id1").prompt_cached = 0;
    change_answer(probe.answers.at("id1"));
    // No witness at all: not known to be served.
    probe.answers.at("id2").prompt_cached.reset();
    const auto c = core::check_cache(cached_witness(), a, a, {probe}, "");
    CHECK(c.status == BaselineStatus::Same);
    CHECK(c.n_served == 8);
    CHECK(c.not_exercised == std::vector<std::string>{"id1", "id2"});
    CHECK(mentions(c, "not exercised (computed cold): id1, id2"));
}

TEST_CASE("cache check: too few served ids, or none, is not comparable", "[unit][cache]") {
    const auto a = arm(10);
    auto probe = repeat_of(a);
    for (const char* id : {"id0", "id1", "id2"}) probe.answers.at(id).prompt_cached = 0;
    auto c = core::check_cache(cached_witness(), a, a, {probe}, "");
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "only 7 of 10 id(s) served from the prompt cache"));
    c = core::check_cache(cached_witness(), a, a, {repeat_of(a, 0)}, "");
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the cache served none of the repeated prompts"));
    // A change among the few served still counts: it is a finding however few were served.
    change_answer(probe.answers.at("id5"));
    c = core::check_cache(cached_witness(), a, a, {probe}, "");
    CHECK(c.status == BaselineStatus::Changed);
}

TEST_CASE("cache check: logprob drift alone is drift only, sized by its largest delta",
          "[unit][cache]") {
    const auto a = arm(8);
    auto probe = repeat_of(a);
    probe.answers.at("id5").token_logprobs = std::vector<double>{-0.5, -0.25, -1.0, -2.0625};
    auto c = core::check_cache(cached_witness(), a, a, {probe}, "");
    CHECK(c.status == BaselineStatus::DriftOnly);
    CHECK(c.drift_ids == std::vector<std::string>{"id5"});
    CHECK(mentions(c,
                   "; largest chosen-token logprob delta 0.0625 (--logit-drift-eps 0: every "
                   "delta counts)"));
    // Text drift alone has no logprob delta to size.
    probe = repeat_of(a);
    probe.answers.at("id4").content = "text-id4 but longer";
    probe.answers.at("id4").content_sha = core::content_sha(probe.answers.at("id4").content);
    c = core::check_cache(cached_witness(), a, a, {probe}, "");
    CHECK_FALSE(mentions(c, "logprob delta"));
}

TEST_CASE("cache check: text or token drift alone is drift only", "[unit][cache]") {
    const auto a = arm(8);
    auto probe = repeat_of(a);
    probe.answers.at("id4").content = "text-id4 but longer";
    probe.answers.at("id4").content_sha = core::content_sha(probe.answers.at("id4").content);
    const auto c = core::check_cache(cached_witness(), a, a, {probe}, "");
    CHECK(c.status == BaselineStatus::DriftOnly);
    CHECK(c.drift_ids == std::vector<std::string>{"id4"});
    CHECK(c.changed_ids.empty());
}

TEST_CASE(
    "cache check: a kind without a witness, or an A that does not repeat, is not "
    "comparable",
    "[unit][cache]") {
    const auto a = arm(8);
    auto probe = repeat_of(a);
    change_answer(probe.answers.at("id0"));
    auto c = core::check_cache(core::CacheWitness{}, a, a, {probe}, "");
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "states no cache witness"));
    auto a_prime = a;
    a_prime.at("id6").content = "jitter";
    a_prime.at("id6").content_sha = core::content_sha("jitter");
    c = core::check_cache(cached_witness(), a, a_prime, {probe}, "");
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "A does not reproduce itself serially (A' differs from A for id6)"));
}

TEST_CASE("cache check: an evaluated-tokens witness counts a shorter evaluation as served",
          "[unit][cache]") {
    core::CacheWitness witness;
    witness.evaluated_tokens = {"timings.prompt_n"};
    auto a = arm(4);
    for (auto& [id, trial] : a) trial.prompt_evaluated = 100;
    auto probe = repeat_of(a);
    for (auto& [id, trial] : probe.answers) {
        trial.prompt_cached.reset();
        trial.prompt_evaluated = 1;
    }
    probe.answers.at("id0").prompt_evaluated = 100;  // evaluated whole: cold
    // A cut's prompt is A's prompt and k tokens: 104 evaluated of 104 is cold, 1 of 104 served.
    core::CacheProbe cut;
    cut.name = "cut 1";
    cut.answers = a;
    for (auto& [id, trial] : cut.answers) {
        cut.cut_at[id] = 4;
        trial.prompt_evaluated = id == "id1" ? 104 : 1;
    }
    const auto c = core::check_cache(witness, a, a, {probe, cut}, "");
    CHECK(c.n_served == 3);
    CHECK(c.not_exercised == std::vector<std::string>{"id0"});
    CHECK(c.n_cuts == 3);
    CHECK(c.status == BaselineStatus::NotComparable);  // 3 of 4 is under the floor
}

TEST_CASE("cache check: a cut that left A's tokens but could not be scored is drift, named",
          "[unit][cache]") {
    const auto a = arm(8);
    core::CacheProbe cut = repeat_of(a);
    cut.name = "cut 2";
    for (const auto& [id, trial] : a) cut.cut_at[id] = 2;
    cut.unscored = {"id7"};
    const auto c = core::check_cache(cached_witness(), a, a, {repeat_of(a), cut}, "");
    CHECK(c.status == BaselineStatus::DriftOnly);
    CHECK(c.drift_ids == std::vector<std::string>{"id7"});
    CHECK(c.n_cuts == 7);
    CHECK(mentions(c, "id7 (cut 2 after 2 token(s): 99 cached prompt tokens)"));
}

TEST_CASE("cache check: an arm that did not finish is not comparable unless it found a change",
          "[unit][cache]") {
    const auto a = arm(8);
    auto c = core::check_cache(cached_witness(), a, a, {repeat_of(a)}, "", 0.0,
                               "the server died: exit 1");
    CHECK(c.status == BaselineStatus::NotComparable);
    CHECK(mentions(c, "the cache arm did not finish: the server died: exit 1"));
    auto probe = repeat_of(a);
    change_answer(probe.answers.at("id2"));
    c = core::check_cache(cached_witness(), a, a, {probe}, "", 0.0, "the server died: exit 1");
    CHECK(c.status == BaselineStatus::Changed);
    CHECK(mentions(c, "the cache arm did not finish"));
}

TEST_CASE("cache check: the cert keeps it, and reads it back", "[unit][cache]") {
    const auto a = arm(8);
    auto probe = repeat_of(a, 27);
    change_answer(probe.answers.at("id3"));
    core::Cert cert;
    cert.cache_check = core::check_cache(cached_witness(), a, a, {probe}, "no cuts: chat");
    cert.digest = std::string(64, '0');
    const auto json = io::cert_to_json(cert);
    const core::Json* stored = json.find("cache_check");
    REQUIRE(stored);
    CHECK(stored->string_or("status", "") == "changed");
    CHECK(stored->string_or("cuts_note", "") == "no cuts: chat");
    const auto parsed = io::cert_from_json(json);
    INFO(parsed.problem);
    REQUIRE(parsed.cert);
    REQUIRE(parsed.cert->cache_check);
    const auto& back = *parsed.cert->cache_check;
    CHECK(back.status == BaselineStatus::Changed);
    CHECK(back.changed_ids == cert.cache_check->changed_ids);
    REQUIRE(back.changes.size() == 1);
    CHECK(back.changes[0].first_token == 2);
    CHECK(back.changes[0].cached == 27);
}
