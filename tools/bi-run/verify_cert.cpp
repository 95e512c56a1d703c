// bi-run verify-cert: re-checks certs on disk and explains every reason one is not promotable;
// with trusted keys it checks who signed them, with expectations for which deployment. It also
// reads in-toto envelopes written by attest and certs of the upstream Python tool.
#include <cxxopts.hpp>

#include <iostream>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "report/verification_text.hpp"
#include "trust/judge.hpp"
#include "trust_options.hpp"

namespace bi::cli {

namespace {

// Prints one file's verification; returns its exit code.
int verify_one(const std::string& path, const trust::JudgeOptions& o) {
    const auto v = report::verification(trust::judge(path, o), o);
    std::cout << v.text << std::flush;
    if (!v.problem.empty())
        std::cerr << "bi-run: " << (v.problem_is_note ? "note: " : "") << v.problem << "\n";
    switch (v.outcome) {
        case report::VerificationOutcome::Promotable:
            return kExitPromotable;
        case report::VerificationOutcome::NotPromotable:
            return kExitNotPromotable;
        case report::VerificationOutcome::Invalid:
            break;
    }
    return kExitError;
}

}  // namespace

int verify_cert_main(CommandLine& line, int argc, char** argv) {
    auto command = command_options("verify-cert");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("certs")) throw Error(ErrorCategory::Usage, "name at least one cert file");
    const trust::JudgeOptions o = judge_options(args);

    int worst = kExitPromotable;
    for (const auto& path : args["certs"].as<std::vector<std::string>>()) {
        const int code = verify_one(path, o);
        if (code == kExitError || (code == kExitNotPromotable && worst == kExitPromotable))
            worst = code;
    }
    return worst;
}

}  // namespace bi::cli
