// bi-run's exit codes (docs/design.md §11).
#pragma once

namespace bi::cli {

inline constexpr int kExitPromotable = 0;
inline constexpr int kExitError = 1;          // an error before a verdict
inline constexpr int kExitUsage = 2;          // bad usage or a refused launch
inline constexpr int kExitNotPromotable = 3;  // a verdict that is not promotable
// Interrupted: 128 + the signal, as shells report it (SIGHUP 129, SIGINT 130, SIGTERM 143).
inline constexpr int kExitSigint = 130;
inline constexpr int exit_for_signal(int signal_number) {
    return signal_number > 0 ? 128 + signal_number : kExitSigint;
}

}  // namespace bi::cli
