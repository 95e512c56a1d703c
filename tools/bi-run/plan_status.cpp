#include "plan_status.hpp"

#include "core/error.hpp"
#include "driver/plan_status.hpp"
#include "io/plan_io.hpp"

namespace bi::cli {

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
    const auto without = driver::plan_cells_without_cert(plan, where);
    out << "\nplan " << plan.plan_id << ": " << n_cells - without.size() << " of " << n_cells
        << " cell(s) certified in " << where << "\n";
    for (const auto& cell : without)
        out << "  " << cell.state << "  " << cell.cert
            << (cell.detail.empty() ? "" : "  (" + cell.detail + ")") << "\n";
}

}  // namespace bi::cli
