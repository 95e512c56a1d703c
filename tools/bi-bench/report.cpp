#include "report.hpp"

#include <cmath>
#include <iomanip>

#include "core/json.hpp"
#include "core/text.hpp"
#include "io/json_text.hpp"

namespace bi::bench {

namespace {

constexpr int kTitleWidth = 44;
constexpr int kResultWidth = 24;
constexpr int kTargetWidth = 14;

// Fewer decimals as numbers grow, so columns stay readable without hiding small values.
std::string format_number(double value) {
    const double magnitude = std::fabs(value);
    const bool whole = magnitude < 1e15 && value == std::floor(value);
    const int decimals = whole || magnitude >= 100 ? 0
                         : magnitude >= 10         ? 1
                         : magnitude >= 1          ? 2
                                                   : 4;
    return core::format_fixed(value, decimals);
}

std::string format_target(const std::optional<Target>& target) {
    if (!target) return "-";
    return std::string(target->at_least ? ">= " : "< ") + format_number(target->threshold);
}

std::string format_met(const Measurement& m) {
    if (!m.target) return "-";
    return m.target->met_by(m.value) ? "yes" : "NO";
}

std::string format_load(const std::array<double, 3>& load) {
    return core::format_fixed(load[0], 2) + " " + core::format_fixed(load[1], 2) + " " +
           core::format_fixed(load[2], 2);
}

core::Json load_json(const std::array<double, 3>& load) {
    core::Json array = core::Json::array();
    for (double value : load) array.push_back(value);
    return array;
}

}  // namespace

void print_table(std::ostream& out, const BenchContext& context,
                 const std::vector<Measurement>& measurements) {
    out << "bi-bench " << context.version << (context.quick ? " (quick: smoke-run counts)" : "")
        << " - " << context.cpus << " CPUs, load average " << format_load(context.load_at_start)
        << " at start, " << format_load(context.load_at_end) << " at end\n";
    out << std::left << std::setw(kTitleWidth) << "MEASUREMENT" << std::setw(kResultWidth)
        << "RESULT" << std::setw(kTargetWidth) << "TARGET"
        << "MET\n";
    for (const Measurement& m : measurements) {
        out << std::left << std::setw(kTitleWidth) << m.title << std::setw(kResultWidth)
            << (format_number(m.value) + " " + m.unit) << std::setw(kTargetWidth)
            << format_target(m.target) << format_met(m) << "\n";
        out << "    setup: " << m.setup << " (load " << format_number(m.load_1m) << ")\n";
        if (!m.details.empty()) {
            out << "    details:";
            const char* separator = " ";
            for (const Detail& d : m.details) {
                out << separator << d.key << " " << format_number(d.value)
                    << (d.unit.empty() ? "" : " ") << d.unit;
                separator = ", ";
            }
            out << "\n";
        }
    }
    out.flush();
}

std::string json_line(const BenchContext& context, const std::vector<Measurement>& measurements) {
    core::Json root = core::Json::object();
    root.set("tool", "bi-bench");
    root.set("version", context.version);
    root.set("quick", context.quick);
    root.set("cpus", context.cpus);
    root.set("load_average_start", load_json(context.load_at_start));
    root.set("load_average_end", load_json(context.load_at_end));
    core::Json list = core::Json::array();
    for (const Measurement& m : measurements) {
        core::Json item = core::Json::object();
        item.set("key", m.key);
        item.set("title", m.title);
        item.set("value", m.value);
        item.set("unit", m.unit);
        item.set("setup", m.setup);
        item.set("load_1m", m.load_1m);
        if (m.target) {
            core::Json target = core::Json::object();
            target.set("comparison", m.target->at_least ? ">=" : "<");
            target.set("threshold", m.target->threshold);
            item.set("target", std::move(target));
            item.set("met", m.target->met_by(m.value));
        } else {
            item.set("target", nullptr);
            item.set("met", nullptr);
        }
        core::Json details = core::Json::object();
        for (const Detail& d : m.details) details.set(d.key, d.value);
        item.set("details", std::move(details));
        list.push_back(std::move(item));
    }
    root.set("measurements", std::move(list));
    return io::to_json_text(root);
}

}  // namespace bi::bench
