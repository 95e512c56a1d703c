// The checks of a run request's fields that need no plugin or server (docs/design.md §3).
#include "run_setup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/request_field.hpp"
#include "plugin_host/plugin_info.hpp"

namespace bi::driver {

using core::field_ref;
using F = core::RequestField;

namespace {

// Proves the directory is (or can be created) writable, so that a run never ends with a verdict
// it cannot save; it is created only when the run starts (driver::run_plan), so a refused run
// leaves nothing behind.
std::string prepare_out_dir(const std::string& dir) {
    namespace fs = std::filesystem;
    if (dir.empty())
        usage_error(field_ref(F::OutDir) + " is required (the directory the cert is written to)");
    std::error_code ec;
    fs::path existing = fs::absolute(dir, ec);
    while (!existing.empty() && !fs::exists(existing, ec) && existing != existing.parent_path())
        existing = existing.parent_path();
    if (!fs::is_directory(existing, ec))
        usage_error(field_ref(F::OutDir) + " " + dir + ": " + existing.string() +
                    " is not a directory");
    if (::access(existing.c_str(), W_OK) != 0)
        usage_error(field_ref(F::OutDir) + " " + dir + ": " + existing.string() +
                    " is not writable");
    return dir;
}

}  // namespace

std::vector<std::string> split_path_list(const char* text) {
    std::vector<std::string> dirs;
    if (!text) return dirs;
    std::string list = text;
    std::size_t start = 0;
    while (start <= list.size()) {
        const auto colon = list.find(':', start);
        const auto dir = list.substr(start, colon == std::string::npos ? colon : colon - start);
        if (!dir.empty()) dirs.push_back(dir);
        if (colon == std::string::npos) break;
        start = colon + 1;
    }
    return dirs;
}

std::vector<std::int64_t> whole_number_list(const std::string& text, core::RequestField field,
                                            std::int64_t minimum, bool allow_lists) {
    const std::string flag = field_ref(field);
    std::vector<std::int64_t> values;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t used = 0;
        long long value = 0;
        try {
            value = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size())
            usage_error(flag + " " + text + ": expected a whole number" +
                        (allow_lists ? " or a comma-separated list" : ""));
        if (value < minimum) usage_error(flag + " must be at least " + std::to_string(minimum));
        if (std::find(values.begin(), values.end(), value) != values.end())
            usage_error(flag + " " + text + ": " + item + " is listed twice");
        values.push_back(value);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (values.size() > 1 && !allow_lists)
        usage_error(flag + " takes one value here; bi-run sweep runs several cells");
    return values;
}

std::chrono::milliseconds seconds_value(core::Seconds seconds, core::RequestField field,
                                        bool zero_allowed) {
    return seconds_value(seconds, field_ref(field), zero_allowed);
}

std::chrono::milliseconds seconds_value(core::Seconds seconds, const std::string& flag,
                                        bool zero_allowed) {
    const double count = seconds.count();
    if (!std::isfinite(count) || count > 1e6)
        usage_error(flag + ": expected a number of seconds up to 1000000");
    if (zero_allowed ? count < 0 : !(count > 0))
        usage_error(flag + (zero_allowed ? " must not be negative" : " must be positive"));
    return std::chrono::duration_cast<std::chrono::milliseconds>(seconds);
}

namespace {

constexpr std::uint64_t kMinResponseBytes = 1024;
constexpr std::uint64_t kMaxResponseBytes = std::uint64_t{1} << 30;

[[noreturn]] void bad_response_bytes(const std::string& text) {
    usage_error(field_ref(F::MaxResponseBytes) + " " + text +
                ": expected a whole number of bytes from " + std::to_string(kMinResponseBytes) +
                " to " + std::to_string(kMaxResponseBytes));
}

}  // namespace

std::uint64_t max_response_bytes_value(const std::string& text) {
    const bool digits =
        !text.empty() && text.size() <= 19 &&
        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) bad_response_bytes(text);
    return checked_max_response_bytes(std::stoull(text));
}

std::size_t checked_max_response_bytes(std::uint64_t bytes) {
    if (bytes < kMinResponseBytes || bytes > kMaxResponseBytes)
        bad_response_bytes(std::to_string(bytes));
    return static_cast<std::size_t>(bytes);
}

std::vector<std::pair<std::string, std::string>> parse_generator_params(
    const std::vector<std::string>& values) {
    std::vector<std::pair<std::string, std::string>> params;
    for (const auto& piece : values) {
        const auto equals = piece.find('=');
        if (equals == std::string::npos) {
            if (params.empty())
                usage_error(field_ref(F::GeneratorParams) + " '" + piece + "': expected KEY=VALUE");
            params.back().second += "," + piece;
            continue;
        }
        if (equals == 0)
            usage_error(field_ref(F::GeneratorParams) + " '" + piece + "': the key is empty");
        params.emplace_back(piece.substr(0, equals), piece.substr(equals + 1));
    }
    return params;
}

std::optional<double> footprint_cap(double gb) {
    if (gb == 0) return std::nullopt;
    if (!(gb >= 0.001 && gb <= 1e6))
        usage_error(field_ref(F::MaxFootprintGb) +
                    " must be 0 (no cap) or between 0.001 and 1e+06");
    return gb;
}

server::GuardLimits guard_limits(const core::TargetRequest& target) {
    server::GuardLimits limits;
    if (target.max_footprint_gb) limits.max_footprint_gb = footprint_cap(*target.max_footprint_gb);
    for (auto port : target.reserved_ports) {
        if (port < 1 || port > 65535)
            usage_error(field_ref(F::ReservedPorts) + " " + std::to_string(port) + ": not a port");
        limits.reserved_ports.push_back(static_cast<std::uint16_t>(port));
    }
    for (auto pid : target.untouchable_pids) {
        if (pid < 1 || pid > 2147483647)
            usage_error(field_ref(F::UntouchablePids) + " " + std::to_string(pid) + ": not a PID");
        limits.untouchable_pids.push_back(static_cast<int>(pid));
    }
    return limits;
}

std::optional<std::uint16_t> chosen_port(const core::TargetRequest& target) {
    if (!target.port) return std::nullopt;
    const auto port = *target.port;
    if (port < 1 || port > 65535)
        usage_error(field_ref(F::Port) + " " + std::to_string(port) + ": not a port");
    return static_cast<std::uint16_t>(port);
}

namespace {

// One slot count and context per cell; only a sweep lists several.
void check_cells(const core::RunRequest& request, bool allow_lists, RunPlan& plan) {
    if (!allow_lists && (request.ctxs.size() != 1 || request.parallels.size() != 1))
        usage_error(field_ref(F::Ctxs) + " and " + field_ref(F::Parallels) +
                    " take one value here; bi-run sweep runs several cells");
    if (request.ctxs.empty() || request.parallels.empty())
        usage_error(field_ref(F::Ctxs) + " and " + field_ref(F::Parallels) +
                    " need at least one value");
    plan.ctxs = request.ctxs;
    for (auto n : request.parallels) {
        if (n < 1) usage_error(field_ref(F::Parallels) + " must be at least 1");
        if (n > 4096)
            usage_error(field_ref(F::Parallels) + " " + std::to_string(n) + ": at most 4096");
        plan.parallels.push_back(static_cast<int>(n));
    }
    // llama-server keeps a context size in 32 bits: refuse what would wrap before any launch.
    constexpr std::int64_t kMaxContext = 2147483647;
    for (auto ctx : plan.ctxs) {
        if (ctx < 16) usage_error(field_ref(F::Ctxs) + " must be at least 16");
        if (ctx > kMaxContext)
            usage_error(field_ref(F::Ctxs) + " " + std::to_string(ctx) + ": at most 2147483647");
        for (int n : plan.parallels)
            if (ctx * n > kMaxContext)
                usage_error(field_ref(F::Ctxs) + " " + std::to_string(ctx) + " x " +
                            field_ref(F::Parallels) + " " + std::to_string(n) + " = " +
                            std::to_string(ctx * n) +
                            " tokens for the N-slot server: at most 2147483647");
    }
}

int at_least(std::int64_t value, F field, std::int64_t minimum) {
    if (value < minimum)
        usage_error(field_ref(field) + " must be at least " + std::to_string(minimum));
    if (value > 1000000000) usage_error(field_ref(field) + " must be at most 1000000000");
    return static_cast<int>(value);
}

// T passes, or planned passes up to a target rate.
void check_passes(const core::RunRequest& request, RunOptions& o) {
    o.passes = at_least(request.passes.value_or(4), F::Passes, 1);
    o.confidence = request.confidence;
    if (!(o.confidence > 0.0 && o.confidence < 1.0))
        usage_error(field_ref(F::Confidence) + " must be between 0 and 1 (exclusive), e.g. 0.95");
    o.max_passes = at_least(request.max_passes.value_or(kDefaultMaxPasses), F::MaxPasses, 1);
    if (request.target_rate) {
        const double rate = *request.target_rate;
        if (!(rate > 0.0 && rate < 1.0))
            usage_error(field_ref(F::TargetRate) +
                        " must be between 0 and 1 (exclusive), e.g. 0.01");
        if (request.passes)
            usage_error(field_ref(F::TargetRate) + " plans the passes itself: leave out " +
                        field_ref(F::Passes));
        o.target_rate = rate;
    } else if (request.max_passes) {
        usage_error(field_ref(F::MaxPasses) + " caps the planned passes of " +
                    field_ref(F::TargetRate) + ": give " + field_ref(F::TargetRate) + " too");
    }
}

// What every request of the cell asks for, and how long it may take.
void check_requests(const core::RunRequest& request, RunOptions& o) {
    o.reps = at_least(request.reps, F::Reps, 1);
    o.request.n_predict = at_least(request.n_predict, F::NPredict, 1);
    o.request.logprobs = at_least(request.logprobs, F::Logprobs, 0);
    if (o.request.logprobs > 20) usage_error(field_ref(F::Logprobs) + " must be at most 20");
    o.request.endpoint = request.endpoint;
    o.seed = request.seed;
    o.stagger = std::chrono::milliseconds(at_least(request.stagger_ms, F::StaggerMs, 0));
    o.arrivals = request.arrivals;
    if (request.target.prefill_chunk)
        o.prefill_chunk = at_least(*request.target.prefill_chunk, F::PrefillChunk, 1);
    o.request.timeout = seconds_value(request.req_timeout, F::ReqTimeout);
    o.request.max_response_bytes = checked_max_response_bytes(request.max_response_bytes);
    if (const auto deadline = seconds_value(request.arm_deadline, F::ArmDeadline, true);
        deadline.count() > 0)
        o.arm_deadline = deadline;
    o.stop_on_red = request.stop_on_red;
    o.cache_arm = request.cache_arm;
    o.determinism_choice = request.determinism;
    const double eps = request.scoring.logit_drift_eps;
    if (!(eps >= 0 && eps <= 1e6))
        usage_error(field_ref(F::LogitDriftEps) + " must be between 0 and 1e+06");
    o.logit_drift_eps = eps;
}

}  // namespace

void check_cobatched_parallels(const core::RunRequest& request) {
    for (auto n : request.parallels)
        if (n == 1)
            usage_error(field_ref(F::Parallels) +
                        " 1: no cell can be measured at N = 1, where no request shares a batch "
                        "with another (arm C runs N requests at once on an N-slot server); give "
                        "N of 2 or more");
}

void check_request(const core::RunRequest& request, bool allow_lists, RunPlan& plan) {
    auto& o = plan.options;
    o.out_dir = prepare_out_dir(request.out_dir);
    o.sign_key = signing_key(request.sign_key.value_or(""));
    o.model_alias = request.model_alias.value_or("");
    o.kv_label = request.kv_label.value_or(std::string(core::kDefaultKvLabel));
    check_cells(request, allow_lists, plan);
    check_passes(request, o);
    check_requests(request, o);
}

}  // namespace bi::driver
