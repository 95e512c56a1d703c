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

// A command's name and the function that runs it; what it is and takes is its spec
// (cli/command_specs.hpp), in the same order.
struct Command {
    const char* name;
    int (*main)(CommandLine&, int, char**);
};

// Every command, in the order `bi-run --help` lists them.
const std::vector<Command>& commands();

// The command called `name`, or nullptr.
const Command* find_command(std::string_view name);

}  // namespace bi::cli
