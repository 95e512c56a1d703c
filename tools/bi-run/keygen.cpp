// bi-run keygen: a new Ed25519 key pair for signing certs (private 0600, public beside it).
#include <cxxopts.hpp>

#include <iostream>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"
#include "trust/signing.hpp"

namespace bi::cli {

CommandOptions keygen_options() {
    cxxopts::Options options(
        "bi-run keygen",
        "Writes a new Ed25519 key pair: KEY (the private key, PEM, mode 0600) and KEY.pub (the\n"
        "public key to hand to readers: verify-cert --trusted-key KEY.pub). Never overwrites.\n\n"
        "Exit status: 0 written, 2 usage error or a file that exists.");
    options.add_options()("out", "Private key file to create", cxxopts::value<std::string>())(
        "h,help", "Show this help");
    return {options, {}};
}

int keygen_main(int argc, char** argv) {
    auto command = keygen_options();
    const auto args = parse_command_line(command.options, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("out")) throw Error(ErrorCategory::Usage, "--out KEY is required");
    const auto path = args["out"].as<std::string>();
    const auto key_id = trust::generate_key_pair(path);
    std::cout << "key " << key_id << ": private " << path << " (0600), public " << path << ".pub\n";
    return kExitPromotable;
}

}  // namespace bi::cli
