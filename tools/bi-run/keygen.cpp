// bi-run keygen: a new Ed25519 key pair for signing certs (private 0600, public beside it).
#include <cxxopts.hpp>

#include <iostream>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "trust/signing.hpp"

namespace bi::cli {

int keygen_main(CommandLine& line, int argc, char** argv) {
    auto command = command_options("keygen");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("out")) throw Error(ErrorCategory::Usage, "--out KEY is required");
    const auto path = args["out"].as<std::string>();
    const auto key_id = trust::generate_key_pair(path);
    std::cout << "key " << key_id << ": private " << path << " (0600), public " << path << ".pub\n";
    return kExitPromotable;
}

}  // namespace bi::cli
