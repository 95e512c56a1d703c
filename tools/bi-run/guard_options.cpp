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

server::GuardLimits guard_limits(const cxxopts::ParseResult& args) {
    server::GuardLimits limits;
    if (args.count("max-footprint-gb")) {
        limits.max_footprint_gb = number_option(args, "max-footprint-gb", 0.001, 1e6);
    }
    if (args.count("reserved-port"))
        for (int port : args["reserved-port"].as<std::vector<int>>()) {
            if (port < 1 || port > 65535)
                usage("--reserved-port " + std::to_string(port) + ": not a port");
            limits.reserved_ports.push_back(static_cast<std::uint16_t>(port));
        }
    if (args.count("untouchable-pid"))
        for (int pid : args["untouchable-pid"].as<std::vector<int>>()) {
            if (pid < 1) usage("--untouchable-pid " + std::to_string(pid) + ": not a PID");
            limits.untouchable_pids.push_back(pid);
        }
    return limits;
}

std::optional<std::uint16_t> chosen_port(const cxxopts::ParseResult& args) {
    if (!args.count("port")) return std::nullopt;
    const int port = args["port"].as<int>();
    if (port < 1 || port > 65535) usage("--port " + std::to_string(port) + ": not a port");
    return static_cast<std::uint16_t>(port);
}

}  // namespace bi::cli
