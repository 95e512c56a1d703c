// bi-run attest: one cert as an in-toto Statement v1 (test-result predicate) in a DSSE
// envelope, signed with the cert's key when --sign-key (or $BI_SIGN_KEY) is given.
#include <cxxopts.hpp>

#include <filesystem>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "commands.hpp"
#include "core/cert.hpp"
#include "core/error.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "provenance.hpp"
#include "trust/attestation.hpp"
#include "trust/judge.hpp"
#include "trust_options.hpp"

namespace bi::cli {

int attest_main(CommandLine& line, int argc, char** argv) {
    auto command = command_options("attest");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("cert") || args["cert"].as<std::vector<std::string>>().size() != 1)
        throw Error(ErrorCategory::Usage, "name exactly one cert file");
    if (!args.count("out")) throw Error(ErrorCategory::Usage, "--out FILE is required");
    const auto key =
        signing_key_option(args.count("sign-key") ? args["sign-key"].as<std::string>() : "");
    const auto path = args["cert"].as<std::vector<std::string>>().front();
    const trust::Judgement judgement = trust::judge(path, judge_options(args));
    // Read as verify-cert and report read it: shown for what it is, never PASSED.
    if (judgement.kind == trust::FileKind::Upstream)
        std::cerr << "bi-run attest: note: " << judgement.problem << "\n";
    const core::Json statement =
        trust::attestation_of(judgement, std::filesystem::path(path).filename().string());
    const auto out = args["out"].as<std::string>();
    io::write_file_atomically(
        out, io::to_json_text(trust::dsse_envelope(statement, key.get()), true) + "\n");
    std::cout << out << ": in-toto statement, result "
              << statement.find("predicate")->string_or("result", "?") << ", "
              << statement.find("subject")->size() << " subject(s), "
              << (key ? "signed by " + key->key_id() : std::string("unsigned")) << "\n";
    for (const auto& reason : judgement.promotion.reasons) std::cout << "  - " << reason << "\n";
    return kExitPromotable;
}

}  // namespace bi::cli
