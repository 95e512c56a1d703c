// What verify-cert says about one judged file: the lines a person reads (the verdict or the
// reason the file is invalid first, then its model, gates, cache check, signature and every
// reason it is not promotable), the one problem line for stderr, and the outcome the exit status
// follows (the verdict's: a cache check never changes it).
#pragma once

#include <string>

#include "trust/judge.hpp"

namespace bi::report {

enum class VerificationOutcome {
    Promotable,     // exit 0
    NotPromotable,  // exit 3
    Invalid,        // exit 1: unreadable, not a cert, edited, inconsistent, a bad signature
};

struct Verification {
    VerificationOutcome outcome = VerificationOutcome::Invalid;
    std::string text;              // stdout; lines end in '\n'
    std::string problem;           // one line for stderr, or ""
    bool problem_is_note = false;  // the problem is a note ("note: ..."), not an error
};

Verification verification(const trust::Judgement& judgement, const trust::JudgeOptions& options);

}  // namespace bi::report
