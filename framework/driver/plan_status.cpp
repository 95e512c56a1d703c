#include "plan_status.hpp"

#include <chrono>
#include <filesystem>

#include "core/cert.hpp"
#include "core/error.hpp"
#include "core/request_field.hpp"
#include "io/files.hpp"
#include "io/plan_io.hpp"
#include "run_plan.hpp"

namespace bi::driver {

namespace {

std::string last_line(const std::string& path) {
    std::string text;
    try {
        text = io::read_file(path);
    } catch (const Error&) {
        return "";
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    const auto newline = text.rfind('\n');
    return newline == std::string::npos ? text : text.substr(newline + 1);
}

PlanCellStatus status_of(const std::string& dir, const std::string& cert, const std::string& log) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string lock = dir + "/" + cert + ".lock";
    if (fs::exists(lock, ec)) {
        const auto holder = io::read_lock_holder(lock);
        if (!holder) return {cert, "running", "a lock that names no holder yet"};
        const long long now = std::chrono::duration_cast<std::chrono::seconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
        const std::string why =
            io::lock_staleness(*holder, io::lock_host_name(), now, io::kDefaultStaleLockAfter);
        const std::string who = "pid " + std::to_string(holder->pid) + " on " + holder->host +
                                " since unix time " + std::to_string(holder->start);
        if (why.empty()) return {cert, "running", who};
        return {cert, "stale lock", who + ": " + why};
    }
    if (fs::exists(dir + "/" + log, ec))
        return {cert, "failed", log + ": " + last_line(dir + "/" + log)};
    return {cert, "missing", ""};
}

}  // namespace

std::vector<PlanCellStatus> plan_cells_without_cert(const core::SweepPlan& plan,
                                                    const std::string& dir) {
    namespace fs = std::filesystem;
    std::vector<PlanCellStatus> without;
    for (const auto& group : plan.groups) {
        RunPlan named;
        named.options.out_dir = dir;
        named.options.model_alias = group.model;
        const std::string log = fs::path(named.log_path(group.ctx)).filename().string();
        for (int n : group.parallels) {
            const std::string cert = fs::path(named.cert_path(group.ctx, n)).filename().string();
            std::error_code ec;
            if (fs::exists(dir + "/" + cert, ec)) continue;
            without.push_back(status_of(dir, cert, log));
        }
    }
    return without;
}

core::SweepPlan read_plan_option(const std::string& path) {
    try {
        return io::read_plan(path);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage,
                    core::field_ref(core::RequestField::Plan) + ": " + e.what());
    }
}

std::string describe_plan_status(const core::SweepPlan& plan, const std::string& dir) {
    const std::string where = dir.empty() ? plan.out_dir : dir;
    std::size_t n_cells = 0;
    for (const auto& group : plan.groups) n_cells += group.parallels.size();
    const auto without = plan_cells_without_cert(plan, where);
    std::string out = "\nplan " + plan.plan_id + ": " + std::to_string(n_cells - without.size()) +
                      " of " + std::to_string(n_cells) + " cell(s) certified in " + where + "\n";
    for (const auto& cell : without)
        out += "  " + cell.state + "  " + cell.cert +
               (cell.detail.empty() ? "" : "  (" + cell.detail + ")") + "\n";
    return out;
}

}  // namespace bi::driver
