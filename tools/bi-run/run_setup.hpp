// The flags run-mock, run-live and sweep share, and turning them into a ready-to-run setup:
// plugins loaded, scorer created, work-set source chosen, output directory checked.
#pragma once

#include <cxxopts.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/option_aliases.hpp"
#include "core/run_request.hpp"
#include "driver/run_cells.hpp"
#include "driver/run_plan.hpp"
#include "driver/run_setup.hpp"
#include "plugin_host/plugin_set.hpp"
#include "profile_choice.hpp"

namespace bi::cli {

// The seed of the C pass permutations and of work-set generators, in every command that has one.
inline constexpr std::uint64_t kDefaultSeed = 42;

// The other spellings the cell commands accept (the upstream tool's names, --gate-passes);
// --cert-source is each command's own (upstream_options.hpp).
std::vector<OptionAlias> run_option_aliases();

// A string option's value, its default, or "" when it has neither.
std::string string_option(const cxxopts::ParseResult& args, const std::string& name);

using driver::ProfileScope;
using driver::RunSetup;

// The shared options as a typed request. Only sweep (`allow_lists`) accepts comma-separated
// lists for --ctx and --parallel; values are parsed here, checked by prepare_run.
core::RunRequest run_request(const cxxopts::ParseResult& args, bool allow_lists = false);

// The plugin options, --scorer, --scorer-config, --workset, --generator, --generator-param and
// --logit-drift-eps as a request's scoring part.
core::ScoringRequest scoring_request(const cxxopts::ParseResult& args);

// A duration option in seconds, as milliseconds: finite, at most 1,000,000 s (so the conversion
// cannot overflow), and > 0 (or >= 0 when `zero_allowed`); the message names the option.
std::chrono::milliseconds seconds_option(const cxxopts::ParseResult& args, const char* name,
                                         bool zero_allowed = false);

// --max-response-bytes: a whole number of bytes from 1024 to 1 GiB; the message names the option.
std::uint64_t max_response_bytes_option(const cxxopts::ParseResult& args);

// --endpoint: chat or completion; bi::Error(Usage) naming the option and the words otherwise.
core::EndpointKind endpoint_option(const cxxopts::ParseResult& args);

// The server and guard options as a request's target.
core::TargetRequest target_request(const cxxopts::ParseResult& args);

// What every cell command runs with: this bi-run's invocation, the command line's notes stream,
// --quiet, --json.
driver::CellsOptions cells_options(const CommandLine& line, const cxxopts::ParseResult& args);

// How the cell commands print: each decided cell's verdict (one JSON line with `json`), a dry
// run's plan (its request fields named as `line`'s options), and, without `json`, the HTML
// report's path and a sweep's closing table.
driver::CellHooks printing_hooks(const CommandLine& line, bool json);

}  // namespace bi::cli
