// The verdict as a person reads it first: one word (GREEN, RED, AMBER, UNVERIFIED), then the
// cert's own words in parentheses. Every human-readable line bi-run prints about a verdict
// starts with it; JSON output keeps the cert's words alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/verdict_kinds.hpp"
#include "trust/upstream_cert.hpp"

namespace bi::report {

// GREEN for green, RED for failed, AMBER for green_with_caveat, UNVERIFIED for green_unverified.
std::string_view verdict_word(core::Status status);

// How much a verdict asks of its reader, the most severe highest: RED 3, UNVERIFIED 2, AMBER 1,
// GREEN 0. Where certs disagree about one cell, every format shows the highest.
int verdict_rank(core::Status status);

// "GREEN (promotable)", "GREEN (green, not promotable)", "RED (failed, co_batching)",
// "AMBER (green_with_caveat: token_only)", "UNVERIFIED (green_unverified)".
std::string verdict_headline(core::Status status,
                             const std::optional<core::DivergenceClass>& divergence_class,
                             const std::optional<core::Anomaly>& anomaly, bool promotable);

// The same from a cert's own words, for a vocabulary that is not ours (an upstream cert's
// "slot_allocation(+co_batching)"); "" stands for null.
std::string verdict_headline_words(core::Status status, std::string_view divergence_class,
                                   std::string_view anomaly, bool promotable);

// An upstream cert's headline in its own words; never promotable here.
std::string upstream_headline(const trust::UpstreamCert& cert);

}  // namespace bi::report
