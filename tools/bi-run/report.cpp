// bi-run report: one table over many certs (a sweep's directory, say): cell, verdict, source,
// promotable, divergent ids and the sensitivity bound.
#include <cxxopts.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "commands.hpp"
#include "core/cert.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"
#include "io/cert_io.hpp"
#include "io/json_text.hpp"

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

std::string bound(const core::Json& cert) {
    const core::Json* s = cert.find("sensitivity");
    const core::Json* cp = s ? s->find("clopper_pearson_upper_95") : nullptr;
    if (!cp || !cp->is_number()) return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4f", cp->as_double());
    return buffer;
}

}  // namespace

int report_main(int argc, char** argv) {
    cxxopts::Options options("bi-run report",
                             "Summarises certs (files, or directories of *.json) in one table.\n\n"
                             "Exit status: 0 when every file was a readable cert, 1 otherwise.");
    options.positional_help("CERT.json|DIR...");
    options.add_options()("json", "One JSON array on stdout")("h,help", "Show this help")(
        "paths", "Certs or directories", cxxopts::value<std::vector<std::string>>());
    options.parse_positional({"paths"});
    const auto args = options.parse(argc, argv);
    if (args.count("help")) {
        std::cout << options.help() << "\n";
        return kExitPromotable;
    }
    if (!args.count("paths")) throw Error(ErrorCategory::Usage, "report: name certs or directories");

    int code = kExitPromotable;
    core::Json rows = core::Json::array();
    const bool json = args.count("json") > 0;
    if (!json)
        std::printf("%-32s %7s %4s  %-38s %-6s %-10s %8s %s\n", "model", "ctx", "N", "verdict",
                    "source", "promotable", "diverged", "cp95");
    for (const auto& path : expand(args["paths"].as<std::vector<std::string>>())) {
        io::LoadedCert loaded;
        try {
            loaded = io::read_cert(path);
        } catch (const Error& e) {
            std::cerr << "bi-run report: " << e.what() << "\n";
            code = kExitError;
            continue;
        }
        if (!loaded.shape_problem.empty()) {
            std::cerr << "bi-run report: " << path << ": not a cert: " << loaded.shape_problem << "\n";
            code = kExitError;
            continue;
        }
        const auto& c = loaded.cert;
        const bool promotable = core::check_promotable(c, loaded.digest_intact).promotable;
        std::string verdict = c.string_or("status", "?");
        for (const char* key : {"divergence_class", "anomaly"})
            if (const core::Json* v = c.find(key); v && v->is_string()) verdict += " (" + v->as_string() + ")";
        if (!loaded.digest_intact) verdict += " [DIGEST MISMATCH]";
        const auto diverged = c.find("mismatch")->size();
        if (json) {
            rows.push_back(core::Json::Object{{"path", path},
                                              {"model", c.string_or("model", "")},
                                              {"ctx", c.int_or("ctx", 0)},
                                              {"dispatch_n", c.int_or("dispatch_n", 0)},
                                              {"status", c.string_or("status", "")},
                                              {"source", c.string_or("source", "")},
                                              {"promotable", promotable},
                                              {"digest_intact", loaded.digest_intact},
                                              {"n_divergent", diverged}});
            continue;
        }
        std::printf("%-32s %7lld %4lld  %-38s %-6s %-10s %8zu %s\n", c.string_or("model", "?").c_str(),
                    static_cast<long long>(c.int_or("ctx", 0)),
                    static_cast<long long>(c.int_or("dispatch_n", 0)), verdict.c_str(),
                    c.string_or("source", "?").c_str(), promotable ? "yes" : "no", diverged,
                    bound(c).c_str());
    }
    if (json) std::cout << io::to_json_text(rows) << std::endl;
    std::fflush(stdout);
    return code;
}

}  // namespace bi::cli
