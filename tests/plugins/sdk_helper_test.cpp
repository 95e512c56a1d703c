// The header-only C++ helper's JSON text functions, which every C++ plugin relies on.
#include <catch2/catch.hpp>

#include "bi/plugin.hpp"

using bi::sdk::json_string;
using bi::sdk::json_string_value;

TEST_CASE("json_string escapes what JSON requires", "[sdk-helper]") {
    CHECK(json_string("plain") == "\"plain\"");
    CHECK(json_string("a\"b\\c") == R"("a\"b\\c")");
    CHECK(json_string("l1\nl2\tx\r") == R"("l1\nl2\tx\r")");
    CHECK(json_string(std::string("\x01\x1f", 2)) == R"("\u0001\u001f")");
    CHECK(json_string("\xc3\xa9") == "\"\xc3\xa9\"");  // UTF-8 passes through
}

TEST_CASE("json_string_value decodes string literals only", "[sdk-helper]") {
    CHECK(json_string_value(R"( "Paris" )") == std::optional<std::string>("Paris"));
    CHECK(json_string_value(R"("a\"b\\c\/d\n")") == std::optional<std::string>("a\"b\\c/d\n"));
    CHECK(json_string_value(R"("\u00e9")") == std::optional<std::string>("\xc3\xa9"));
    CHECK(json_string_value(R"("\ud83d\ude00")") == std::optional<std::string>("\xf0\x9f\x98\x80"));
    CHECK_FALSE(json_string_value("42"));
    CHECK_FALSE(json_string_value("null"));
    CHECK_FALSE(json_string_value(R"("open)"));
    CHECK_FALSE(json_string_value(R"("a"b")"));
    CHECK_FALSE(json_string_value(R"("\x")"));
    CHECK_FALSE(json_string_value(R"("\ud83d")"));  // a lone high surrogate
    CHECK_FALSE(json_string_value(R"("\ude00")"));  // a lone low surrogate
}

TEST_CASE("json_string and json_string_value round-trip", "[sdk-helper]") {
    for (const std::string text : {"", "x", "q\"uote", "back\\slash", "tab\there", "\x7f"}) {
        CHECK(json_string_value(json_string(text)) == std::optional<std::string>(text));
    }
}

TEST_CASE("Failure never carries the OK status", "[sdk-helper]") {
    CHECK(bi::sdk::Failure(BI_STATUS_OK, "x").status() == BI_STATUS_ERROR);
    CHECK(bi::sdk::Failure(BI_STATUS_UNAVAILABLE, "x").status() == BI_STATUS_UNAVAILABLE);
}

TEST_CASE("ScoreInput reads the generated fields only from a host that sends them",
          "[sdk-helper]") {
    const char reasoning[] = "think\0more";  // sized, so an inner NUL survives
    bi_score_input in{};
    in.struct_size = sizeof in;
    in.completion = "Paris";
    in.completion_size = 5;
    in.reasoning = reasoning;
    in.reasoning_size = sizeof reasoning - 1;
    in.tool_calls_json = R"([{"function":{"arguments":"{}","name":"f"}}])";
    in.completion_tokens = 7;
    in.stop_reason = "tool_calls";
    const auto now = bi::sdk::detail::to_score_input(&in);
    CHECK(now.reasoning == std::string_view(reasoning, 10));
    CHECK(now.tool_calls_json == in.tool_calls_json);
    CHECK(now.completion_tokens == 7);
    CHECK(now.stop_reason == "tool_calls");

    // An ABI 1.0 host's struct ends at failure_mode: what lies beyond is not read.
    in.struct_size = static_cast<std::uint32_t>(offsetof(bi_score_input, reasoning));
    const auto old = bi::sdk::detail::to_score_input(&in);
    CHECK(old.completion == "Paris");
    CHECK(old.reasoning.empty());
    CHECK(old.tool_calls_json == "null");
    CHECK(old.completion_tokens == -1);
    CHECK(old.stop_reason.empty());
}
