// Building bi-run command lines in tests that run the binary: bi-run from the build's bin/ in
// front, and argument lists joined.
#pragma once

#include <regex>
#include <sstream>
#include <string>
#include <vector>
#include "built_paths.hpp"

namespace bi::testing {

inline std::vector<std::string> bi_run(std::vector<std::string> args) {
    args.insert(args.begin(), built_file("bi-run"));
    return args;
}

inline std::vector<std::string> operator+(std::vector<std::string> a,
                                          const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// A run-live cell of N 2 at ctx 512, one pass, quiet, on bi-mock-server launched as if it were a
// real server: `model` (any file) under the alias m, its cert in `out_dir`/m__ctx512__N2.json.
// Callers append what their case varies.
inline std::vector<std::string> mock_server_cell(const std::string& model,
                                                 const std::string& out_dir,
                                                 const std::string& workset, int n_predict) {
    return {"run-live",
            "--server-bin",
            built_file("bi-mock-server"),
            "--model",
            model,
            "--model-alias",
            "m",
            "--out-dir",
            out_dir,
            "--workset",
            workset,
            "--ctx",
            "512",
            "--parallel",
            "2",
            "--passes",
            "1",
            "--n-predict",
            std::to_string(n_predict),
            "--quiet"};
}

// The command names a `bi-run --help` text lists, in its order.
inline std::vector<std::string> listed_commands(const std::string& usage) {
    std::vector<std::string> names;
    std::istringstream lines(usage.substr(usage.find("commands:\n") + 10));
    std::string line;
    // A group's commands are two words ("baseline record"), one space apart.
    const std::regex row("^  ([a-z][a-z-]*(?: [a-z][a-z-]*)?)  +.*");
    std::smatch match;
    while (std::getline(lines, line) && !line.empty())
        if (std::regex_match(line, match, row)) names.push_back(match[1]);
    return names;
}

}  // namespace bi::testing
