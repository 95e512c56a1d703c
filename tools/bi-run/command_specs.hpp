// What each bi-run command takes: its description, the options it lists from the option table
// (option_table.hpp) by group, and the exit statuses it returns. The one place a command's
// options are declared.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bi::cli {

struct OptionGroupSpec {
    std::string name;  // "" for the command's main group
    std::vector<std::string_view> ids;
};

struct CommandSpec {
    std::string_view name;    // "run-live", "baseline record"
    std::string description;  // what --help prints above "Usage:"
    std::vector<OptionGroupSpec> groups;
    std::vector<std::string> help_groups;  // the groups --help shows, in order; all when empty
    std::string_view positional;           // the option that takes the words that are not options
    std::string_view positional_help;      // what the usage line shows for them
    // The exit statuses the command returns, in the order its description's "Exit status"
    // paragraph names them (each one of kExitCodes; a CLI test checks the paragraph).
    std::vector<int> exit_codes;
};

// Every command's spec, in the order `bi-run --help` lists the commands.
const std::vector<CommandSpec>& command_specs();

// The spec of the command called `name`; bi::Error(Internal) when there is none.
const CommandSpec& command_spec(std::string_view name);

}  // namespace bi::cli
