#include <catch2/catch.hpp>

#include <functional>
#include <utility>
#include <vector>

#include "core/compare.hpp"
#include "trial_builders.hpp"

using namespace bi;
using bi::testing::arm;

TEST_CASE("identical arms compare clean", "[compare]") {
    auto a = arm(5);
    auto report = core::compare_arms(a, a, "A", "C1");
    CHECK(report.clean());
    CHECK(report.n_compared == 5);
    CHECK(report.n_scored_both == 5);
    CHECK(report.rows.empty());
    CHECK(report.token_only_ids.empty());
    CHECK(report.by_family.at("A2").n_compared == 5);
}

TEST_CASE("a score flip is an invariant divergence with a row", "[compare]") {
    auto a = arm(3);
    auto c = a;
    c["id1"].score = 0.0;
    c["id1"].passed = false;
    auto report = core::compare_arms(a, c, "A", "C1");
    REQUIRE(report.divergent_ids == std::vector<std::string>{"id1"});
    REQUIRE(report.rows.size() == 2);
    CHECK(report.rows[0].field == "score");
    CHECK(report.rows[0].left == core::Json(1.0));
    CHECK(report.rows[0].right == core::Json(0.0));
    CHECK(report.rows[0].token_identical);  // the text did not change, only the score
    CHECK(report.rows[1].field == "passed");
    CHECK(report.by_family.at("A2").n_divergent == 1);
    CHECK(report.by_fill.at("0.35").n_divergent == 1);
}

TEST_CASE("a failure_mode flip (a timeout in one arm) diverges", "[compare]") {
    auto a = arm(2);
    auto c = a;
    c["id0"].failure_mode = core::FailureMode::HttpTimeout;
    c["id0"].score.reset();
    auto report = core::compare_arms(a, c, "A", "C1");
    CHECK(report.divergent_ids == std::vector<std::string>{"id0"});
    CHECK(report.n_scored_both == 1);
}

TEST_CASE("type-strict fields: 1 and true differ, 1 and 1.0 do not", "[compare]") {
    auto a = arm(1);
    auto c = a;
    c["id0"].extracted_answer = 1;
    a["id0"].extracted_answer = true;
    CHECK_FALSE(core::compare_arms(a, c, "A", "C").clean());
    a["id0"].extracted_answer = 1.0;
    CHECK(core::compare_arms(a, c, "A", "C").clean());
}

TEST_CASE("missing equals null for optional invariant fields", "[compare]") {
    auto a = arm(1);
    auto c = a;
    a["id0"].prompt_tokens_measured.reset();
    c["id0"].prompt_tokens_measured.reset();
    CHECK(core::compare_arms(a, c, "A", "C").clean());
    c["id0"].prompt_tokens_measured = 0;
    CHECK_FALSE(core::compare_arms(a, c, "A", "C").clean());
}

TEST_CASE("ids present on one side only are divergent", "[compare]") {
    auto a = arm(3);
    auto c = a;
    c.erase("id2");
    auto extra = bi::testing::scored("zz");
    c.emplace("zz", extra);
    auto report = core::compare_arms(a, c, "A", "C1");
    CHECK(report.only_left == std::vector<std::string>{"id2"});
    CHECK(report.only_right == std::vector<std::string>{"zz"});
    CHECK(report.divergent_ids == std::vector<std::string>{"id2", "zz"});
    CHECK(report.n_compared == 2);
}

TEST_CASE("changed text with equal invariants is token-only", "[compare]") {
    auto a = arm(2);
    auto c = a;
    c["id0"].content += " ";
    c["id0"].token_ids = std::vector<std::int64_t>{1, 2, 9, 4};
    auto report = core::compare_arms(a, c, "A", "C1");
    CHECK(report.clean());
    CHECK(report.token_only_ids == std::vector<std::string>{"id0"});
    CHECK(report.first_divergent_token.at("id0") == 2);
}

TEST_CASE("logprob-only drift is reported with its size", "[compare]") {
    auto a = arm(2);
    auto c = a;
    (*c["id1"].token_logprobs)[3] = -2.5;
    auto report = core::compare_arms(a, c, "A", "C1");
    CHECK(report.clean());
    CHECK(report.token_only_ids.empty());
    CHECK(report.logprob_drift_ids == std::vector<std::string>{"id1"});
    CHECK(report.max_logprob_delta == Approx(0.5));
}

TEST_CASE("logprob-only drift below logit_drift_eps is not drift, at or above it is", "[compare]") {
    auto a = arm(2);
    auto c = a;
    (*c["id1"].token_logprobs)[3] = -2.5;  // a delta of 0.5
    auto report = core::compare_arms(a, c, "A", "C1", 0.6);
    CHECK(report.clean());
    CHECK(report.logprob_drift_ids.empty());
    CHECK(report.max_logprob_delta == Approx(0.5));  // still measured
    CHECK(core::compare_arms(a, c, "A", "C1", 0.5).logprob_drift_ids ==
          std::vector<std::string>{"id1"});
    c["id1"].extracted_answer = core::Json("other");  // an invariant change is never excused
    CHECK(core::compare_arms(a, c, "A", "C1", 100.0).divergent_ids ==
          std::vector<std::string>{"id1"});
}

TEST_CASE("first token difference handles prefixes", "[compare]") {
    using V = std::vector<std::int64_t>;
    CHECK_FALSE(core::first_token_difference(V{1, 2}, V{1, 2}).has_value());
    CHECK(core::first_token_difference(V{1, 2}, V{1, 3}) == 1u);
    CHECK(core::first_token_difference(V{1, 2}, V{1, 2, 3}) == 2u);
    CHECK(core::first_token_difference(V{}, V{5}) == 0u);
}

TEST_CASE("drift in any generated field with equal invariants is token-only", "[compare]") {
    const auto tool_call = [](const char* arguments) {
        core::Json call = core::Json::object();
        call.set("type", "function");
        call["function"].set("name", "get_weather");
        call["function"].set("arguments", arguments);
        core::Json calls = core::Json::array();
        calls.push_back(call);
        return calls;
    };
    auto a = arm(2);
    a["id0"].reasoning_content = "Paris is the capital.";
    a["id0"].tool_calls = tool_call(R"({"city":"Paris"})");
    const auto same = core::compare_arms(a, a, "A", "C1");
    CHECK(same.clean());
    CHECK(same.token_only_ids.empty());

    using Change = std::function<void(core::ArmResults&)>;
    const std::vector<std::pair<const char*, Change>> changes = {
        {"reasoning", [](auto& c) { c["id0"].reasoning_content = "Lyon is the capital."; }},
        {"reasoning appears", [](auto& c) { c["id1"].reasoning_content = "hmm"; }},
        {"tool call arguments",
         [&](auto& c) { c["id0"].tool_calls = tool_call(R"({"city":"Lyon"})"); }},
        {"tool call name",
         [](auto& c) { c["id0"].tool_calls.as_array()[0]["function"].set("name", "get_time"); }},
        {"tool calls vanish", [](auto& c) { c["id0"].tool_calls = core::Json(); }},
        {"generated token count", [](auto& c) { c["id1"].completion_tokens = 5; }},
        {"token count unknown on one side", [](auto& c) { c["id1"].completion_tokens.reset(); }},
        {"stop reason", [](auto& c) { c["id1"].finish_reason = "stop"; }},
    };
    for (const auto& [what, change] : changes) {
        INFO(what);
        auto c = a;
        change(c);
        const auto report = core::compare_arms(a, c, "A", "C1");
        CHECK(report.clean());
        CHECK(report.token_only_ids.size() == 1);
        CHECK(report.logprob_drift_ids.empty());
        CHECK(report.first_divergent_token.empty());  // the token ids themselves agree
    }
}

TEST_CASE("an invariant row says whether everything generated was identical", "[compare]") {
    auto a = arm(1);
    auto c = a;
    c["id0"].score = 0.0;
    c["id0"].reasoning_content = "changed my mind";
    const auto report = core::compare_arms(a, c, "A", "C1");
    REQUIRE(report.rows.size() == 1);
    CHECK_FALSE(report.rows[0].token_identical);
    CHECK(report.token_only_ids.empty());  // divergent ids are never also token-only
}

TEST_CASE("an arm's longest prompt, known only when every trial counted its own",
          "[compare][trial]") {
    auto a = arm(3);
    CHECK(core::longest_prompt_tokens(a) == std::optional<std::int64_t>(100));
    a["id2"].prompt_tokens_measured = 4096;
    CHECK(core::longest_prompt_tokens(a) == std::optional<std::int64_t>(4096));
    a["id0"].prompt_tokens_measured.reset();  // a failed request says nothing of its prompt
    CHECK_FALSE(core::longest_prompt_tokens(a).has_value());
    CHECK_FALSE(core::longest_prompt_tokens(core::ArmResults{}).has_value());
}
