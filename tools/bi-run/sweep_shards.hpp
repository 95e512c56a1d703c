// Sharded sweeps: `bi-run plan` writes a sweep's groups to a plan file, and `bi-run sweep --plan`
// runs one shard of it (--shard K/M or a scheduler's environment) into a shared directory,
// skipping what is certified already, so array tasks, Indexed Jobs or CI matrix legs together
// produce the certs one sweep would.
#pragma once

#include <cxxopts.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/option_aliases.hpp"
#include "core/run_request.hpp"
#include "driver/sweep.hpp"

namespace bi::cli {

// sweep's other spellings (the upstream tool's), with --port, --experiment-port and --dry-run
// refused as plan refuses them.
std::vector<OptionAlias> plan_option_aliases();

// Every sweep option but the plan ones as a request (what a plan stores for its groups).
core::RunRequest sweep_request(const cxxopts::ParseResult& args);

// `bi-run sweep --plan FILE [--shard K/M]`: the groups of this shard, one sweep each.
int sweep_from_plan(CommandLine& line, const cxxopts::ParseResult& args);

}  // namespace bi::cli
