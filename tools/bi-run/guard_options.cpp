#include "guard_options.hpp"

#include "driver/run_setup.hpp"

#include <string>

#include "cli/command_line.hpp"
#include "core/error.hpp"

namespace bi::cli {

std::vector<OptionAlias> guard_option_aliases() {
    return {{"--experiment-port", "--port"},
            {"--untouchable-port", "--reserved-port", nullptr, nullptr, true},
            // Upstream's already-running server: never bound or addressed, as a reserved port.
            {"--baseline-port", "--reserved-port", nullptr, nullptr, true}};
}

void read_guard_options(const cxxopts::ParseResult& args, core::TargetRequest& target) {
    if (args.count("port")) target.port = args["port"].as<int>();
    if (args.count("reserved-port"))
        for (int port : args["reserved-port"].as<std::vector<int>>())
            target.reserved_ports.push_back(port);
    if (args.count("untouchable-pid"))
        for (int pid : args["untouchable-pid"].as<std::vector<int>>())
            target.untouchable_pids.push_back(pid);
    if (args.count("max-footprint-gb")) {
        // Checked now (a plan stores it), kept as given: 0 stays "no cap" wherever it is read.
        const double gb = args["max-footprint-gb"].as<double>();
        driver::footprint_cap(gb);
        target.max_footprint_gb = gb;
    }
}

server::GuardLimits guard_limits(const cxxopts::ParseResult& args) {
    core::TargetRequest target;
    read_guard_options(args, target);
    return driver::guard_limits(target);
}

std::optional<std::uint16_t> chosen_port(const cxxopts::ParseResult& args) {
    core::TargetRequest target;
    read_guard_options(args, target);
    return driver::chosen_port(target);
}

}  // namespace bi::cli
