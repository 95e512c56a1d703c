#include "commands.hpp"

namespace bi::cli {

const std::vector<Command>& commands() {
    static const std::vector<Command> kCommands = {
        {"run-live", run_live_main},
        {"sweep", sweep_main},
        {"plan", plan_main},
        {"run-mock", run_mock_main},
        {"selftest", selftest_main},
        {"plan-n", plan_n_main},
        {"report", report_main},
        {"verify-cert", verify_cert_main},
        {"keygen", keygen_main},
        {"attest", attest_main},
        {"plugins", plugins_main},
        {"workset", workset_main},
        {"synth-model", synth_model_main},
        {"baseline record", baseline_record_main},
        {"baseline check", baseline_check_main},
        {"completion", completion_main},
    };
    return kCommands;
}

const Command* find_command(std::string_view name) {
    for (const auto& command : commands())
        if (name == command.name) return &command;
    return nullptr;
}

}  // namespace bi::cli
