// bi-run: the command-line front end. Parses, calls the framework, prints; nothing more.
#include <cxxopts.hpp>

#include <csignal>
#include <cstring>
#include <iostream>
#include <string_view>

#include "bi/version.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "core/utf8.hpp"
#include "driver/interrupt.hpp"
#include "exit_codes.hpp"
#include "plugin_args.hpp"

namespace {

struct Command {
    const char* name;
    const char* summary;
    int (*main)(int, char**);
};

const Command kCommands[] = {
    {"run-live", "verify one cell (model, ctx, N) against your own llama-server",
     bi::cli::run_live_main},
    {"sweep", "run-live over several ctx and N values, one cert per cell", bi::cli::sweep_main},
    {"plan", "write a sweep's cells as a plan file for sharded runs (Slurm, k8s, CI)",
     bi::cli::plan_main},
    {"run-mock", "verify one cell against the built-in continuous-batching mock server",
     bi::cli::run_mock_main},
    {"selftest", "prove the harness and the gate on your server with a tiny synthetic model",
     bi::cli::selftest_main},
    {"plan-n", "print the projected server footprint for N = 1..max", bi::cli::plan_n_main},
    {"report", "summarise many certs (or directories of them) in one table", bi::cli::report_main},
    {"verify-cert", "re-check cert files and explain why any is not promotable",
     bi::cli::verify_cert_main},
    {"plugins", "list the loaded plugins, their versions, scorers and generators",
     bi::cli::plugins_main},
    {"workset", "write a generator plugin's work-set to a JSON file", bi::cli::workset_main},
    {"synth-model", "write a random-weight llama GGUF model for testing a server",
     bi::cli::synth_model_main},
};

// Bad flags, files or plugins the user named: exit 2. Everything else before a verdict (a plugin
// that crashed or hung, plugin_host::PluginFault, included): exit 1.
bool is_bad_input(bi::ErrorCategory category) {
    using C = bi::ErrorCategory;
    return category == C::Usage || category == C::Guard || category == C::Input ||
           category == C::Plugin || category == C::Json;
}

void print_usage(std::ostream& out) {
    out << "bi-run " << BI_VERSION_STRING
        << " - does batching change your LLM server's answers? One cert per (model, ctx, N).\n\n"
           "usage: bi-run COMMAND [options]   (bi-run COMMAND --help for its options)\n\n"
           "commands:\n";
    for (const auto& command : kCommands)
        out << "  " << command.name << std::string(14 - std::strlen(command.name), ' ')
            << command.summary << "\n";
    out << "\nexit status: 0 promotable GREEN, 3 a verdict that is not promotable, 2 usage error "
           "or refused launch,\n1 error before a verdict, 129/130/143 interrupted by "
           "SIGHUP/SIGINT/SIGTERM.\n";
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        print_usage(std::cerr);
        return bi::cli::kExitUsage;
    }
    // Arguments end up in certs (flags, paths, names), and a cert is JSON text: UTF-8 only.
    for (int i = 1; i < argc; ++i)
        if (const auto bad = bi::core::first_invalid_utf8(argv[i])) {
            std::cerr << "bi-run: argument " << i << " is not valid UTF-8 (byte " << *bad << ")\n";
            return bi::cli::kExitUsage;
        }
    const std::string_view first = argv[1];
    if (first == "-h" || first == "--help" || first == "help") {
        print_usage(std::cout);
        return bi::cli::kExitPromotable;
    }
    if (first == "--version" || first == "-V") {
        std::cout << "bi-run " << BI_VERSION_STRING << "\n";
        return bi::cli::kExitPromotable;
    }
    for (const auto& command : kCommands) {
        if (first != command.name) continue;
        try {
            return command.main(argc - 1, argv + 1);
        } catch (const cxxopts::exceptions::exception& e) {
            std::cerr << "bi-run " << command.name << ": " << e.what() << "\n";
            return bi::cli::kExitUsage;
        } catch (const bi::driver::Interrupted& e) {
            std::cerr << "bi-run " << command.name << ": " << e.what() << "\n";
            return bi::cli::exit_for_signal(e.signal_number());
        } catch (const bi::Error& e) {
            std::cerr << "bi-run " << command.name << ": " << bi::cli::without_bi_prefix(e.what())
                      << "\n";
            return is_bad_input(e.category()) ? bi::cli::kExitUsage : bi::cli::kExitError;
        } catch (const std::exception& e) {
            std::cerr << "bi-run " << command.name << ": internal error: " << e.what() << "\n";
            return bi::cli::kExitError;
        }
    }
    std::cerr << "bi-run: unknown command '" << first << "' (see bi-run --help)\n";
    return bi::cli::kExitUsage;
}
