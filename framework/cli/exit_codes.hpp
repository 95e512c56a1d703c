// bi-run's exit codes (docs/design.md §11), each with what it means as data: the top-level help
// and the docs' exit-code tables are checked against kExitCodes (tests/cli/exit_codes_cli_test).
#pragma once

#include <array>
#include <string_view>

namespace bi::cli {

inline constexpr int kExitPromotable = 0;
inline constexpr int kExitError = 1;          // an error before a verdict
inline constexpr int kExitUsage = 2;          // bad usage or a refused launch
inline constexpr int kExitNotPromotable = 3;  // a verdict that is not promotable
// Interrupted: 128 + the signal, as shells report it (SIGHUP 129, SIGINT 130, SIGTERM 143).
inline constexpr int kExitSighup = 129;
inline constexpr int kExitSigint = 130;
inline constexpr int kExitSigterm = 143;
inline constexpr int exit_for_signal(int signal_number) {
    return signal_number > 0 ? 128 + signal_number : kExitSigint;
}
// --help, help COMMAND, --version and help --man printed what was asked: no verdict, success.
inline constexpr int kExitHelp = 0;

struct ExitCode {
    int code;
    std::string_view meaning;  // the words every listing of the code uses
    std::string_view signal;   // the signal that interrupted the run; empty for the others
};

// In the order the help and the docs list them.
inline constexpr std::array<ExitCode, 7> kExitCodes{{
    {kExitPromotable, "promotable GREEN", ""},
    {kExitNotPromotable, "a verdict that is not promotable", ""},
    {kExitUsage, "usage error or refused launch", ""},
    {kExitError, "error before a verdict", ""},
    {kExitSighup, "interrupted by", "SIGHUP"},
    {kExitSigint, "interrupted by", "SIGINT"},
    {kExitSigterm, "interrupted by", "SIGTERM"},
}};

}  // namespace bi::cli
