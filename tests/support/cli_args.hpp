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
