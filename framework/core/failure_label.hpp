// A trial's failure mode. The host writes the FailureMode words itself; a scorer labels a
// completion with a word of its own choosing (plugin.h's classify_failure_mode), so the vocabulary
// stays open: a scorer's word that is one of the host's reads as that mode, any other is kept.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "verdict_kinds.hpp"

namespace bi::core {

class FailureLabel {
public:
    FailureLabel() = default;  // no label yet: the request completed and awaits the scorer
    // Implicit, as the host's own modes are labels as they stand.
    FailureLabel(FailureMode mode);
    // A word as a scorer or a record wrote it; "" gives no label.
    static FailureLabel from_word(std::string_view word);

    bool is_set() const { return mode_.has_value() || !scorer_word_.empty(); }
    std::optional<FailureMode> mode() const { return mode_; }  // set for the host's words
    std::string_view word() const;                             // "" when not set

    friend bool operator==(const FailureLabel& a, const FailureLabel& b) {
        return a.word() == b.word();
    }
    friend bool operator!=(const FailureLabel& a, const FailureLabel& b) { return !(a == b); }

private:
    std::optional<FailureMode> mode_;
    std::string scorer_word_;  // a scorer's word that is none of the host's; empty with mode_
};

}  // namespace bi::core
