// bi-run: the command-line front end. Parses, calls the framework, prints; nothing more.
#include <cxxopts.hpp>

#include <csignal>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bi/version.hpp"
#include "build_info.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "core/utf8.hpp"
#include "driver/interrupt.hpp"
#include "exit_codes.hpp"
#include "io/json_text.hpp"
#include "manpages.hpp"
#include "option_aliases.hpp"
#include "plugin_args.hpp"
#include "provenance.hpp"

namespace {

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
           "usage: bi-run [--plugin FILE]... [--plugin-dir DIR]... COMMAND [options]\n"
           "       bi-run COMMAND --help   (or bi-run help COMMAND)\n"
           "       bi-run --plugin FILE    (what the plugin offers and which commands use it)\n"
           "       bi-run --version [--json]   (version, commit, build and library versions)\n"
           "       bi-run help --man DIR       (write the man pages into DIR)\n\n"
           "commands:\n";
    for (const auto& command : bi::cli::commands())
        out << "  " << command.name << std::string(17 - std::strlen(command.name), ' ')
            << command.summary << "\n";
    out << "\nA bare plugin name (libspark.so) is looked up in --plugin-dir, $BI_PLUGIN_PATH, the "
           "bundled\nplugin directory beside bi-run, then the current directory.\n"
           "\nexit status: 0 promotable GREEN, 3 a verdict that is not promotable, 2 usage error "
           "or refused launch,\n1 error before a verdict, 129/130/143 interrupted by "
           "SIGHUP/SIGINT/SIGTERM.\n";
}

// Runs one command, turning whatever it throws into one line on stderr and the exit status; an
// option is named as the user typed it (an upstream alias, not the name it stands for).
int run_command(const char* name, int (*command_main)(int, char**), int argc, char** argv) {
    const std::string prefix = std::string("bi-run ") + name + ": ";
    try {
        return command_main(argc, argv);
    } catch (const cxxopts::exceptions::exception& e) {
        std::cerr << prefix << bi::cli::as_typed(bi::cli::ascii_quotes(e.what())) << "\n";
        return bi::cli::kExitUsage;
    } catch (const bi::driver::Interrupted& e) {
        std::cerr << prefix << e.what() << "\n";
        return bi::cli::exit_for_signal(e.signal_number());
    } catch (const bi::Error& e) {
        std::cerr << prefix
                  << bi::cli::as_typed(bi::cli::ascii_quotes(bi::cli::without_bi_prefix(e.what())))
                  << "\n";
        return is_bad_input(e.category()) ? bi::cli::kExitUsage : bi::cli::kExitError;
    } catch (const std::exception& e) {
        std::cerr << prefix << "internal error: " << e.what() << "\n";
        return bi::cli::kExitError;
    }
}

// A group's own usage: its commands and what each does.
void print_group_usage(const bi::cli::CommandGroup& group, std::ostream& out) {
    out << "bi-run " << group.name << ": " << group.summary << "\n\ncommands:\n";
    for (const auto& command : bi::cli::commands())
        if (std::string_view(command.name).rfind(std::string(group.name) + " ", 0) == 0)
            out << "  " << command.name << std::string(17 - std::strlen(command.name), ' ')
                << command.summary << "\n";
    out << "\n(bi-run " << group.name << " COMMAND --help lists a command's options)\n";
}

// The command named by argv[at] (and, for a group, argv[at + 1]); `words` is set to how many
// arguments name it. nullptr when none does; a group without its command is reported by the
// caller.
const bi::cli::Command* named_command(int argc, char** argv, int at, int& words) {
    words = 1;
    if (const auto* command = bi::cli::find_command(argv[at])) return command;
    if (!bi::cli::find_group(argv[at]) || at + 1 >= argc) return nullptr;
    words = 2;
    return bi::cli::find_command(std::string(argv[at]) + " " + argv[at + 1]);
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
    bi::cli::remember_command_line(argc, argv);
    bi::cli::GlobalOptions globals;
    int first_index = 1;
    try {
        first_index = bi::cli::read_global_options(argc, argv, globals);
    } catch (const bi::Error& e) {
        std::cerr << "bi-run: " << e.what() << "\n";
        return bi::cli::kExitUsage;
    }
    if (first_index >= argc) {
        if (globals.plugins.empty()) {
            print_usage(std::cerr);
            return bi::cli::kExitUsage;
        }
        bi::cli::ArgvCopy args(bi::cli::with_global_options({"plugins", "--describe"}, globals));
        return run_command("plugins", bi::cli::plugins_main, args.argc(), args.argv());
    }
    const std::string_view first = argv[first_index];
    if (first == "help" && first_index + 1 < argc &&
        std::string_view(argv[first_index + 1]) == "--man") {
        if (first_index + 3 != argc) {
            std::cerr << "bi-run help --man: name one directory to write the man pages into\n";
            return bi::cli::kExitUsage;
        }
        std::ostringstream usage;
        print_usage(usage);
        try {
            for (const auto& file : bi::cli::write_man_pages(argv[first_index + 2], usage.str()))
                std::cout << file << "\n";
        } catch (const bi::Error& e) {
            std::cerr << "bi-run help --man: " << e.what() << "\n";
            return bi::cli::kExitError;
        }
        return bi::cli::kExitHelp;
    }
    if (first == "-h" || first == "--help" || first == "help") {
        if (first == "help" && first_index + 1 < argc) {
            int words = 1;
            const bi::cli::Command* command = named_command(argc, argv, first_index + 1, words);
            if (!command) {
                if (const auto* group = bi::cli::find_group(argv[first_index + 1])) {
                    print_group_usage(*group, std::cout);
                    return bi::cli::kExitHelp;
                }
                std::cerr << "bi-run help: unknown command '" << argv[first_index + 1]
                          << "' (see bi-run --help)\n";
                return bi::cli::kExitUsage;
            }
            bi::cli::ArgvCopy args({command->name, "--help"});
            return run_command(command->name, command->main, args.argc(), args.argv());
        }
        print_usage(std::cout);
        return bi::cli::kExitHelp;
    }
    if (first == "--version" || first == "-V") {
        const bool json =
            first_index + 1 < argc && std::string_view(argv[first_index + 1]) == "--json";
        if (first_index + (json ? 2 : 1) != argc) {
            std::cerr << "bi-run --version: takes only --json\n";
            return bi::cli::kExitUsage;
        }
        const auto info = bi::cli::build_info();
        if (json)
            std::cout << bi::io::to_json_text(bi::cli::version_json(info)) << "\n";
        else
            std::cout << bi::cli::version_text(info);
        return bi::cli::kExitHelp;
    }
    int words = 1;
    const bi::cli::Command* command = named_command(argc, argv, first_index, words);
    if (!command) {
        if (const auto* group = bi::cli::find_group(first)) {
            const bool asked =
                first_index + 1 < argc && (std::string_view(argv[first_index + 1]) == "--help" ||
                                           std::string_view(argv[first_index + 1]) == "-h");
            if (!asked && first_index + 1 < argc)
                std::cerr << "bi-run " << first << ": unknown command '" << argv[first_index + 1]
                          << "'\n";
            print_group_usage(*group, asked ? std::cout : std::cerr);
            return asked ? bi::cli::kExitHelp : bi::cli::kExitUsage;
        }
        std::cerr << "bi-run: unknown command '" << first << "' (see bi-run --help)\n";
        return bi::cli::kExitUsage;
    }
    if (!command->loads_plugins && !globals.empty()) {
        std::cerr << "bi-run " << command->name << ": --plugin and --plugin-dir: this command "
                  << "loads no plugins\n";
        return bi::cli::kExitUsage;
    }
    std::vector<std::string> tokens{command->name};
    tokens.insert(tokens.end(), argv + first_index + words, argv + argc);
    bi::cli::ArgvCopy args(bi::cli::with_global_options(std::move(tokens), globals));
    return run_command(command->name, command->main, args.argc(), args.argv());
}
