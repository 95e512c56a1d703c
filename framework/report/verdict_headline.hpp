// The verdict as a person reads it first: one word (GREEN, RED, AMBER, UNVERIFIED), then the
// cert's own words in parentheses. Every human-readable line bi-run prints about a verdict
// starts with it; JSON output keeps the cert's words alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/verdict_kinds.hpp"

namespace bi::report {

// GREEN for green, RED for failed, AMBER for green_with_caveat, UNVERIFIED for green_unverified.
std::string_view verdict_word(core::Status status);

// "GREEN (promotable)", "GREEN (green, not promotable)", "RED (failed, co_batching)",
// "AMBER (green_with_caveat: token_only)", "UNVERIFIED (green_unverified)".
std::string verdict_headline(core::Status status,
                             const std::optional<core::DivergenceClass>& divergence_class,
                             const std::optional<core::Anomaly>& anomaly, bool promotable);

}  // namespace bi::report
