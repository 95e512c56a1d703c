// The status a replaced cert's file wrote, as previous[].status keeps it. The file need not have
// read as a cert, so the word is not always one of the four Status words; it is kept as written.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "verdict_kinds.hpp"

namespace bi::core {

class PreviousStatus {
public:
    PreviousStatus() = default;  // "unknown": JSON without a status string
    // Implicit, as a readable cert's status is the common case and means just that.
    PreviousStatus(Status status);
    static PreviousStatus unreadable();  // "unreadable": the file was not JSON
    // Any word a history entry holds: a Status word, "unknown", "unreadable", or another word
    // (an edited file's), which is kept so that the history says what the file said.
    static PreviousStatus from_word(std::string_view word);

    std::optional<Status> status() const;  // set when the word is one of the Status words
    std::string_view word() const;

    friend bool operator==(const PreviousStatus& a, const PreviousStatus& b) {
        return a.word() == b.word();
    }
    friend bool operator!=(const PreviousStatus& a, const PreviousStatus& b) { return !(a == b); }

private:
    enum class Kind { Unknown, Unreadable, Known, Unlisted };
    Kind kind_ = Kind::Unknown;
    Status status_ = Status::GreenUnverified;  // meaningful for Known only
    std::string unlisted_;                     // the word as written, for Unlisted only
};

}  // namespace bi::core
