// The guard options of the commands that launch a real server (run-live, sweep, selftest):
// the experiment port, ports and PIDs never touched, the footprint cap.
#pragma once

#include <cxxopts.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include "cli/option_aliases.hpp"
#include "core/run_request.hpp"
#include "server/guards.hpp"

namespace bi::cli {

// The upstream tool's names of the guard options (--experiment-port, --untouchable-port,
// --baseline-port).
std::vector<OptionAlias> guard_option_aliases();

// The guard options into a request's target: --max-footprint-gb checked (driver::footprint_cap),
// the rest when the run is planned.
void read_guard_options(const cxxopts::ParseResult& args, core::TargetRequest& target);

// The limits the options (or a request) set; bi::Error(Usage) naming a bad value.
server::GuardLimits guard_limits(const cxxopts::ParseResult& args);

// --port, or nullopt (a free loopback port per launch).
std::optional<std::uint16_t> chosen_port(const cxxopts::ParseResult& args);

}  // namespace bi::cli
