// Forensics of divergent ids: the first divergence on each basis, near-tie vs decisive, the
// n-gram contamination check, the greedy check, and how the verdict and the cert carry them.
#include <catch2/catch.hpp>

#include "core/cert.hpp"
#include "core/cert_consistency.hpp"
#include "core/forensics.hpp"
#include "core/union.hpp"
#include "core/verdict.hpp"
#include "io/cert_schema.hpp"
#include "trial_builders.hpp"

using namespace bi;
using core::DivergenceBasis;
using core::DivergenceKind;
using testing::scored;

namespace {

// Top-1 and top-2 at every position: the chosen token first, `margin` nats above the next.
void with_alternatives(core::TrialRecord& r, double margin) {
    std::vector<std::vector<core::TokenAlternative>> top;
    for (std::size_t i = 0; i < r.token_logprobs->size(); ++i)
        top.push_back({{(*r.token_ids)[i], "t", (*r.token_logprobs)[i]},
                       {99, "u", (*r.token_logprobs)[i] - margin}});
    r.top_alternatives = top;
}

bool mentions(const core::Verdict& v, const std::string& text) {
    for (const auto& line : v.decision_reasons)
        if (line.find(text) != std::string::npos) return true;
    return false;
}

// The cert as written and read back (the digest's value is io's business, not checked here).
core::Cert round_trip(core::Cert cert) {
    cert.digest = "0";
    auto parsed = io::cert_from_json(io::cert_to_json(cert));
    INFO(parsed.problem);
    REQUIRE(parsed.cert);
    return *parsed.cert;
}

}  // namespace

TEST_CASE("first divergence: token ids when both sides have them", "[forensics]") {
    auto a = scored("x");
    auto c = scored("x");
    (*c.token_ids)[2] = 7;
    c.content = "text-y";
    const auto at = core::first_divergence(a, c);
    REQUIRE(at);
    CHECK(at->basis == DivergenceBasis::TokenId);
    CHECK(at->index == 2);
    CHECK(at->common_prefix == 2);
    CHECK_FALSE(core::first_divergence(a, a));
}

TEST_CASE("first divergence: token texts when ids are missing (chat)", "[forensics]") {
    auto a = scored("x");
    a.token_ids.reset();
    a.token_texts = std::vector<std::string>{"te", "xt", "-", "x"};
    auto c = a;
    c.token_texts = std::vector<std::string>{"te", "xt", "-", "y"};
    c.content = "text-y";
    const auto at = core::first_divergence(a, c);
    REQUIRE(at);
    CHECK(at->basis == DivergenceBasis::TokenText);
    CHECK(at->index == 3);
    // A shorter completion differs at its own length.
    c.token_texts = std::vector<std::string>{"te", "xt"};
    CHECK(core::first_divergence(a, c)->index == 2);
}

TEST_CASE("first divergence: the character offset when no token is known", "[forensics]") {
    auto a = scored("x");
    a.token_ids.reset();
    a.token_logprobs.reset();
    auto c = a;
    c.content = "text-xy";
    const auto at = core::first_divergence(a, c);
    REQUIRE(at);
    CHECK(at->basis == DivergenceBasis::Char);
    CHECK(at->index == 6);
    CHECK(at->common_prefix == 6);
    // Equal token ids hand over to the content: a stop word can trim the text alone.
    auto b = scored("x");
    auto d = scored("x");
    d.content = "text-";
    CHECK(core::first_divergence(b, d)->basis == DivergenceBasis::Char);
}

TEST_CASE("a divergence below the margin threshold is a near-tie, above it decisive",
          "[forensics]") {
    CHECK(core::classify_margin(0.01) == DivergenceKind::NearTie);
    CHECK(core::classify_margin(core::kNearTieMargin - 1e-9) == DivergenceKind::NearTie);
    CHECK(core::classify_margin(core::kNearTieMargin) == DivergenceKind::Decisive);
    CHECK(core::classify_margin(2.0) == DivergenceKind::Decisive);
    CHECK(core::classify_margin(std::nullopt) == DivergenceKind::Unknown);

    auto a = scored("x");
    with_alternatives(a, 0.02);
    auto c = scored("x");
    (*c.token_ids)[2] = 99;
    (*c.token_logprobs)[0] = -0.5003;
    (*c.token_logprobs)[2] = -1.01;
    auto f = core::divergence_forensics(a, c);
    REQUIRE(f);
    CHECK(f->kind == DivergenceKind::NearTie);
    CHECK(f->a_margin == Approx(0.02));
    CHECK(f->a_logprob == -1.0);
    CHECK(f->c_logprob == -1.01);
    CHECK(*f->max_prefix_logprob_delta == Approx(0.0003));  // position 2 itself is not prefix

    with_alternatives(a, 0.8);
    f = core::divergence_forensics(a, c);
    CHECK(f->kind == DivergenceKind::Decisive);
    CHECK(f->a_margin == Approx(0.8));
}

TEST_CASE("the verdict names a decisive divergence and summarises near-ties", "[forensics]") {
    auto e = testing::clean_cell(6, 2);
    for (auto* arm : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b})
        for (auto& [id, r] : *arm) with_alternatives(r, id == "id1" ? 0.01 : 0.9);
    for (auto& pass : e.arm_c)
        for (auto& [id, r] : pass) with_alternatives(r, id == "id1" ? 0.01 : 0.9);
    for (const char* id : {"id1", "id4"}) {
        auto& r = e.arm_c[1][id];
        (*r.token_ids)[1] = 50;
        r.top_alternatives->at(1) = {{50, "t", -0.25}, {2, "u", -0.26}};
        r.extracted_answer = "moved";
    }
    const auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Failed);
    REQUIRE(v.ac.forensics.size() == 2);
    const auto& decisive = v.ac.forensics.at("id4");
    CHECK(decisive.pass == 2);
    CHECK(decisive.at.index == 1);
    CHECK(decisive.kind == DivergenceKind::Decisive);
    CHECK(v.ac.forensics.at("id1").kind == DivergenceKind::NearTie);
    CHECK(v.ac.first_divergent_token.at("id4") == 1);
    CHECK(mentions(v, "decisive divergence: id4 (pass 2, token 1), A's top-1/top-2 margin 0.900"));
    CHECK(mentions(v, "1 near-tie divergence(s)"));
    CHECK_FALSE(mentions(v, "decisive divergence: id1"));
    // Per pass too, and the cert carries the union's entries.
    CHECK(v.ac.per_pass[1].forensics.count("id4") == 1);
    CHECK(v.ac.per_pass[0].forensics.empty());
    const auto cert = core::build_cert(testing::fixed_cert_context(), v);
    const auto json = io::cert_to_json(cert);
    const auto* entry = json.find("divergence_report")->find("AC")->find("forensics")->find("id4");
    REQUIRE(entry);
    CHECK(entry->find("basis")->as_string() == "token_id");
    CHECK(entry->find("class")->as_string() == "decisive");
    CHECK(entry->find("contamination") == nullptr);
    const auto back = round_trip(cert);
    CHECK(back.divergence.ac.forensics.at("id4").a_margin == decisive.a_margin);
    CHECK(core::cert_disagreements(back).empty());
    // An entry for an id that did not move in that pass is an edited cert.
    auto forged = back;
    forged.divergence.ac.per_pass[0].forensics["id4"] = decisive;
    const auto lines = core::cert_disagreements(forged);
    REQUIRE_FALSE(lines.empty());
    CHECK(lines.front() == "A vs C pass 1: id id4 has forensics but neither diverged nor drifted");
}

TEST_CASE("per-id logprob deltas for drift ids", "[forensics]") {
    auto e = testing::clean_cell(6, 2);
    (*e.arm_c[0]["id2"].token_logprobs)[3] = -2.5;
    (*e.arm_c[1]["id2"].token_logprobs)[3] = -2.25;
    (*e.arm_c[1]["id3"].token_logprobs)[0] = -0.625;
    const auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenWithCaveat);
    CHECK(v.ac.logprob_deltas.size() == 2);
    CHECK(v.ac.logprob_deltas.at("id2") == 0.5);
    CHECK(v.ac.logprob_deltas.at("id3") == 0.125);
    CHECK(v.ac.per_pass[0].logprob_deltas.at("id2") == 0.5);
    CHECK(v.ac.forensics.empty());  // same tokens: nothing diverged
}

TEST_CASE("a word n-gram of a neighbour that the id's own texts lack is foreign", "[forensics]") {
    CHECK(core::text_words("The Lamp-code, is 3307!") ==
          std::vector<std::string>{"the", "lamp", "code", "is", "3307"});
    const std::string neighbour = "The lamp code is 3307. Reply with the code.";
    CHECK(core::foreign_ngram(" seen lamp code is 3307 here", {"What is 6 times 7?", "a b"},
                              neighbour) == std::string("lamp code is 3307"));
    // Three shared words are not enough.
    CHECK_FALSE(core::foreign_ngram(" seen lamp code is", {""}, neighbour));
    // Words the id's own prompt or A output hold are not evidence.
    CHECK_FALSE(core::foreign_ngram("lamp code is 3307", {"", "the lamp code is 3307"}, neighbour));
}

TEST_CASE("contamination is labelled with the co-batched neighbour's id", "[forensics]") {
    auto e = testing::clean_cell(4, 1);
    for (int i = 0; i < 4; ++i)
        e.prompts["id" + std::to_string(i)] =
            "Prompt number " + std::to_string(i) + " asks about item " + std::to_string(i * 11);
    auto& c = e.arm_c[0]["id2"];
    c.content = " prompt number 3 asks";
    c.token_ids = std::vector<std::int64_t>{1, 2, 8, 8};
    c.extracted_answer = "moved";
    const auto v = core::decide_verdict(e);
    REQUIRE(v.ac.forensics.count("id2"));
    const auto& f = v.ac.forensics.at("id2");
    REQUIRE(f.contamination);
    CHECK(f.contamination->neighbour == "id3");
    CHECK(f.contamination->ngram == "prompt number 3 asks");
    CHECK(mentions(v, "contamination_suspected (privacy-relevant"));
    CHECK(mentions(v, "from co-batched neighbour id3"));

    // A neighbour that never overlapped it in time is no suspect.
    auto apart = e;
    apart.arm_c[0]["id3"].dispatch_ns = 5000;
    apart.arm_c[0]["id3"].complete_ns = 6000;
    CHECK_FALSE(core::decide_verdict(apart).ac.forensics.at("id2").contamination);
}

TEST_CASE("greedy check: a chosen token that is not the top-1 makes the cell UNVERIFIED",
          "[forensics][verdict]") {
    auto r = scored("x");
    with_alternatives(r, 0.3);
    CHECK_FALSE(core::first_greedy_violation(r));
    r.top_alternatives->at(2) = {{42, "w", -0.7}, {3, "t", -1.0}};
    const auto found = core::first_greedy_violation(r);
    REQUIRE(found);
    CHECK(found->position == 2);
    CHECK(found->top_logprob == -0.7);
    // A tie with the top-1 is still greedy.
    r.top_alternatives->at(2) = {{42, "w", -1.0}, {3, "t", -1.0}};
    CHECK_FALSE(core::first_greedy_violation(r));

    auto e = testing::clean_cell(6, 2);
    for (auto* arm : {&e.arm_a, &*e.arm_a_prime, &*e.arm_b})
        for (auto& [id, t] : *arm) with_alternatives(t, 0.5);
    for (auto& pass : e.arm_c)
        for (auto& [id, t] : pass) with_alternatives(t, 0.5);
    auto v = core::decide_verdict(e);
    CHECK(v.status == core::Status::Green);
    CHECK(v.gates.greedy.checked);
    CHECK(mentions(v, "greedy decoding confirmed"));

    e.arm_c[1]["id3"].top_alternatives->at(1) = {{77, "w", -0.1}, {2, "t", -0.25}};
    v = core::decide_verdict(e);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(mentions(v,
                   "not greedy decoding: in arm C2, id id3 chose a token of logprob -0.2500 at "
                   "position 1"));
    const auto cert = core::build_cert(testing::fixed_cert_context(), v);
    const auto json = io::cert_to_json(cert);
    const auto* check = json.find("greedy_check");
    REQUIRE(check);
    CHECK_FALSE(check->find("ok")->as_bool());
    CHECK(check->find("first_violation")->find("test_id")->as_string() == "id3");
    // The cert replays to the same verdict.
    const auto back = round_trip(cert);
    CHECK(back.gates.greedy.n_not_greedy == 1);
    CHECK(core::cert_disagreements(back).empty());
}

TEST_CASE("the cert caps forensics entries, most severe first, and counts the rest",
          "[forensics][cert]") {
    auto e = testing::clean_cell(core::kMaxForensicsPerReport + 5, 1);
    for (auto& [id, r] : e.arm_c[0]) {
        (*r.token_ids)[3] = 9;
        r.content = "other";
    }
    const auto v = core::decide_verdict(e);
    CHECK(v.ac.forensics.size() == core::kMaxForensicsPerReport + 5);
    const auto cert = core::build_cert(testing::fixed_cert_context(), v);
    CHECK(cert.divergence.ac.forensics.size() == core::kMaxForensicsPerReport);
    CHECK(cert.divergence.ac.forensics_truncated == 5);
    const auto json = io::cert_to_json(cert);
    CHECK(json.find("divergence_report")->find("AC")->find("forensics_truncated")->as_int() == 5);
}

TEST_CASE("the text excerpt starts before the first difference on a UTF-8 boundary",
          "[forensics]") {
    CHECK_FALSE(core::content_excerpt("same", "same"));

    const auto short_texts = core::content_excerpt("alpha beta", "alpha gamma");
    REQUIRE(short_texts);
    CHECK(short_texts->offset == 0);
    CHECK(short_texts->a == "alpha beta");
    CHECK(short_texts->c == "alpha gamma");
    CHECK_FALSE(short_texts->truncated);

    // 100 two-byte characters, then the change: the excerpt begins 80 bytes before it, never
    // inside a character, and each side is cut at kExcerptBytes on a boundary too.
    std::string prefix;
    for (int i = 0; i < 100; ++i) prefix += "\xC3\xA9";
    const std::string tail(1000, 'x');
    const auto long_texts = core::content_excerpt(prefix + "A" + tail, prefix + "B" + tail);
    REQUIRE(long_texts);
    CHECK(long_texts->offset == 200 - core::kExcerptBefore);
    CHECK(long_texts->offset % 2 == 0);
    CHECK(long_texts->truncated);
    CHECK(long_texts->a.size() <= core::kExcerptBytes);
    CHECK(long_texts->a.substr(core::kExcerptBefore, 1) == "A");
    CHECK(long_texts->c.substr(core::kExcerptBefore, 1) == "B");

    // An odd offset must step back to the character's start.
    const auto odd = core::content_excerpt("z" + prefix + "A", "z" + prefix + "B");
    REQUIRE(odd);
    CHECK((odd->offset == 121 || odd->offset == 120));
    CHECK((static_cast<unsigned char>(("z" + prefix)[odd->offset]) & 0xC0U) != 0x80U);
}
