#include "plan_status.hpp"

#include <chrono>
#include <filesystem>

#include "core/cert.hpp"
#include "core/error.hpp"
#include "io/files.hpp"
#include "io/plan_io.hpp"

namespace bi::cli {

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

std::string log_name(const std::string& model, std::int64_t ctx) {
    std::string stem = core::cert_file_name(model, ctx, 0);
    return stem.substr(0, stem.find("__N")) + ".server.log";
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
    std::vector<PlanCellStatus> without;
    for (const auto& group : plan.groups)
        for (int n : group.parallels) {
            const std::string cert = core::cert_file_name(group.model, group.ctx, n);
            std::error_code ec;
            if (std::filesystem::exists(dir + "/" + cert, ec)) continue;
            without.push_back(status_of(dir, cert, log_name(group.model, group.ctx)));
        }
    return without;
}

namespace {

core::SweepPlan read_plan_option(const std::string& plan_path) {
    try {
        return io::read_plan(plan_path);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage, std::string("--plan: ") + e.what());
    }
}

}  // namespace

std::string plan_out_dir(const std::string& plan_path) {
    return read_plan_option(plan_path).out_dir;
}

void print_plan_status(const std::string& plan_path, const std::string& dir, std::ostream& out) {
    const core::SweepPlan plan = read_plan_option(plan_path);
    const std::string where = dir.empty() ? plan.out_dir : dir;
    std::size_t n_cells = 0;
    for (const auto& group : plan.groups) n_cells += group.parallels.size();
    const auto without = plan_cells_without_cert(plan, where);
    out << "\nplan " << plan.plan_id << ": " << n_cells - without.size() << " of " << n_cells
        << " cell(s) certified in " << where << "\n";
    for (const auto& cell : without)
        out << "  " << cell.state << "  " << cell.cert
            << (cell.detail.empty() ? "" : "  (" + cell.detail + ")") << "\n";
}

}  // namespace bi::cli
