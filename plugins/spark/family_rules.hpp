// The scorer's three steps for each family: extract the answer, classify the failure mode and
// score. All are pure functions of (family, completion, expected answer).
#pragma once

#include <string>
#include <string_view>

#include "json.hpp"

namespace spark {

// Failure labels besides "ok".
inline constexpr const char* kModeOk = "ok";
inline constexpr const char* kModeEmpty = "empty";
inline constexpr const char* kModeReasoningLeak = "reasoning_leak";
inline constexpr const char* kModeRunaway = "runaway_repetition";
inline constexpr const char* kModeNoValidJson = "no_valid_json";
inline constexpr const char* kModeParseFail = "parse_fail";

struct Extraction {
    Json answer;         // always set: the stripped answer text when the family's form is absent
    bool found = false;  // the family's form (number, bullets, JSON, code ...) was found
};

// The expected answer parsed and checked against the family's shape (its "type" and fields);
// throws bi::sdk::Failure(BI_STATUS_INVALID_ARGUMENT) naming the family and the problem.
Json parse_expected(std::string_view family, std::string_view expected_json);

Extraction extract_answer(std::string_view family, std::string_view completion,
                          const Json& expected);

// empty, reasoning_leak, runaway_repetition, then the family's no_valid_json / parse_fail,
// else ok.
std::string classify_failure_mode(std::string_view family, std::string_view completion,
                                  const Json& expected);

// In [0, 1]; computed whatever the failure mode (a leaked reasoning block is ignored).
double score_answer(std::string_view family, std::string_view completion, const Json& expected);

// n-gram and periodic-substring mass: true when most of the text repeats itself.
bool is_runaway_repetition(std::string_view text);

}  // namespace spark
