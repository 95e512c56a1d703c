// bi-run's exit codes (DESIGN.md §9).
#pragma once

namespace bi::cli {

inline constexpr int kExitPromotable = 0;
inline constexpr int kExitError = 1;          // an error before a verdict
inline constexpr int kExitUsage = 2;          // bad usage or a refused launch
inline constexpr int kExitNotPromotable = 3;  // a verdict that is not promotable
inline constexpr int kExitSigint = 130;
inline constexpr int kExitSigterm = 143;

}  // namespace bi::cli
