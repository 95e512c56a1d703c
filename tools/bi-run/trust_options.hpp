// Whom and what a reader trusts, as options: --trusted-key in every command that judges cert
// files (verify-cert, report, attest), so that they agree; --require-signature, --expect and
// --expect-deployment where a verdict is promoted (verify-cert).
#pragma once

#include <cxxopts.hpp>

#include "trust/judge.hpp"

namespace bi::cli {

// The judge's options from whichever of those the command took; bi::Error(Usage) naming the
// option for a key file, expectation or deployment file that cannot be used.
trust::JudgeOptions judge_options(const cxxopts::ParseResult& args);

}  // namespace bi::cli
