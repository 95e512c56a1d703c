// How the spark scorer reads the JSON a model writes: strict RFC 8259 with type-strict fields,
// the last of a repeated key, bounded nesting, and escapes and NUL bytes that break no rule.
#include <catch2/catch.hpp>

#include <string>

#include "io/json_text.hpp"
#include "spark_fixture.hpp"

using namespace bi;
using namespace bi::spark_test;

namespace {

const char* kExpected = R"({"type":"json","fields":{"n":7,"flag":true,"s":"7"},"depth":0.5})";

plugin_host::ScoreOutcome read(const std::string& completion) {
    return score("E2", io::parse_json(kExpected, "expected"), completion);
}

// `levels` arrays nested as the value of "deep", beside the three right fields.
std::string nested(int levels) {
    return R"({"n":7,"flag":true,"s":"7","deep":)" + std::string(levels, '[') +
           std::string(levels, ']') + "}";
}

}  // namespace

TEST_CASE("spark reads model JSON with strict types: 1 is not true, \"7\" is not 7", "[spark]") {
    CHECK(read(R"({"n":7,"flag":true,"s":"7"})").score == 1.0);
    CHECK(read(R"({"n":7.0,"flag":true,"s":"7"})").score == 1.0);  // numbers compare by value
    CHECK(read(R"({"n":7e0,"flag":true,"s":"7"})").score == 1.0);
    CHECK(read(R"({"n":"7","flag":1,"s":7})").score == 0.0);
    CHECK(read(R"({"n":7,"flag":"true","s":"7"})").score == Approx(2.0 / 3.0));
}

TEST_CASE("spark reads the last of a repeated key", "[spark]") {
    CHECK(read(R"({"n":1,"n":7,"flag":true,"s":"7"})").score == 1.0);
    CHECK(read(R"({"n":7,"flag":true,"s":"7","n":1})").score == Approx(2.0 / 3.0));
    const auto outcome = read(R"({"s":"7","n":1,"flag":true,"n":7})");
    CHECK(outcome.extracted_answer == io::parse_json(R"({"flag":true,"n":7,"s":"7"})", "x"));
}

TEST_CASE("spark refuses JSON nested deeper than 128 levels", "[spark]") {
    CHECK(read(nested(128)).failure_mode.word() == "ok");
    CHECK(read(nested(128)).score == 1.0);
    CHECK(read(nested(129)).failure_mode.word() == "no_valid_json");
    CHECK(read(nested(100000)).failure_mode.word() == "no_valid_json");
}

TEST_CASE("spark refuses lone surrogates, raw control characters and NUL bytes", "[spark]") {
    CHECK(read(R"({"n":7,"flag":true,"s":"7","e":"\ud83d\ude00"})").score == 1.0);
    CHECK(read(R"({"n":7,"flag":true,"s":"7","e":"\\udc00"})").score == 1.0);  // not an escape
    CHECK(read(R"({"n":7,"flag":true,"s":"7","e":"\udc00"})").failure_mode.word() ==
          "no_valid_json");
    CHECK(read(R"({"n":7,"flag":true,"s":"7","e":"\ud83d"})").failure_mode.word() ==
          "no_valid_json");
    CHECK(read("{\"n\":7,\"flag\":true,\"s\":\"7\",\"e\":\"a\tb\"}").failure_mode.word() ==
          "no_valid_json");
    CHECK(read(std::string(R"({"n":7,"flag":true,"s":"7")") + '\0' + "}").failure_mode.word() ==
          "no_valid_json");
    CHECK(read(R"({"n":7,"flag":true,"s":"7","e":"\u0000"})").score == 1.0);
}
