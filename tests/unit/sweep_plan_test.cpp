// Sharded sweeps: plan order and id, the groups each shard runs, where a shard's index comes
// from, lock take-over and when an existing cert lets a cell be skipped.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <utime.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "built_paths.hpp"
#include "core/error.hpp"
#include "core/sweep_plan.hpp"
#include "driver/cell_configuration.hpp"
#include "io/cert_io.hpp"
#include "io/files.hpp"
#include "io/plan_io.hpp"
#include "lock_helpers.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

core::SweepPlan three_model_plan() {
    core::SweepPlan plan;
    plan.out_dir = "/shared/certs";
    plan.request.n_predict = 8;
    plan.request.passes = 1;
    for (const char* model : {"zeta", "alpha", "mid"})
        for (std::int64_t ctx : {512, 256}) plan.groups.push_back({model, model, ctx, {8, 2, 4}});
    return plan;
}

core::EnvLookup env_of(std::map<std::string, std::string> vars) {
    return [vars](const std::string& name) -> std::optional<std::string> {
        const auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}

std::string usage_error(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        CHECK(e.category() == ErrorCategory::Usage);
        return e.what();
    }
    FAIL("no error");
    return {};
}

using testing::dead_pid;
using testing::unix_now;

}  // namespace

TEST_CASE("a plan is sorted by model then ctx, N ascending, whatever the input order",
          "[sweep-plan]") {
    auto plan = three_model_plan();
    core::sort_plan(plan);
    REQUIRE(plan.groups.size() == 6);
    CHECK(plan.groups[0].model == "alpha");
    CHECK(plan.groups[0].ctx == 256);
    CHECK(plan.groups[1].ctx == 512);
    CHECK(plan.groups[5].model == "zeta");
    CHECK(plan.groups[0].parallels == std::vector<int>{2, 4, 8});

    auto reversed = three_model_plan();
    std::reverse(reversed.groups.begin(), reversed.groups.end());
    core::sort_plan(reversed);
    CHECK(io::render_plan(reversed) == io::render_plan(plan));
    CHECK(io::plan_id(reversed) == io::plan_id(plan));
    CHECK(io::plan_id(plan).rfind("plan-", 0) == 0);
    CHECK(io::plan_id(plan).size() == 21);

    auto other = plan;
    other.request.logprobs = 2;
    CHECK(io::plan_id(other) != io::plan_id(plan));
}

TEST_CASE("a plan stores its request as typed fields, every member round-trips, no argv",
          "[sweep-plan]") {
    testing::ScratchDir dir;
    auto plan = three_model_plan();
    core::sort_plan(plan);
    auto& r = plan.request;
    r.model_alias = "alias";
    r.target_rate = 0.01;
    r.passes.reset();
    r.max_passes = 30;
    r.confidence = 0.9;
    r.reps = 2;
    r.kv_label = "q8_0";
    r.endpoint = core::EndpointKind::Completion;
    r.logprobs = 3;
    r.seed = 18446744073709551615ULL;  // the largest seed survives the int64 JSON number
    r.stagger_ms = 5;
    r.req_timeout = core::Seconds(7.5);
    r.arm_deadline = std::chrono::seconds(60);
    r.stop_on_red = true;
    r.max_response_bytes = 65536;
    r.scoring.plugins = {"libspark.so"};
    r.scoring.plugin_dirs = {"/opt/plugins"};
    r.scoring.plugin_timeout = std::chrono::seconds(12);
    r.scoring.scorer = "spark";
    r.scoring.scorer_config = "{\"k\":1}";
    r.scoring.generator = "spark";
    r.scoring.generator_params = {{"families", "A2,A4"}, {"n", "3"}};
    r.scoring.logit_drift_eps = 0.001;
    r.target.server_bin = "/usr/bin/llama-server";
    r.target.model = "/m.gguf";
    r.target.server_flags = {"-t", "3,1"};
    r.target.models_toml = "models.toml";
    r.target.models_dir = "/models";
    r.target.server_kind = "ik_llama.cpp";
    r.target.server_kind_dirs = {"/etc/kinds", "/home/me/kinds"};
    r.target.ready_timeout = std::chrono::seconds(30);
    r.target.shutdown_grace = std::chrono::seconds(2);
    r.target.reserved_ports = {8080};
    r.target.untouchable_pids = {1};
    r.target.max_footprint_gb = 20;
    r.sign_key = "/keys/k";
    const std::string text = io::render_plan(plan);
    CHECK(text.find("\"options\"") == std::string::npos);
    CHECK(text.find("--") == std::string::npos);  // no option spelling anywhere
    const auto back = io::read_plan(dir.write("plan.json", text));
    CHECK(io::render_plan(back) == text);
    CHECK(back.request.seed == r.seed);
    CHECK(back.request.scoring.generator_params == r.scoring.generator_params);
    CHECK(back.request.target.server_flags == r.target.server_flags);
    CHECK(back.request.target.max_footprint_gb == r.target.max_footprint_gb);
    CHECK(back.request.target.server_kind == r.target.server_kind);
    CHECK(back.request.target.server_kind_dirs == r.target.server_kind_dirs);
    CHECK_FALSE(back.request.passes.has_value());

    auto v1 = text;
    v1.replace(v1.find("bi-plan/2"), 9, "bi-plan/1");
    CHECK_THROWS_WITH(io::read_plan(dir.write("v1.json", v1)),
                      Catch::Contains("write the plan again with bi-run plan"));
    auto bad = text;
    bad.replace(bad.find("\"reps\": 2"), 9, "\"reps\": \"2\"");
    CHECK_THROWS_WITH(io::read_plan(dir.write("bad.json", bad)),
                      Catch::Contains("request.reps: expected"));
    auto unknown = text;
    unknown.replace(unknown.find("\"completion\""), 12, "\"grpc\"");
    CHECK_THROWS_WITH(io::read_plan(dir.write("unknown.json", unknown)),
                      Catch::Contains("request.endpoint: unknown endpoint 'grpc'"));
}

// A plan as an older bi-run wrote it must read, and one written now must be byte for byte what it
// wrote: the request's every member set (fractional seconds included) against a golden file. A
// mismatch leaves full_request.plan.received.json in the build tree.
TEST_CASE("a plan file's bytes are what bi-run has always written", "[sweep-plan][golden]") {
    auto plan = three_model_plan();
    core::sort_plan(plan);
    auto& r = plan.request;
    r.model_alias = "alias";
    r.target_rate = 0.01;
    r.passes.reset();
    r.max_passes = 30;
    r.kv_label = "q8_0";
    r.endpoint = core::EndpointKind::Completion;
    r.logprobs = 3;
    r.stagger_ms = 5;
    r.req_timeout = core::Seconds(7.5);
    r.arm_deadline = core::Seconds(0.25);
    r.max_response_bytes = 65536;
    r.scoring.plugins = {"libspark.so"};
    r.scoring.plugin_timeout = core::Seconds(12.125);
    r.scoring.generator = "spark";
    r.scoring.generator_params = {{"families", "A2,A4"}};
    r.target.server_bin = "/usr/bin/llama-server";
    r.target.ready_timeout = core::Seconds(30.5);
    r.target.shutdown_grace = std::chrono::seconds(2);
    r.target.max_footprint_gb = 20;
    r.target.prefill_chunk = 256;
    const std::string name = "full_request.plan";
    const std::string approved =
        testing::read_text(std::string(BI_TEST_DATA_DIR) + "/" + name + ".approved.json");
    const std::string rendered = io::render_plan(plan);
    if (rendered != approved)
        io::write_file_atomically(std::string(BI_TEST_OUTPUT_DIR) + "/" + name + ".received.json",
                                  rendered);
    CHECK(rendered == approved);
    testing::ScratchDir dir;
    const auto back = io::read_plan(dir.write("plan.json", approved));
    CHECK(io::render_plan(back) == approved);
    CHECK(back.request.arrivals == core::Arrivals::Mixed);
    // A plan written before arrivals were chosen (no key, its own id) reads as it ran, every
    // pass sent together, and renders as it was written.
    const std::string before = testing::read_text(std::string(BI_TEST_DATA_DIR) +
                                                  "/full_request_before_arrivals.plan.json");
    const auto old = io::read_plan(dir.write("old.json", before));
    CHECK(old.request.arrivals == core::Arrivals::Together);
    CHECK(io::render_plan(old) == before);
    CHECK(back.request.target.prefill_chunk == std::optional<std::int64_t>(256));
    // A plan written before prefill chunks could be set (no key) reads as the server's own
    // chunking, and renders as it was written.
    const std::string unchunked = testing::read_text(
        std::string(BI_TEST_DATA_DIR) + "/full_request_before_prefill_chunk.plan.json");
    const auto plain = io::read_plan(dir.write("unchunked.json", unchunked));
    CHECK_FALSE(plain.request.target.prefill_chunk.has_value());
    CHECK(plain.request.arrivals == core::Arrivals::Mixed);
    CHECK(io::render_plan(plain) == unchunked);
}

TEST_CASE("a plan file reads back, and an edited or unsorted one is refused", "[sweep-plan]") {
    testing::ScratchDir dir;
    auto plan = three_model_plan();
    core::sort_plan(plan);
    const auto path = dir.write("plan.json", io::render_plan(plan));
    const auto back = io::read_plan(path);
    CHECK(back.plan_id == io::plan_id(plan));
    CHECK(io::render_plan(back) == io::render_plan(plan));
    CHECK(back.request.n_predict == 8);
    CHECK(back.request.passes == std::optional<std::int64_t>(1));
    REQUIRE(back.groups.size() == plan.groups.size());
    CHECK(back.groups[3].model == plan.groups[3].model);
    CHECK(back.groups[3].profile == plan.groups[3].profile);

    std::string text = io::render_plan(plan);
    const auto at = text.find("\"ctx\": 512");
    REQUIRE(at != std::string::npos);
    text.replace(at, 10, "\"ctx\": 513");
    const auto edited = dir.write("edited.json", text);
    CHECK_THROWS_WITH(io::read_plan(edited), Catch::Contains("does not match the plan's content"));

    auto unsorted = three_model_plan();  // not sorted, id computed over it as it is
    const auto bad = dir.write("unsorted.json", io::render_plan(unsorted));
    CHECK_THROWS_WITH(io::read_plan(bad), Catch::Contains("not in plan order"));
}

TEST_CASE("the shards of a plan cover every group exactly once", "[sweep-plan]") {
    for (std::size_t n_groups : {0u, 1u, 5u, 6u, 18u})
        for (int m = 1; m <= 7; ++m) {
            std::multiset<std::size_t> seen;
            for (int k = 0; k < m; ++k) {
                const auto mine = core::shard_groups(n_groups, {k, m});
                for (auto i : mine) {
                    CHECK(i % static_cast<std::size_t>(m) == static_cast<std::size_t>(k));
                    seen.insert(i);
                }
            }
            INFO("groups " << n_groups << ", shards " << m);
            CHECK(seen.size() == n_groups);
            for (std::size_t i = 0; i < n_groups; ++i) CHECK(seen.count(i) == 1);
        }
    CHECK(core::shard_groups(6, {1, 4}) == std::vector<std::size_t>{1, 5});
    CHECK(core::shard_groups(6, {4, 4}).empty());
}

TEST_CASE("a shard K/M is 0-based and checked", "[sweep-plan]") {
    const auto s = core::parse_shard("3/4");
    REQUIRE(s);
    CHECK(s->index == 3);
    CHECK(s->count == 4);
    CHECK(core::parse_shard("0/1"));
    for (const char* bad : {"4/4", "-1/4", "1/0", "1", "a/b", "1/4x", "/4", "1/"})
        CHECK_FALSE(core::parse_shard(bad));
}

TEST_CASE("a shard's index and count come from the scheduler's environment", "[sweep-plan]") {
    using core::shard_from_environment;
    CHECK_FALSE(shard_from_environment(env_of({}), std::nullopt));

    // Slurm: --array=0-3 and --array=1-4 both give shards 0..3.
    auto slurm = shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "2"},
                                                {"SLURM_ARRAY_TASK_COUNT", "4"},
                                                {"SLURM_ARRAY_TASK_MIN", "0"}}),
                                        std::nullopt);
    REQUIRE(slurm);
    CHECK(slurm->shard.index == 2);
    CHECK(slurm->shard.count == 4);
    CHECK_THAT(slurm->source, Catch::Contains("Slurm job array"));
    slurm = shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "4"},
                                           {"SLURM_ARRAY_TASK_COUNT", "4"},
                                           {"SLURM_ARRAY_TASK_MIN", "1"}}),
                                   std::nullopt);
    REQUIRE(slurm);
    CHECK(slurm->shard.index == 3);
    CHECK(usage_error([] {
              shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "5"},
                                             {"SLURM_ARRAY_TASK_COUNT", "4"},
                                             {"SLURM_ARRAY_TASK_MIN", "1"}}),
                                     std::nullopt);
          }) == "SLURM_ARRAY_TASK_ID gives shard 4, outside 0..3");
    CHECK_THAT(usage_error([] {
                   shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "x"}}), std::nullopt);
               }),
               Catch::Contains("SLURM_ARRAY_TASK_ID=x"));

    // Kubernetes Indexed Job: 0-based, the count is --shard-count.
    const auto k8s = shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "0"}}), 3);
    REQUIRE(k8s);
    CHECK(k8s->shard.index == 0);
    CHECK(k8s->shard.count == 3);
    CHECK_THAT(k8s->source, Catch::Contains("Kubernetes"));
    CHECK_THAT(usage_error([] {
                   shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "1"}}), std::nullopt);
               }),
               Catch::Contains("--shard-count"));

    // GitLab parallel: 1-based.
    const auto gitlab =
        shard_from_environment(env_of({{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "5"}}), {});
    REQUIRE(gitlab);
    CHECK(gitlab->shard.index == 0);
    CHECK(gitlab->shard.count == 5);
    CHECK(usage_error([] {
              shard_from_environment(env_of({{"CI_NODE_INDEX", "0"}, {"CI_NODE_TOTAL", "5"}}),
                                     std::nullopt);
          }) == "CI_NODE_INDEX gives shard -1, outside 0..4");

    // The explicit form (GitHub Actions matrix): 0-based.
    const auto explicit_env =
        shard_from_environment(env_of({{"BI_SHARD_INDEX", "2"}, {"BI_SHARD_COUNT", "3"}}), {});
    REQUIRE(explicit_env);
    CHECK(explicit_env->shard.index == 2);
    CHECK(explicit_env->shard.count == 3);
    CHECK_THAT(usage_error([] {
                   shard_from_environment(env_of({{"BI_SHARD_INDEX", "2"}}), std::nullopt);
               }),
               Catch::Contains("BI_SHARD_COUNT is not set"));
}

TEST_CASE("a lock names its holder and is refused while the holder lives", "[sweep-plan][lock]") {
    testing::ScratchDir dir;
    const auto path = dir.file("cell.json.lock");
    std::string holder;
    auto lock = io::FileLock::try_lock(path, holder);
    REQUIRE(lock);
    const auto named = io::read_lock_holder(path);
    REQUIRE(named);
    CHECK(named->pid == ::getpid());
    CHECK(named->host == io::lock_host_name());
    CHECK_FALSE(named->pid_start.empty());
    CHECK(unix_now() - named->start < 60);
    std::string took_over;
    CHECK_FALSE(io::FileLock::try_lock(path, holder, io::kDefaultStaleLockAfter, &took_over));
    CHECK(holder == std::to_string(::getpid()));
    CHECK(took_over.empty());
}

TEST_CASE("stale locks are taken over with a message, live ones elsewhere are not",
          "[sweep-plan][lock]") {
    testing::ScratchDir dir;
    const auto host = io::lock_host_name();
    const auto now = std::to_string(unix_now());
    std::string holder;
    std::string took_over;

    SECTION("a holder on this host that is gone") {
        const auto pid = std::to_string(dead_pid());
        const auto path = dir.write(
            "a.lock", "host=" + host + "\npid=" + pid + "\npid_start=1\nstart=" + now + "\n");
        auto lock = io::FileLock::try_lock(path, holder, io::kDefaultStaleLockAfter, &took_over);
        REQUIRE(lock);
        CHECK_THAT(took_over, Catch::Contains("took over the stale lock " + path) &&
                                  Catch::Contains("pid " + pid + " is not running"));
        CHECK(io::read_lock_holder(path)->pid == ::getpid());
    }
    SECTION("a live PID that now belongs to another process") {
        const auto path =
            dir.write("b.lock", "host=" + host + "\npid=" + std::to_string(::getpid()) +
                                    "\npid_start=999999999999\nstart=" + now + "\n");
        CHECK(io::FileLock::try_lock(path, holder, io::kDefaultStaleLockAfter, &took_over));
        CHECK_THAT(took_over, Catch::Contains("now belongs to another process"));
    }
    SECTION("another host: held until the timeout, then taken over") {
        const auto path =
            dir.write("c.lock", "host=elsewhere\npid=1\npid_start=5\nstart=" + now + "\n");
        CHECK_FALSE(io::FileLock::try_lock(path, holder, std::chrono::seconds(3600), &took_over));
        CHECK(holder == "1 on elsewhere since unix time " + now);
        const auto old = std::to_string(unix_now() - 7200);
        dir.write("c.lock", "host=elsewhere\npid=1\npid_start=5\nstart=" + old + "\n");
        CHECK(io::FileLock::try_lock(path, holder, std::chrono::seconds(3600), &took_over));
        CHECK_THAT(took_over, Catch::Contains("more than 3600 s ago"));
    }
    SECTION("a file that names no holder: held while fresh, stale once old") {
        const auto path = dir.write("d.lock", "");
        CHECK_FALSE(io::FileLock::try_lock(path, holder, io::kDefaultStaleLockAfter, &took_over));
        const struct utimbuf old {
            static_cast<time_t>(unix_now() - 600), static_cast<time_t>(unix_now() - 600)
        };
        REQUIRE(::utime(path.c_str(), &old) == 0);
        CHECK(io::FileLock::try_lock(path, holder, io::kDefaultStaleLockAfter, &took_over));
        CHECK_THAT(took_over, Catch::Contains("names no holder"));
    }
}

TEST_CASE("a lock taken over from this holder is not removed by it", "[sweep-plan][lock]") {
    testing::ScratchDir dir;
    const auto path = dir.file("e.lock");
    std::string holder;
    auto first = io::FileLock::try_lock(path, holder);
    REQUIRE(first);
    // Someone judged it stale and locked anew: the name is theirs now.
    REQUIRE(::unlink(path.c_str()) == 0);
    dir.write("e.lock", "host=elsewhere\npid=7\nstart=" + std::to_string(unix_now()) + "\n");
    first.reset();
    REQUIRE(io::read_lock_holder(path));
    CHECK(io::read_lock_holder(path)->host == "elsewhere");
}

namespace {

driver::RunOptions planned_options() {
    driver::RunOptions o;
    o.model_alias = "tiny";
    o.out_dir = "/unused";
    o.request.n_predict = 8;
    o.run_labels.scorer = "exact";
    o.run_labels.workset = "ws.json";
    o.run_labels.server_flags = std::vector<std::string>{"--tick-ms=1"};
    o.model_file = core::ModelFileRecord{};
    o.model_file->path = "/m/tiny.gguf";
    o.model_file->size = 100;
    o.model_file->sha256_head = "abc";
    return o;
}

// A cert as a run with these options would have written it.
void write_planned_cert(const std::string& path, const driver::RunOptions& options,
                        core::Source source, const std::string& binary) {
    auto context = driver::configuration_context(options, 512, 4, source, binary);
    context.ts_utc = "2026-01-01T00:00:00Z";
    core::CellEvidence evidence;
    evidence.dispatch_n = 4;
    io::write_cert(path, core::build_cert(context, core::decide_verdict(evidence)));
}

}  // namespace

TEST_CASE("skip-existing: only a verifying cert of the same configuration is reused",
          "[sweep-plan][skip]") {
    testing::ScratchDir dir;
    const auto path = dir.file("tiny__ctx512__N4.json");
    const auto options = planned_options();
    CHECK(driver::check_existing_cert(path, options, 512, 4, "b1").reason == "no cert yet");

    for (auto source : {core::Source::Live, core::Source::Mock}) {
        write_planned_cert(path, options, source, "b1");
        const auto same = driver::check_existing_cert(path, options, 512, 4, "b1");
        INFO(same.reason);
        CHECK(same.reusable);
        CHECK_THAT(same.reason, Catch::StartsWith("same configuration cfg-"));
        const auto other_binary = driver::check_existing_cert(path, options, 512, 4, "b2");
        CHECK_FALSE(other_binary.reusable);
        CHECK(other_binary.reason == "it was made with another server binary");
    }

    auto longer = options;
    longer.request.n_predict = 16;
    CHECK_THAT(driver::check_existing_cert(path, longer, 512, 4, "b1").reason,
               Catch::StartsWith("another configuration"));
    auto other_flags = options;
    other_flags.run_labels.server_flags = std::vector<std::string>{"--tick-ms=2"};
    CHECK_FALSE(driver::check_existing_cert(path, other_flags, 512, 4, "b1").reusable);
    auto other_workset = options;
    other_workset.run_labels.workset = "other.json";
    CHECK_FALSE(driver::check_existing_cert(path, other_workset, 512, 4, "b1").reusable);
    CHECK_FALSE(driver::check_existing_cert(path, options, 512, 2, "b1").reusable);

    // Edited after it was written: the digest no longer matches.
    std::string text = testing::read_text(path);
    const auto at = text.find("\"ts_utc\": \"2026");
    REQUIRE(at != std::string::npos);
    text.replace(at, 15, "\"ts_utc\": \"2027");
    dir.write("tiny__ctx512__N4.json", text);
    CHECK(driver::check_existing_cert(path, options, 512, 4, "b1").reason ==
          "its digest does not match (edited)");

    // A cert that does not record its scorer cannot be proven the same.
    auto unlabelled = options;
    unlabelled.run_labels.scorer.reset();
    write_planned_cert(path, unlabelled, core::Source::Live, "b1");
    CHECK(driver::check_existing_cert(path, unlabelled, 512, 4, "b1").reason ==
          "it does not record its scorer");

    dir.write("tiny__ctx512__N4.json", "{\"not\": \"a cert\"}");
    CHECK_FALSE(driver::check_existing_cert(path, options, 512, 4, "b1").reusable);
}

TEST_CASE("a plan keeps --cache-arm, and one without it has no key", "[sweep-plan][cache]") {
    auto plan = three_model_plan();
    core::sort_plan(plan);
    CHECK(io::render_plan(plan).find("cache_arm") == std::string::npos);
    plan.request.cache_arm = true;
    const std::string text = io::render_plan(plan);
    CHECK(text.find("\"cache_arm\": true") != std::string::npos);
    testing::ScratchDir dir;
    const auto back = io::read_plan(dir.write("plan.json", text));
    CHECK(back.request.cache_arm);
    CHECK(io::render_plan(back) == text);
}

TEST_CASE("a plan keeps --determinism, and one without it has no key",
          "[sweep-plan][determinism]") {
    auto plan = three_model_plan();
    core::sort_plan(plan);
    CHECK(io::render_plan(plan).find("determinism") == std::string::npos);
    plan.request.determinism = core::DeterminismChoice::Both;
    const std::string text = io::render_plan(plan);
    CHECK(text.find("\"determinism\": \"both\"") != std::string::npos);
    testing::ScratchDir dir;
    const auto back = io::read_plan(dir.write("plan.json", text));
    CHECK(back.request.determinism == core::DeterminismChoice::Both);
    CHECK(io::render_plan(back) == text);
}
