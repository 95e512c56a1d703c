#include <catch2/catch.hpp>

#include <algorithm>

#include "core/cert.hpp"
#include "io/cert_schema.hpp"
#include "trial_builders.hpp"

using namespace bi;

namespace {

core::CertContext context(const std::string& source = "live") {
    core::CertContext c;
    c.cell = {"tiny/rand-256", 4096, 4, "f16", 1};
    c.source = *core::parse_source(source);
    c.ts_utc = "2026-01-01T00:00:00Z";
    return c;
}

core::Json green_cert(const std::string& source = "live") {
    core::Json cert = io::cert_to_json(
        core::build_cert(context(source), core::decide_verdict(testing::clean_cell())));
    cert.set("digest", "0000");  // validate_cert_shape needs it; promotion takes digest_intact
    return cert;
}

// Green from the given source; a document that is not a well-formed cert is never green.
bool is_green(const core::Json& document, const std::string& source) {
    const auto parsed = io::cert_from_json(document);
    return parsed.cert && parsed.cert->verdict.status == core::Status::Green &&
           parsed.cert->source == *core::parse_source(source);
}

bool has_reason(const core::Promotion& p, const std::string& text) {
    for (const auto& r : p.reasons)
        if (r.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("cert carries the upstream field names", "[cert]") {
    auto cert = green_cert();
    for (const char* key : {"model",
                            "ctx",
                            "dispatch_n",
                            "status",
                            "source",
                            "gate",
                            "overlap_ok",
                            "overlap",
                            "completion_floor",
                            "cobatch_coverage",
                            "arm_b",
                            "divergence_class",
                            "anomaly",
                            "token_divergence_ids",
                            "mismatch",
                            "n_passes",
                            "reps",
                            "kv_label",
                            "invariant_fields",
                            "per_pass_ac_divergent",
                            "per_pass_ac_token_only",
                            "sensitivity",
                            "promotion_scope",
                            "divergence_report",
                            "decision_reasons",
                            "ts_utc",
                            "schema",
                            "serial_self_check"})
        CHECK(cert.find(key) != nullptr);
    CHECK(cert.find("gate")->as_string() == "abc_union");
    CHECK(cert.find("schema")->as_string() == "bi-cert/2");
    CHECK(cert.find("arm_b")->find("ab_passed")->as_bool());
    CHECK(cert.find("divergence_report")->find("AC")->find("per_pass")->size() == 3);
    CHECK(cert.find("promotion_scope")->find("generalizes")->as_bool() == false);
    CHECK(cert.find("divergence_class")->is_null());
    CHECK(io::validate_cert_shape(cert).empty());
}

TEST_CASE("a live green with an intact digest is promotable", "[cert][promotion]") {
    auto cert = green_cert("live");
    CHECK(is_green(cert, "live"));
    auto p = io::check_promotable(cert, true);
    CHECK(p.promotable);
    CHECK(p.reasons.empty());
}

TEST_CASE("a mock green is never promotable", "[cert][promotion]") {
    auto cert = green_cert("mock");
    CHECK_FALSE(is_green(cert, "live"));
    CHECK(is_green(cert, "mock"));
    auto p = io::check_promotable(cert, true);
    CHECK_FALSE(p.promotable);
    CHECK(has_reason(p, "only a live run"));
}

TEST_CASE("every non-green status is not promotable", "[cert][promotion]") {
    for (const char* st : {"failed", "green_with_caveat", "green_unverified", "GREEN", "green "}) {
        auto cert = green_cert();
        cert.set("status", st);
        CHECK_FALSE(is_green(cert, "live"));
        CHECK_FALSE(io::check_promotable(cert, true).promotable);
    }
}

TEST_CASE("each broken gate blocks promotion with its own reason", "[cert][promotion]") {
    SECTION("missing overlap") {
        auto cert = green_cert();
        cert.set("overlap_ok", false);
        CHECK(has_reason(io::check_promotable(cert, true), "overlap"));
        cert.erase("overlap_ok");
        CHECK_FALSE(io::check_promotable(cert, true).promotable);
    }
    SECTION("wrong gate") {
        auto cert = green_cert();
        cert.set("gate", "ac_only");
        CHECK(has_reason(io::check_promotable(cert, true), "gate is 'ac_only'"));
    }
    SECTION("failed floor") {
        auto cert = green_cert();
        cert["completion_floor"].set("ok", false);
        cert["completion_floor"].set("completion_floor_ok", false);  // its upstream name
        CHECK(has_reason(io::check_promotable(cert, true), "completion floor"));
    }
    SECTION("failed coverage") {
        auto cert = green_cert();
        cert["cobatch_coverage"].set("ok", false);
        cert["cobatch_coverage"].set("cobatch_coverage_ok", false);  // its upstream name
        CHECK(has_reason(io::check_promotable(cert, true), "co-batch coverage"));
    }
    SECTION("unknown schema") {
        auto cert = green_cert();
        cert.set("schema", "bi-cert/3");
        CHECK(has_reason(io::check_promotable(cert, true), "unknown schema"));
    }
    SECTION("bad digest") {
        CHECK(has_reason(io::check_promotable(green_cert(), false), "digest"));
    }
    SECTION("the status must be the literal string, not a bool") {
        auto cert = green_cert();
        cert.set("status", true);
        CHECK_FALSE(io::check_promotable(cert, true).promotable);
    }
}

TEST_CASE("all reasons are reported together", "[cert][promotion]") {
    auto cert = green_cert("mock");
    cert.set("overlap_ok", false);
    cert["overlap"].set("ok", false);
    cert["overlap"].set("overlap_ok", false);  // the upstream name says the same
    cert.set("status", "green_unverified");
    const auto reasons = io::check_promotable(cert, false).reasons;
    const auto disagreements = std::count_if(reasons.begin(), reasons.end(), [](const auto& r) {
        return r.rfind("the cert disagrees with itself: ", 0) == 0;
    });
    CHECK(reasons.size() - static_cast<std::size_t>(disagreements) == 4);
    CHECK(disagreements == 2);  // overlap_ok and the status no longer follow the evidence
}

TEST_CASE("cert file names follow the contract", "[cert]") {
    CHECK(core::cert_file_name("org/model-7b", 8192, 4) == "org~2Fmodel-7b__ctx8192__N4.json");
    CHECK(core::cert_file_name("org_model-7b", 8192, 4) == "org_model-7b__ctx8192__N4.json");
    CHECK(core::cert_file_name("llama3.1:8b", 512, 2) == "llama3.1~3A8b__ctx512__N2.json");
    CHECK(core::cert_file_name("a~b", 512, 2) == "a~7Eb__ctx512__N2.json");
    CHECK(core::cert_file_name("tiny", 512, 2) == "tiny__ctx512__N2.json");
}

TEST_CASE("MoE names get a hint, dense names do not", "[cert]") {
    CHECK_FALSE(core::moe_hint("Mixtral-8x7B-Instruct").empty());
    CHECK_FALSE(core::moe_hint("qwen3-30b-a3b-q4").empty());
    CHECK_FALSE(core::moe_hint("some-moe-model").empty());
    CHECK(core::moe_hint("llama-3.1-8b-instruct").empty());
    CHECK(core::moe_hint("tiny/rand-256").empty());
}

TEST_CASE("shape validation names the first problem by JSON path", "[cert]") {
    auto cert = green_cert();
    cert.set("ctx", "4096");
    CHECK(io::validate_cert_shape(cert) == "$.ctx: expected integer, got string");
    cert = green_cert();
    cert["completion_floor"].erase("ok");
    CHECK(io::validate_cert_shape(cert) == "$.completion_floor.ok: missing");
    cert = green_cert();
    cert.set("status", "blue");
    CHECK(io::validate_cert_shape(cert) == "$.status: unknown status 'blue'");
    cert = green_cert();
    cert["decision_reasons"].push_back(3);
    CHECK(io::validate_cert_shape(cert).rfind("$.decision_reasons[", 0) == 0);
    CHECK(io::validate_cert_shape(core::Json::array()) == "$: expected object, got array");
}

TEST_CASE("a planned cert reads back its end and refuses a word it does not know", "[cert]") {
    auto c = context();
    c.plan = core::PassPlanRecord{};
    c.plan->ended = core::PlanEnd::Divergence;
    auto cert = io::cert_to_json(core::build_cert(c, core::decide_verdict(testing::clean_cell())));
    cert.set("digest", "0000");
    CHECK(cert.find("plan")->find("ended")->as_string() == "divergence");
    const auto parsed = io::cert_from_json(cert);
    REQUIRE(parsed.cert);
    CHECK(parsed.cert->plan->ended == core::PlanEnd::Divergence);
    cert["plan"].set("ended", "continue");
    CHECK(io::validate_cert_shape(cert) == "$.plan.ended: unknown plan end 'continue'");
}

TEST_CASE("the cert records RED evidence", "[cert]") {
    auto e = testing::clean_cell();
    e.arm_c[1]["id2"].score = 0.0;
    e.arm_c[1]["id2"].token_ids = std::vector<std::int64_t>{1, 2, 7, 7};
    auto cert = io::cert_to_json(core::build_cert(context(), core::decide_verdict(e)));
    CHECK(cert.find("status")->as_string() == "failed");
    CHECK(cert.find("divergence_class")->as_string() == "co_batching");
    CHECK(cert.find("mismatch")->as_array() == core::Json::Array{"id2"});
    CHECK(cert.find("per_pass_ac_divergent")->as_array() == core::Json::Array{0, 1, 0});
    CHECK(cert.find("first_divergent_token")->find("id2")->as_int() == 2);
    const auto& rows = cert.find("divergence_report")
                           ->find("AC")
                           ->find("per_pass")
                           ->as_array()[1]
                           .find("rows")
                           ->as_array();
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].find("field")->as_string() == "score");
}
