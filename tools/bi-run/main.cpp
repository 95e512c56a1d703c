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
#include "cli/command_specs.hpp"
#include "cli/exit_codes.hpp"
#include "cli/manpages.hpp"
#include "cli/option_aliases.hpp"
#include "cli/option_naming.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "core/utf8.hpp"
#include "driver/interrupt.hpp"
#include "io/json_text.hpp"
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
    for (const auto& command : bi::cli::command_specs())
        out << "  " << command.name << std::string(17 - std::strlen(command.name), ' ')
            << command.summary << "\n";
    out << "\nA bare plugin name (libspark.so) is looked up in --plugin-dir, $BI_PLUGIN_PATH, the "
           "bundled\nplugin directory beside bi-run, then the current directory.\n"
           "\nexit status: 0 promotable GREEN, 3 a verdict that is not promotable, 2 usage error "
           "or refused launch,\n1 error before a verdict, 129/130/143 interrupted by "
           "SIGHUP/SIGINT/SIGTERM.\n";
}

// Runs one command, turning whatever it throws into one line on stderr and the exit status; a
// request field is named as the option that sets it, and an option as the user typed it (an
// upstream alias, not the name it stands for).
int run_command(bi::cli::CommandLine& line, const char* name,
                int (*command_main)(bi::cli::CommandLine&, int, char**), int argc, char** argv) {
    const std::string prefix = std::string("bi-run ") + name + ": ";
    line.command = name;
    try {
        return command_main(line, argc, argv);
    } catch (const cxxopts::exceptions::exception& e) {
        std::cerr << prefix << bi::cli::as_typed(bi::cli::ascii_quotes(e.what()), line.aliases)
                  << "\n";
        return bi::cli::kExitUsage;
    } catch (const bi::driver::Interrupted& e) {
        std::cerr << prefix << e.what() << "\n";
        return bi::cli::exit_for_signal(e.signal_number());
    } catch (const bi::Error& e) {
        const std::string message =
            bi::cli::with_options_named(bi::without_bi_prefix(e.what()), line);
        std::cerr << prefix << bi::cli::as_typed(bi::cli::ascii_quotes(message), line.aliases)
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
    for (const auto& command : bi::cli::command_specs())
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

// Arguments end up in certs (flags, paths, names), and a cert is JSON text: UTF-8 only. Says
// which argument is not.
bool arguments_are_utf8(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (const auto bad = bi::core::first_invalid_utf8(argv[i])) {
            std::cerr << "bi-run: argument " << i << " is not valid UTF-8 (byte " << *bad << ")\n";
            return false;
        }
    return true;
}

// The argument after argv[at], or "" when there is none.
std::string_view next_argument(int argc, char** argv, int at) {
    return at + 1 < argc ? std::string_view(argv[at + 1]) : std::string_view();
}

// bi-run with global options and no command: what the plugins offer.
int describe_plugins(bi::cli::CommandLine& line, const bi::cli::GlobalOptions& globals) {
    if (globals.plugins.empty()) {
        print_usage(std::cerr);
        return bi::cli::kExitUsage;
    }
    bi::cli::ArgvCopy args(bi::cli::with_global_options({"plugins", "--describe"}, globals));
    return run_command(line, "plugins", bi::cli::plugins_main, args.argc(), args.argv());
}

// bi-run help --man DIR (argv[at] is "help").
int write_man_pages(int argc, char** argv, int at) {
    if (at + 3 != argc) {
        std::cerr << "bi-run help --man: name one directory to write the man pages into\n";
        return bi::cli::kExitUsage;
    }
    std::ostringstream usage;
    print_usage(usage);
    try {
        for (const auto& file :
             bi::cli::write_man_pages(argv[at + 2], usage.str(), BI_VERSION_STRING))
            std::cout << file << "\n";
    } catch (const bi::Error& e) {
        std::cerr << "bi-run help --man: " << e.what() << "\n";
        return bi::cli::kExitError;
    }
    return bi::cli::kExitHelp;
}

// bi-run help COMMAND (argv[at] names it): the command's own --help, or a group's usage.
int help_for(bi::cli::CommandLine& line, int argc, char** argv, int at) {
    int words = 1;
    const bi::cli::Command* command = named_command(argc, argv, at, words);
    if (command) {
        bi::cli::ArgvCopy args({command->name, "--help"});
        return run_command(line, command->name, command->main, args.argc(), args.argv());
    }
    if (const auto* group = bi::cli::find_group(argv[at])) {
        print_group_usage(*group, std::cout);
        return bi::cli::kExitHelp;
    }
    std::cerr << "bi-run help: unknown command '" << argv[at] << "' (see bi-run --help)\n";
    return bi::cli::kExitUsage;
}

// bi-run -h, --help or help [COMMAND] (argv[at] is the first of them).
int help(bi::cli::CommandLine& line, int argc, char** argv, int at) {
    if (std::string_view(argv[at]) == "help" && at + 1 < argc)
        return help_for(line, argc, argv, at + 1);
    print_usage(std::cout);
    return bi::cli::kExitHelp;
}

// bi-run --version [--json] (argv[at] is --version or -V).
int version(int argc, char** argv, int at) {
    const bool json = next_argument(argc, argv, at) == "--json";
    if (at + (json ? 2 : 1) != argc) {
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

// argv[at] names no command: a group's usage (asked for, or with an unknown second word), or an
// unknown command.
int no_command(int argc, char** argv, int at) {
    const std::string_view first = argv[at];
    const auto* group = bi::cli::find_group(first);
    if (!group) {
        std::cerr << "bi-run: unknown command '" << first << "' (see bi-run --help)\n";
        return bi::cli::kExitUsage;
    }
    const auto next = next_argument(argc, argv, at);
    const bool asked = next == "--help" || next == "-h";
    if (!asked && at + 1 < argc)
        std::cerr << "bi-run " << first << ": unknown command '" << next << "'\n";
    print_group_usage(*group, asked ? std::cout : std::cerr);
    return asked ? bi::cli::kExitHelp : bi::cli::kExitUsage;
}

// Runs the command argv[at] names with the arguments after it and the global options.
int dispatch(bi::cli::CommandLine& line, int argc, char** argv, int at,
             const bi::cli::GlobalOptions& globals) {
    int words = 1;
    const bi::cli::Command* command = named_command(argc, argv, at, words);
    if (!command) return no_command(argc, argv, at);
    if (!bi::cli::command_spec(command->name).loads_plugins && !globals.empty()) {
        std::cerr << "bi-run " << command->name << ": --plugin and --plugin-dir: this command "
                  << "loads no plugins\n";
        return bi::cli::kExitUsage;
    }
    std::vector<std::string> tokens{command->name};
    tokens.insert(tokens.end(), argv + at + words, argv + argc);
    bi::cli::ArgvCopy args(bi::cli::with_global_options(std::move(tokens), globals));
    return run_command(line, command->name, command->main, args.argc(), args.argv());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        print_usage(std::cerr);
        return bi::cli::kExitUsage;
    }
    if (!arguments_are_utf8(argc, argv)) return bi::cli::kExitUsage;
    // The one record of this command line: the cert's provenance and the aliases typed.
    bi::cli::CommandLine line{{argv, argv + argc}, {}, {}};
    // The driver's notes and progress, with its request fields named as the options that set them.
    bi::cli::OptionNamingStream notes(std::cerr, line);
    line.notes = &notes;
    bi::cli::GlobalOptions globals;
    int at = 1;
    try {
        at = bi::cli::read_global_options(argc, argv, globals);
    } catch (const bi::Error& e) {
        std::cerr << "bi-run: " << e.what() << "\n";
        return bi::cli::kExitUsage;
    }
    if (at >= argc) return describe_plugins(line, globals);
    const std::string_view first = argv[at];
    if (first == "help" && next_argument(argc, argv, at) == "--man")
        return write_man_pages(argc, argv, at);
    if (first == "-h" || first == "--help" || first == "help") return help(line, argc, argv, at);
    if (first == "--version" || first == "-V") return version(argc, argv, at);
    return dispatch(line, argc, argv, at, globals);
}
