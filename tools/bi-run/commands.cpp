#include "commands.hpp"

namespace bi::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> kCommands = {
        {"run-live", "verify one cell (model, ctx, N) against your own llama-server", run_live_main,
         true},
        {"sweep", "run-live over several ctx and N values, one cert per cell", sweep_main, true},
        {"plan", "write a sweep's cells as a plan file for sharded runs (Slurm, k8s, CI)",
         plan_main},
        {"run-mock", "verify one cell against the built-in continuous-batching mock server",
         run_mock_main, true},
        {"selftest", "prove the harness and the gate on your server with a tiny synthetic model",
         selftest_main},
        {"plan-n", "print the projected server footprint for N = 1..max", plan_n_main},
        {"report", "summarise many certs (or directories of them) in one table", report_main},
        {"verify-cert", "re-check cert files and explain why any is not promotable",
         verify_cert_main},
        {"keygen", "write an Ed25519 key pair for signing certs", keygen_main},
        {"attest", "export a cert as an in-toto attestation (DSSE envelope)", attest_main},
        {"plugins", "list the loaded plugins, their versions, scorers and generators", plugins_main,
         true},
        {"workset", "write a generator plugin's work-set to a JSON file", workset_main, true},
        {"synth-model", "write a random-weight llama GGUF model for testing a server",
         synth_model_main},
        {"baseline record",
         "run arm A and A' and keep them as a signed baseline for later builds and hosts",
         baseline_record_main, true},
        {"baseline check",
         "compare the server given now with a stored baseline: same, changed, drift only",
         baseline_check_main, true},
        {"completion", "print a bash, zsh or fish completion script for bi-run", completion_main,
         true},
    };
    return kCommands;
}

const std::vector<CommandGroup>& command_groups() {
    static const std::vector<CommandGroup> kGroups = {
        {"baseline", "record a serial baseline, or check another build or host against one"},
    };
    return kGroups;
}

const CommandGroup* find_group(std::string_view name) {
    for (const auto& group : command_groups())
        if (name == group.name) return &group;
    return nullptr;
}

std::vector<std::string> group_commands(std::string_view group) {
    std::vector<std::string> words;
    for (const auto& command : commands()) {
        const std::string_view name = command.name;
        const auto space = name.find(' ');
        if (space != std::string_view::npos && name.substr(0, space) == group)
            words.emplace_back(name.substr(space + 1));
    }
    return words;
}

std::string one_word(const Command& command) {
    std::string word = command.name;
    for (char& c : word)
        if (c == ' ') c = '-';
    return word;
}

const Command* find_command(std::string_view name) {
    for (const auto& command : commands())
        if (name == command.name) return &command;
    return nullptr;
}

}  // namespace bi::cli
