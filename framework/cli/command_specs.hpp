// What each bi-run command is and takes: its name and summary, its description, the options it
// lists from the option table (option_table.hpp) by group, and the exit statuses it returns. The
// one place a command's options are declared.
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
    // One word, or two for a command of a group ("baseline record"): typed as two arguments,
    // named with a '-' where a file or page needs one word (bi-run-baseline-record(1)).
    const char* name;
    const char* summary;      // the line `bi-run --help` and the man pages give it
    std::string description;  // what --help prints above "Usage:"
    std::vector<OptionGroupSpec> groups;
    std::vector<std::string> help_groups;  // the groups --help shows, in order; all when empty
    std::string_view positional;           // the option that takes the words that are not options
    std::string_view positional_help;      // what the usage line shows for them
    // The exit statuses the command returns, in the order its description's "Exit status"
    // paragraph names them (each one of kExitCodes; a CLI test checks the paragraph).
    std::vector<int> exit_codes;
    bool loads_plugins = false;  // takes --plugin and --plugin-dir (also before the command)
};

// Every command's spec, in the order `bi-run --help` lists the commands.
const std::vector<CommandSpec>& command_specs();

// The spec of the command called `name`; bi::Error(Internal) when there is none.
const CommandSpec& command_spec(std::string_view name);

// The spec of the command called `name`, or nullptr.
const CommandSpec* find_command_spec(std::string_view name);

// A first word that several commands share ("baseline"), and what its commands do.
struct CommandGroup {
    const char* name;
    const char* summary;
};
const std::vector<CommandGroup>& command_groups();
const CommandGroup* find_group(std::string_view name);

// The commands of a group, in table order ("record", "check": their second words).
std::vector<std::string> group_commands(std::string_view group);

// The command's name as one word: "baseline-record".
std::string one_word(const CommandSpec& command);

}  // namespace bi::cli
