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
        {"completion", "print a bash, zsh or fish completion script for bi-run", completion_main,
         true},
    };
    return kCommands;
}

const Command* find_command(std::string_view name) {
    for (const auto& command : commands())
        if (name == command.name) return &command;
    return nullptr;
}

}  // namespace bi::cli
