// The bi-run subcommands. Each takes the arguments after its name (argv[0] is the name).
#pragma once

#include <string_view>
#include <vector>

namespace bi::cli {

int verify_cert_main(int argc, char** argv);
int run_mock_main(int argc, char** argv);
int run_live_main(int argc, char** argv);
int sweep_main(int argc, char** argv);
int plan_main(int argc, char** argv);
int plan_n_main(int argc, char** argv);
int selftest_main(int argc, char** argv);
int report_main(int argc, char** argv);
int plugins_main(int argc, char** argv);
int workset_main(int argc, char** argv);
int synth_model_main(int argc, char** argv);
int keygen_main(int argc, char** argv);
int attest_main(int argc, char** argv);
int completion_main(int argc, char** argv);

struct Command {
    const char* name;
    const char* summary;
    int (*main)(int, char**);
    bool loads_plugins = false;  // takes --plugin and --plugin-dir (also before the command)
};

// Every command, in the order `bi-run --help` lists them.
const std::vector<Command>& commands();

// The command called `name`, or nullptr.
const Command* find_command(std::string_view name);

}  // namespace bi::cli
