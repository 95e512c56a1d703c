#include "previous_status.hpp"

namespace bi::core {

namespace {
constexpr std::string_view kUnknown = "unknown";
constexpr std::string_view kUnreadable = "unreadable";
}  // namespace

PreviousStatus::PreviousStatus(Status status) : kind_(Kind::Known), status_(status) {}

PreviousStatus PreviousStatus::unreadable() {
    PreviousStatus s;
    s.kind_ = Kind::Unreadable;
    return s;
}

PreviousStatus PreviousStatus::from_word(std::string_view word) {
    if (const auto status = parse_status(word)) return *status;
    if (word == kUnreadable) return unreadable();
    PreviousStatus s;
    if (word == kUnknown) return s;
    s.kind_ = Kind::Unlisted;
    s.unlisted_ = std::string(word);
    return s;
}

std::optional<Status> PreviousStatus::status() const {
    if (kind_ == Kind::Known) return status_;
    return std::nullopt;
}

std::string_view PreviousStatus::word() const {
    switch (kind_) {
        case Kind::Unknown:
            return kUnknown;
        case Kind::Unreadable:
            return kUnreadable;
        case Kind::Known:
            return name(status_);
        case Kind::Unlisted:
            return unlisted_;
    }
    return kUnknown;  // unreachable while the switch lists every kind
}

}  // namespace bi::core
