#include "verdict_kinds.hpp"

#include <array>
#include <utility>

namespace bi::core {

namespace {

template <typename Enum, std::size_t N>
using NameTable = std::array<std::pair<Enum, std::string_view>, N>;

constexpr NameTable<Status, 4> kStatusNames{{
    {Status::Green, "green"},
    {Status::Failed, "failed"},
    {Status::GreenWithCaveat, "green_with_caveat"},
    {Status::GreenUnverified, "green_unverified"},
}};

constexpr NameTable<DivergenceClass, 5> kDivergenceClassNames{{
    {DivergenceClass::SerialNondeterminism, "serial_nondeterminism"},
    {DivergenceClass::CoBatching, "co_batching"},
    {DivergenceClass::SlotAllocation, "slot_allocation"},
    {DivergenceClass::SlotAllocationAndCoBatching, "slot_allocation+co_batching"},
    {DivergenceClass::CoBatchingOrSlotAllocation, "co_batching_or_slot_allocation"},
}};

constexpr NameTable<Anomaly, 4> kAnomalyNames{{
    {Anomaly::AcAgreeBDisagrees, "AC_agree_B_disagrees"},
    {Anomaly::TokenOnly, "token_only"},
    {Anomaly::TokenAndLogitDrift, "token_and_logit_drift"},
    {Anomaly::LogitDrift, "logit_drift"},
}};

constexpr NameTable<Source, 2> kSourceNames{{
    {Source::Mock, "mock"},
    {Source::Live, "live"},
}};

constexpr NameTable<FailureMode, 10> kFailureModeNames{{
    {FailureMode::Ok, "ok"},
    {FailureMode::Empty, "empty"},
    {FailureMode::PrematureEos, "premature_eos"},
    {FailureMode::HttpTimeout, "http_timeout"},
    {FailureMode::HttpError, "http_error"},
    {FailureMode::ServerDied, "server_died"},
    {FailureMode::Oom, "oom"},
    {FailureMode::BadResponse, "bad_response"},
    {FailureMode::ScorerError, "scorer_error"},
    {FailureMode::Incomplete, "incomplete"},
}};

template <typename Enum, std::size_t N>
std::string_view lookup(const NameTable<Enum, N>& table, Enum value) {
    for (const auto& [key, text] : table)
        if (key == value) return text;
    return "?";  // unreachable while every table lists every enumerator
}

template <typename Enum, std::size_t N>
std::optional<Enum> reverse_lookup(const NameTable<Enum, N>& table, std::string_view text) {
    for (const auto& [key, word] : table)
        if (word == text) return key;
    return std::nullopt;
}

}  // namespace

std::string_view name(Status status) {
    return lookup(kStatusNames, status);
}
std::string_view name(DivergenceClass c) {
    return lookup(kDivergenceClassNames, c);
}
std::string_view name(Anomaly anomaly) {
    return lookup(kAnomalyNames, anomaly);
}
std::string_view name(Source source) {
    return lookup(kSourceNames, source);
}
std::string_view name(FailureMode mode) {
    return lookup(kFailureModeNames, mode);
}

std::optional<Status> parse_status(std::string_view text) {
    return reverse_lookup(kStatusNames, text);
}
std::optional<DivergenceClass> parse_divergence_class(std::string_view text) {
    return reverse_lookup(kDivergenceClassNames, text);
}
std::optional<Anomaly> parse_anomaly(std::string_view text) {
    return reverse_lookup(kAnomalyNames, text);
}
std::optional<Source> parse_source(std::string_view text) {
    return reverse_lookup(kSourceNames, text);
}
std::optional<FailureMode> parse_failure_mode(std::string_view text) {
    return reverse_lookup(kFailureModeNames, text);
}

}  // namespace bi::core
