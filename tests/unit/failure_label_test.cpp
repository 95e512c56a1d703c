// A trial's failure label: the host's modes as an enum, a scorer's own words kept as written.
#include <catch2/catch.hpp>

#include "core/failure_label.hpp"
#include "core/trial.hpp"

using namespace bi;
using core::FailureLabel;
using core::FailureMode;

TEST_CASE("a host mode is a label with the cert's word", "[failure_label]") {
    const FailureLabel timeout = FailureMode::HttpTimeout;
    CHECK(timeout.is_set());
    CHECK(timeout.mode() == FailureMode::HttpTimeout);
    CHECK(timeout.word() == "http_timeout");
    CHECK(FailureLabel(FailureMode::Ok).word() == "ok");
}

TEST_CASE("a scorer's word reads as the host's mode when it is one, else stays as written",
          "[failure_label]") {
    CHECK(FailureLabel::from_word("ok") == FailureMode::Ok);
    CHECK(FailureLabel::from_word("ok").mode() == FailureMode::Ok);
    const auto own = FailureLabel::from_word("no_valid_json");
    CHECK(own.is_set());
    CHECK_FALSE(own.mode());
    CHECK(own.word() == "no_valid_json");
    CHECK(own != FailureMode::Ok);
    CHECK(own == FailureLabel::from_word("no_valid_json"));
    CHECK(FailureLabel::from_word("OK").word() == "OK");  // no folding: a different word
}

TEST_CASE("a record not yet scored has no label and writes null", "[failure_label]") {
    CHECK_FALSE(FailureLabel().is_set());
    CHECK_FALSE(FailureLabel::from_word("").is_set());
    CHECK(FailureLabel().word().empty());
    core::TrialRecord record;
    CHECK(core::invariant_values(record).back().second.is_null());
    record.failure_mode = FailureLabel::from_word("parse_fail");
    CHECK(core::invariant_values(record).back().second.as_string() == "parse_fail");
    CHECK_FALSE(record.ok());
    record.failure_mode = FailureMode::Ok;
    CHECK(record.ok());
}
