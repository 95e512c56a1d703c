#include "guard_options.hpp"

#include <string>

#include "command_line.hpp"
#include "core/error.hpp"

namespace bi::cli {

namespace {

[[noreturn]] void usage(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

}  // namespace

void add_guard_options(cxxopts::Options& options) {
    options.add_options("Guards")(
        "port",
        "Experiment port (default: a free loopback port per launch; also --experiment-port)",
        cxxopts::value<int>())(
        "reserved-port", "A port never bound or addressed (repeatable; also --untouchable-port)",
        cxxopts::value<std::vector<int>>())("untouchable-pid", "A PID never signalled (repeatable)",
                                            cxxopts::value<std::vector<int>>())(
        "max-footprint-gb",
        "Refuse when the projected footprint (RAM, and the GPU part when layers are offloaded) "
        "exceeds this",
        cxxopts::value<double>());
}

std::vector<OptionAlias> guard_option_aliases() {
    return {{"--experiment-port", "--port"},
            {"--untouchable-port", "--reserved-port", nullptr, nullptr, true}};
}

void read_guard_options(const cxxopts::ParseResult& args, core::TargetRequest& target) {
    if (args.count("port")) target.port = args["port"].as<int>();
    if (args.count("reserved-port"))
        for (int port : args["reserved-port"].as<std::vector<int>>())
            target.reserved_ports.push_back(port);
    if (args.count("untouchable-pid"))
        for (int pid : args["untouchable-pid"].as<std::vector<int>>())
            target.untouchable_pids.push_back(pid);
    if (args.count("max-footprint-gb"))
        target.max_footprint_gb = number_option(args, "max-footprint-gb", 0.001, 1e6);
}

server::GuardLimits guard_limits(const cxxopts::ParseResult& args) {
    core::TargetRequest target;
    read_guard_options(args, target);
    return guard_limits(target);
}

server::GuardLimits guard_limits(const core::TargetRequest& target) {
    server::GuardLimits limits;
    if (target.max_footprint_gb) {
        const double gb = *target.max_footprint_gb;
        if (!(gb >= 0.001 && gb <= 1e6))
            usage("--max-footprint-gb must be between 0.001 and 1e+06");
        limits.max_footprint_gb = gb;
    }
    for (auto port : target.reserved_ports) {
        if (port < 1 || port > 65535)
            usage("--reserved-port " + std::to_string(port) + ": not a port");
        limits.reserved_ports.push_back(static_cast<std::uint16_t>(port));
    }
    for (auto pid : target.untouchable_pids) {
        if (pid < 1 || pid > 2147483647)
            usage("--untouchable-pid " + std::to_string(pid) + ": not a PID");
        limits.untouchable_pids.push_back(static_cast<int>(pid));
    }
    return limits;
}

std::optional<std::uint16_t> chosen_port(const cxxopts::ParseResult& args) {
    core::TargetRequest target;
    read_guard_options(args, target);
    return chosen_port(target);
}

std::optional<std::uint16_t> chosen_port(const core::TargetRequest& target) {
    if (!target.port) return std::nullopt;
    const auto port = *target.port;
    if (port < 1 || port > 65535) usage("--port " + std::to_string(port) + ": not a port");
    return static_cast<std::uint16_t>(port);
}

}  // namespace bi::cli
