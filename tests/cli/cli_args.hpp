// Building bi-run command lines in CLI tests: the binary in front, and argument lists joined.
#pragma once

#include <string>
#include <vector>

namespace bi::testing {

inline std::vector<std::string> bi_run(std::vector<std::string> args) {
    args.insert(args.begin(), BI_RUN_PATH);
    return args;
}

inline std::vector<std::string> operator+(std::vector<std::string> a,
                                          const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

}  // namespace bi::testing
