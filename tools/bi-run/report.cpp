// bi-run report: one table over many certs (a sweep's directory, say): cell, verdict, source,
// promotable, divergent ids and the sensitivity bound.
#include <cxxopts.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/cert.hpp"
#include "core/cert_consistency.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"
#include "io/cert_io.hpp"
#include "io/json_text.hpp"
#include "plan_status.hpp"

namespace bi::cli {

namespace {

// Directories stand for the *.json files directly inside them, in name order.
std::vector<std::string> expand(const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    for (const auto& path : paths) {
        if (!std::filesystem::is_directory(path)) {
            files.push_back(path);
            continue;
        }
        std::vector<std::string> inside;
        for (const auto& entry : std::filesystem::directory_iterator(path))
            if (entry.is_regular_file() && entry.path().extension() == ".json")
                inside.push_back(entry.path().string());
        std::sort(inside.begin(), inside.end());
        files.insert(files.end(), inside.begin(), inside.end());
    }
    return files;
}

std::string bound(const core::Cert& cert) {
    const auto& cp = cert.sensitivity.clopper_pearson_upper_95;
    if (!cp) return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4f", *cp);
    return buffer;
}

// The paths named, else (with --plan) the plan's directory.
std::vector<std::string> report_paths(const cxxopts::ParseResult& args) {
    if (args.count("paths")) return args["paths"].as<std::vector<std::string>>();
    return {plan_out_dir(args["plan"].as<std::string>())};
}

// The plan's cells without a cert, over the first directory reported; on stderr with --json,
// so stdout stays one JSON document.
void print_plan_section(const cxxopts::ParseResult& args, bool json) {
    std::string dir;
    for (const auto& path : report_paths(args))
        if (dir.empty() && std::filesystem::is_directory(path)) dir = path;
    print_plan_status(args["plan"].as<std::string>(), dir, json ? std::cerr : std::cout);
}

}  // namespace

int report_main(int argc, char** argv) {
    cxxopts::Options options("bi-run report",
                             "Summarises certs (files, or directories of *.json) in one table.\n\n"
                             "Exit status: 0 when every file was a readable cert that agrees with "
                             "itself, 1 otherwise.");
    options.positional_help("CERT.json|DIR... (with --plan: default the plan's directory)");
    options.add_options()("json", "One JSON array on stdout")("h,help", "Show this help")(
        "plan", "Also state this plan's id and list its cells that have no cert yet",
        cxxopts::value<std::string>())("paths", "Certs or directories",
                                       cxxopts::value<std::vector<std::string>>());
    options.parse_positional({"paths"});
    const auto args = parse_command_line(options, argc, argv);
    if (args.count("help")) {
        std::cout << options.help() << "\n";
        return kExitPromotable;
    }
    if (!args.count("paths") && !args.count("plan"))
        throw Error(ErrorCategory::Usage, "report: name certs or directories");

    int code = kExitPromotable;
    core::Json rows = core::Json::array();
    const bool json = args.count("json") > 0;
    if (!json)
        std::printf("%-32s %7s %4s  %-38s %-6s %-10s %8s %s\n", "model", "ctx", "N", "verdict",
                    "source", "promotable", "diverged", "cp95");
    for (const auto& path : expand(report_paths(args))) {
        io::LoadedCert loaded;
        try {
            loaded = io::read_cert(path);
        } catch (const Error& e) {
            std::cerr << "bi-run report: " << e.what() << "\n";
            code = kExitError;
            continue;
        }
        if (!loaded.shape_problem.empty()) {
            std::cerr << "bi-run report: " << path << ": not a cert: " << loaded.shape_problem
                      << "\n";
            code = kExitError;
            continue;
        }
        const core::Cert& c = loaded.cert;
        if (const auto disagreements = core::cert_disagreements(c); !disagreements.empty()) {
            std::cerr << "bi-run report: " << path
                      << ": the cert disagrees with itself: " << disagreements.front() << "\n";
            code = kExitError;
            continue;
        }
        const bool promotable = core::check_promotable(c, loaded.digest_intact).promotable;
        const std::string status(core::name(c.verdict.status));
        const std::string source(core::name(c.source));
        std::string verdict =
            core::verdict_summary(c.verdict.status, c.verdict.divergence_class, c.verdict.anomaly);
        if (!loaded.digest_intact) verdict += " [DIGEST MISMATCH]";
        const auto diverged = c.divergence.ac.divergent_ids.size();
        if (json) {
            rows.push_back(core::Json::Object{{"path", path},
                                              {"model", c.cell.model},
                                              {"ctx", c.cell.ctx},
                                              {"dispatch_n", c.cell.dispatch_n},
                                              {"status", status},
                                              {"source", source},
                                              {"promotable", promotable},
                                              {"digest_intact", loaded.digest_intact},
                                              {"n_divergent", diverged}});
            continue;
        }
        std::printf("%-32s %7lld %4lld  %-38s %-6s %-10s %8zu %s\n", c.cell.model.c_str(),
                    static_cast<long long>(c.cell.ctx), static_cast<long long>(c.cell.dispatch_n),
                    verdict.c_str(), source.c_str(), promotable ? "yes" : "no", diverged,
                    bound(c).c_str());
    }
    if (json) std::cout << io::to_json_text(rows) << std::endl;
    std::fflush(stdout);
    if (args.count("plan")) print_plan_section(args, json);
    return code;
}

}  // namespace bi::cli
