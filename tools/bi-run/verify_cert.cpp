// bi-run verify-cert: re-checks certs on disk and explains every reason one is not promotable.
#include <cxxopts.hpp>

#include <iostream>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/cert.hpp"
#include "core/cert_consistency.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"
#include "io/cert_io.hpp"
#include "verdict_headline.hpp"

namespace bi::cli {

namespace {

// Returns the exit code for one file: 0 promotable, 3 not promotable, 1 unusable (a cert that
// disagrees with itself is unusable: its digest was recomputed over an edited verdict).
int verify_loaded(const std::string& path) {
    io::LoadedCert loaded;
    try {
        loaded = io::read_cert(path);
    } catch (const Error& e) {
        std::cout << path << ": INVALID\n";
        std::cerr << "bi-run: " << e.what() << "\n";
        return kExitError;
    }
    if (!loaded.shape_problem.empty()) {
        std::cout << path << ": INVALID\n";
        std::cerr << "bi-run: " << path << ": not a cert: " << loaded.shape_problem << "\n";
        return kExitError;
    }
    const core::Cert& cert = loaded.cert;
    if (loaded.digest_intact) {
        const auto disagreements = core::cert_disagreements(cert);
        if (!disagreements.empty()) {
            std::cout << path << ": INVALID\n";
            std::cerr << "bi-run: " << path
                      << ": the cert disagrees with itself: " << disagreements.front() << "\n";
            return kExitError;
        }
    }
    const auto promotion = core::check_promotable(cert, loaded.digest_intact);
    const auto& gates = cert.gates;
    const auto& v = cert.verdict;
    std::cout << path << ": "
              << verdict_headline(v.status, v.divergence_class, v.anomaly, promotion.promotable)
              << (promotion.promotable || v.status == core::Status::Green ? "" : ", not promotable")
              << "\n"
              << "  model " << cert.cell.model << ", ctx " << cert.cell.ctx << ", N "
              << cert.cell.dispatch_n << ", source " << core::name(cert.source) << ", gate "
              << cert.gate << "\n"
              << "  overlap " << (gates.overlap.ok ? "ok" : "NOT ok") << ", completion floor "
              << (gates.completion_floor.ok ? "ok" : "NOT ok") << ", co-batch coverage "
              << (gates.cobatch_coverage.ok ? "ok" : "NOT ok") << ", digest "
              << (loaded.digest_intact ? "intact" : "MISMATCH") << "\n";
    for (const auto& reason : promotion.reasons) std::cout << "  - " << reason << "\n";
    if (!loaded.digest_intact) {
        std::cerr << "bi-run: " << path << ": digest mismatch: the cert was edited or corrupted\n";
        return kExitError;
    }
    return promotion.promotable ? kExitPromotable : kExitNotPromotable;
}

// Anything that goes wrong while judging one file names that file and marks it INVALID.
int verify_one(const std::string& path) {
    try {
        return verify_loaded(path);
    } catch (const Error& e) {
        std::cout << path << ": INVALID\n";
        std::cerr << "bi-run: " << path << ": " << e.what() << "\n";
        return kExitError;
    }
}

}  // namespace

int verify_cert_main(int argc, char** argv) {
    cxxopts::Options options(
        "bi-run verify-cert",
        "Re-check certs: prints each verdict, its source and gates, and every "
        "reason a cert is not promotable.\n\nExit status: 0 when every cert is "
        "promotable, 3 when any is not, 1 when any file is missing, unreadable, "
        "not JSON, not a cert, fails its digest check, or disagrees with itself (its "
        "status, source or gates are not what its own evidence gives), 2 usage error.");
    options.positional_help("CERT.json...");
    options.add_options("Output")("h,help", "Show this help");
    options.add_options("Positional")("certs", "Cert files",
                                      cxxopts::value<std::vector<std::string>>());
    options.parse_positional({"certs"});
    const auto args = parse_command_line(options, argc, argv);
    if (args.count("help")) {
        std::cout << options.help({"", "Output"}) << "\n";
        return kExitPromotable;
    }
    if (!args.count("certs")) throw Error(ErrorCategory::Usage, "name at least one cert file");

    int worst = kExitPromotable;
    for (const auto& path : args["certs"].as<std::vector<std::string>>()) {
        const int code = verify_one(path);
        if (code == kExitError || (code == kExitNotPromotable && worst == kExitPromotable))
            worst = code;
    }
    return worst;
}

}  // namespace bi::cli
