// The verdict's closed vocabularies as enums, each with one name table (the cert's words).
// Code dispatches on the enums with exhaustive switches; text appears only where it is written.
#pragma once

#include <optional>
#include <string_view>

namespace bi::core {

enum class Status { Green, Failed, GreenWithCaveat, GreenUnverified };

enum class DivergenceClass {
    SerialNondeterminism,
    CoBatching,
    SlotAllocation,
    SlotAllocationAndCoBatching,
    // A and B agreed but B was no slot-allocation control (unpinned, or the server ignored its
    // pins): co-batching or the slot a request landed on, not told apart.
    CoBatchingOrSlotAllocation
};

enum class Anomaly { AcAgreeBDisagrees, TokenOnly, TokenAndLogitDrift, LogitDrift };

// Where a cert came from; decided by the driver, never typed by the user.
enum class Source { Mock, Live };

// The host-assigned failure modes of a trial. Scorers add labels of their own (open
// vocabulary), so a trial keeps a FailureLabel (failure_label.hpp); these are the host's words.
enum class FailureMode {
    Ok,
    Empty,
    PrematureEos,
    HttpTimeout,
    HttpError,
    ServerDied,
    Oom,
    BadResponse,
    ScorerError,
    Incomplete,  // never sent, or cut off by bi-run itself (arm deadline, interrupt)
};

std::string_view name(Status status);
std::string_view name(DivergenceClass divergence_class);
std::string_view name(Anomaly anomaly);
std::string_view name(Source source);
std::string_view name(FailureMode mode);

// The inverse of name(); nullopt for a word that is not in the table.
std::optional<Status> parse_status(std::string_view text);
std::optional<DivergenceClass> parse_divergence_class(std::string_view text);
std::optional<Anomaly> parse_anomaly(std::string_view text);
std::optional<Source> parse_source(std::string_view text);
std::optional<FailureMode> parse_failure_mode(std::string_view text);

}  // namespace bi::core
