// Parsing one command's argv with cxxopts, with errors a person can act on.
#pragma once

#include <cxxopts.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command_specs.hpp"
#include "option_aliases.hpp"
#include "option_table.hpp"

namespace bi::cli {

// A finite floating-point option within [minimum, maximum]; bi::Error(Usage) naming the option
// otherwise ("--tick-ms must be between 0 and 60000").
double number_option(const cxxopts::ParseResult& args, const char* name, double minimum,
                     double maximum);

// One bi-run process's command line: its whole argv, as the cert's provenance records it, what
// rewriting aliases learned and the command it runs (so a message names an option as it was
// typed, option_naming.hpp), and where the driver's notes go. main() owns it and hands it to the
// command it runs; nothing about the command line is kept anywhere else.
struct CommandLine {
    std::vector<std::string> argv;
    AliasLog aliases;
    std::string command;               // "run-live", "baseline record": set once main chose it
    std::ostream* notes = &std::cerr;  // main's: an OptionNamingStream over std::cerr
};

// One command's options as cxxopts parses them, built from its spec (command_specs.hpp) and the
// option table: --help, the man pages and the completions read the same spec, so no command runs
// to describe itself.
struct CommandOptions {
    cxxopts::Options options;
    const CommandSpec* spec;
};

// The options of the command called `name` ("run-live", "baseline record").
CommandOptions command_options(std::string_view name);

// options.parse(), but every parse error is bi::Error(Usage) naming the option: a value that is
// not a number of the option's kind ("--passes: 'abc' is not an integer", "--req-timeout: 'x' is
// not a number"), an unknown option
// ("unknown option --foo (see bi-run run-mock --help)"), a missing value. Anything left over
// that is not an option is refused too, so a stray word never passes silently.
// The notes of agreeing aliases in `line` are printed on stderr once the whole line parsed.
cxxopts::ParseResult parse_command_line(CommandLine& line, CommandOptions& command, int argc,
                                        char** argv);

// When --help was given: prints the help of `command`'s groups on stdout and returns true, so
// the command returns its success status.
bool printed_help(const cxxopts::ParseResult& args, const CommandOptions& command);

// One command's options as its --help shows them, for generated completions and man pages.
struct OptionEntry {
    std::string short_name;  // "h", or ""
    std::string long_name;   // "help"
    std::string description;
    std::string value_name;  // "" for a switch, else its placeholder ("FILE", "arg")
    std::string default_value;
    bool repeatable = false;
    ValueKind kind = ValueKind::Switch;
    std::vector<std::string> choices;  // the only words the value may be (OptionSpec::choices)
};
struct OptionGroup {
    std::string name;  // "" for the command's main group
    std::vector<OptionEntry> options;
};
struct OptionTable {
    std::string description;  // the text --help prints above "Usage:"
    std::string usage;        // what follows the command's name on the usage line
    std::vector<OptionGroup> groups;
};

// The option table of a command's options, as its --help shows them.
OptionTable option_table(const CommandSpec& command);

// The kind of `option` (its long name: "passes") in `command` ("bi-run run-live");
// bi::Error(Internal) for an option the command does not take.
ValueKind value_kind(std::string_view command, std::string_view option);

// A string option's value when it was given (its default does not count), else nullopt.
std::optional<std::string> given(const cxxopts::ParseResult& args, const char* name);

// The option whose value was `value` on this command line ("--ctx"), or "" when none was; the
// option is spelt as typed. Exposed for tests.
std::string option_given_value(int argc, const char* const* argv, std::string_view value);

}  // namespace bi::cli
