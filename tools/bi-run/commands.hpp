// The bi-run subcommands. Each takes the arguments after its name (argv[0] is the name).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace bi::cli {

struct CommandLine;

int verify_cert_main(CommandLine& line, int argc, char** argv);
int run_mock_main(CommandLine& line, int argc, char** argv);
int run_live_main(CommandLine& line, int argc, char** argv);
int sweep_main(CommandLine& line, int argc, char** argv);
int plan_main(CommandLine& line, int argc, char** argv);
int plan_n_main(CommandLine& line, int argc, char** argv);
int selftest_main(CommandLine& line, int argc, char** argv);
int report_main(CommandLine& line, int argc, char** argv);
int plugins_main(CommandLine& line, int argc, char** argv);
int workset_main(CommandLine& line, int argc, char** argv);
int synth_model_main(CommandLine& line, int argc, char** argv);
int keygen_main(CommandLine& line, int argc, char** argv);
int attest_main(CommandLine& line, int argc, char** argv);
int completion_main(CommandLine& line, int argc, char** argv);
int baseline_record_main(CommandLine& line, int argc, char** argv);
int baseline_check_main(CommandLine& line, int argc, char** argv);

struct Command {
    // One word, or two for a command of a group ("baseline record"): typed as two arguments,
    // named with a '-' where a file or page needs one word (bi-run-baseline-record(1)).
    const char* name;
    const char* summary;
    int (*main)(CommandLine&, int, char**);
    bool loads_plugins = false;  // takes --plugin and --plugin-dir (also before the command)
};

// Every command, in the order `bi-run --help` lists them.
const std::vector<Command>& commands();

// The command called `name`, or nullptr.
const Command* find_command(std::string_view name);

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
std::string one_word(const Command& command);

}  // namespace bi::cli
