#include "failure_label.hpp"

namespace bi::core {

FailureLabel::FailureLabel(FailureMode mode) : mode_(mode) {}

FailureLabel FailureLabel::from_word(std::string_view word) {
    if (const auto mode = parse_failure_mode(word)) return *mode;
    FailureLabel label;
    label.scorer_word_ = std::string(word);
    return label;
}

std::string_view FailureLabel::word() const {
    return mode_ ? name(*mode_) : std::string_view(scorer_word_);
}

}  // namespace bi::core
