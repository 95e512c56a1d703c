// A run request is checked whole before anything runs: every bad field is refused as a usage
// error that names the field, and a good one becomes a plan with the request's values.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "core/request_field.hpp"
#include "driver/run_setup.hpp"
#include "mock_cell.hpp"
#include "scratch_dir.hpp"

using bi::core::RunRequest;
using bi::testing::mock_request;
using bi::testing::ScratchDir;
using Catch::Matchers::Contains;

namespace {

// The message prepare_run refuses `request` with; fails the test when it is not refused as a
// usage error.
std::string refusal(const RunRequest& request) {
    std::ostringstream notes;
    try {
        bi::driver::prepare_run(request, {"test", std::nullopt, {}}, false,
                                bi::driver::ProfileScope::PluginOnly, notes);
    } catch (const bi::Error& e) {
        CHECK(e.category() == bi::ErrorCategory::Usage);
        return e.what();
    }
    FAIL("the request was accepted");
    return {};
}

}  // namespace

TEST_CASE("each out-of-range request field is refused, naming the field", "[request]") {
    using F = bi::core::RequestField;
    const ScratchDir dir;
    const RunRequest good = mock_request(dir.path());
    struct Case {
        F field;
        std::function<void(RunRequest&)> spoil;
    };
    const std::vector<Case> cases = {
        {F::Ctxs, [](RunRequest& r) { r.ctxs = {8}; }},
        {F::Ctxs,
         [](RunRequest& r) {
             r.ctxs = {512, 1024};
         }},  // a list outside a sweep
        {F::Parallels, [](RunRequest& r) { r.parallels = {0}; }},
        {F::Parallels, [](RunRequest& r) { r.parallels = {5000}; }},
        {F::Passes, [](RunRequest& r) { r.passes = 0; }},
        {F::Confidence, [](RunRequest& r) { r.confidence = 1.0; }},
        {F::TargetRate, [](RunRequest& r) { r.target_rate = 0.0; }},
        {F::TargetRate, [](RunRequest& r) { r.target_rate = 0.01; }},  // with passes
        {F::MaxPasses, [](RunRequest& r) { r.max_passes = 8; }},       // without a target
        {F::Reps, [](RunRequest& r) { r.reps = 0; }},
        {F::NPredict, [](RunRequest& r) { r.n_predict = 0; }},
        {F::Logprobs, [](RunRequest& r) { r.logprobs = 21; }},
        {F::StaggerMs, [](RunRequest& r) { r.stagger_ms = -1; }},
        {F::ReqTimeout, [](RunRequest& r) { r.req_timeout = bi::core::Seconds(0); }},
        {F::ReqTimeout, [](RunRequest& r) { r.req_timeout = bi::core::Seconds(std::nan("")); }},
        {F::ArmDeadline, [](RunRequest& r) { r.arm_deadline = bi::core::Seconds(-1); }},
        {F::MaxResponseBytes, [](RunRequest& r) { r.max_response_bytes = 12; }},
        {F::LogitDriftEps, [](RunRequest& r) { r.scoring.logit_drift_eps = -0.5; }},
        {F::PluginTimeout, [](RunRequest& r) { r.scoring.plugin_timeout = bi::core::Seconds(0); }},
        {F::OutDir, [](RunRequest& r) { r.out_dir.clear(); }},
    };
    for (const auto& c : cases) {
        RunRequest request = good;
        c.spoil(request);
        const std::string field = bi::core::field_ref(c.field);
        INFO(field);
        const std::string message = refusal(request);
        // Named by the request's own field, as written ("`ctxs` must be at least 16"): no
        // command-line spelling, which only the CLI edge knows.
        CHECK_THAT(message, Contains(field));
        CHECK_THAT(message, !Contains("--"));
    }
}

TEST_CASE("a good request becomes a plan with its values", "[request]") {
    const ScratchDir dir;
    RunRequest request = mock_request(dir.path());
    request.seed = 7;
    request.stagger_ms = 3;
    request.arm_deadline = bi::core::Seconds(2.5);
    request.logprobs = 2;
    request.endpoint = bi::core::EndpointKind::Completion;
    std::ostringstream notes;
    const auto setup = bi::driver::prepare_run(request, {"test", std::nullopt, {}}, false,
                                               bi::driver::ProfileScope::PluginOnly, notes);
    const auto& o = setup.plan.options;
    CHECK(setup.plan.ctxs == std::vector<std::int64_t>{512});
    CHECK(setup.plan.parallels == std::vector<int>{4});
    CHECK(o.passes == 2);
    CHECK(o.seed == 7);
    CHECK(o.stagger == std::chrono::milliseconds(3));
    REQUIRE(o.arm_deadline.has_value());
    CHECK(*o.arm_deadline == std::chrono::milliseconds(2500));
    CHECK(o.request.n_predict == 32);
    CHECK(o.request.logprobs == 2);
    CHECK(o.request.endpoint == bi::http::EndpointKind::Completion);
    CHECK(o.kv_label == "f16");
    CHECK(setup.scorer != nullptr);
}

TEST_CASE("lists, durations and byte counts are read strictly", "[request]") {
    using bi::driver::whole_number_list;
    constexpr auto kCtxs = bi::core::RequestField::Ctxs;
    CHECK(whole_number_list("4096,8192", kCtxs, 16, true) == std::vector<std::int64_t>{4096, 8192});
    CHECK_THROWS_WITH(whole_number_list("4096,8192", kCtxs, 16, false), Contains("one value"));
    CHECK_THROWS_WITH(whole_number_list("4096,4096", kCtxs, 16, true), Contains("listed twice"));
    CHECK_THROWS_WITH(whole_number_list("4k", kCtxs, 16, true), Contains("whole number"));
    CHECK_THROWS_WITH(whole_number_list("", kCtxs, 16, true), Contains("whole number"));
    CHECK_THROWS_WITH(whole_number_list("8", kCtxs, 16, true),
                      Contains("`ctxs` must be at least 16"));

    using bi::driver::seconds_value;
    constexpr auto kReqTimeout = bi::core::RequestField::ReqTimeout;
    CHECK(seconds_value(bi::core::Seconds(1.5), kReqTimeout) == std::chrono::milliseconds(1500));
    CHECK(seconds_value(bi::core::Seconds(0), bi::core::RequestField::ArmDeadline, true) ==
          std::chrono::milliseconds(0));
    CHECK_THROWS_WITH(seconds_value(bi::core::Seconds(0), kReqTimeout),
                      Contains("must be positive"));
    CHECK_THROWS_WITH(
        seconds_value(bi::core::Seconds(std::numeric_limits<double>::infinity()), kReqTimeout),
        Contains("up to 1000000"));

    using bi::driver::max_response_bytes_value;
    CHECK(max_response_bytes_value("1024") == 1024);
    CHECK(max_response_bytes_value("1073741824") == 1073741824);
    for (const char* bad : {"1023", "1073741825", "-5", "1e6", "", "99999999999999999999"})
        CHECK_THROWS_AS(max_response_bytes_value(bad), bi::Error);
    // A request's number is held to the same range.
    CHECK(bi::driver::checked_max_response_bytes(1024) == 1024);
    CHECK_THROWS_WITH(bi::driver::checked_max_response_bytes(1023),
                      Contains("`max_response_bytes` 1023: expected a whole number of bytes"));

    CHECK(bi::driver::split_path_list("a::b:") == std::vector<std::string>{"a", "b"});
    CHECK(bi::driver::split_path_list(nullptr).empty());
}

TEST_CASE("generator parameters keep a comma that continues a value", "[request]") {
    const auto params = bi::driver::parse_generator_params({"families=A2", "A4", "n=3"});
    REQUIRE(params.size() == 2);
    CHECK(params[0] == std::pair<std::string, std::string>{"families", "A2,A4"});
    CHECK(params[1] == std::pair<std::string, std::string>{"n", "3"});
}
