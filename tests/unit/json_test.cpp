#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/json.hpp"
#include "io/json_text.hpp"

using bi::core::canonical_equal;
using bi::core::Json;

TEST_CASE("canonical equality is type-strict", "[json]") {
    CHECK_FALSE(canonical_equal(Json(1), Json(true)));
    CHECK_FALSE(canonical_equal(Json(0), Json(false)));
    CHECK_FALSE(canonical_equal(Json("1"), Json(1)));
    CHECK_FALSE(canonical_equal(Json(), Json(0)));
    CHECK_FALSE(canonical_equal(Json(), Json("")));
    CHECK_FALSE(canonical_equal(Json::array(), Json::object()));
}

TEST_CASE("integers and doubles compare by value", "[json]") {
    CHECK(canonical_equal(Json(1), Json(1.0)));
    CHECK(canonical_equal(Json(1.0), Json(1)));
    CHECK_FALSE(canonical_equal(Json(1), Json(1.0000001)));
    CHECK(canonical_equal(Json(0.1), Json(0.1)));
    CHECK_FALSE(canonical_equal(Json(0.1), Json(0.1 + 1e-17 * 10)));
    CHECK_FALSE(canonical_equal(Json(9007199254740993LL), Json(9007199254740992.0)));
}

TEST_CASE("a missing object member equals a null one", "[json]") {
    Json a = Json::Object{{"x", 1}, {"y", nullptr}};
    Json b = Json::Object{{"x", 1}};
    CHECK(canonical_equal(a, b));
    CHECK(canonical_equal(b, a));
    b.set("z", 0);
    CHECK_FALSE(canonical_equal(a, b));
}

TEST_CASE("arrays compare element-wise and in order", "[json]") {
    CHECK(canonical_equal(Json::Array{1, "a", true}, Json::Array{1.0, "a", true}));
    CHECK_FALSE(canonical_equal(Json::Array{1, 2}, Json::Array{2, 1}));
    CHECK_FALSE(canonical_equal(Json::Array{1}, Json::Array{1, 1}));
}

TEST_CASE("accessors refuse the wrong type", "[json]") {
    CHECK_THROWS_AS(Json("x").as_int(), bi::Error);
    CHECK_THROWS_AS(Json(1.5).as_int(), bi::Error);
    CHECK(Json(3).as_double() == 3.0);
    CHECK(Json().find("k") == nullptr);
}

TEST_CASE("text round-trip keeps types, precision and sorts keys", "[json][io]") {
    const std::string text = R"({"b":[1,2.5,"s",null,true],"a":{"z":0.1,"y":-3},"c":1e300})";
    Json value = bi::io::parse_json(text, "test");
    CHECK(value.find("a")->find("y")->is_int());
    CHECK(value.find("a")->find("z")->as_double() == 0.1);
    const std::string out = bi::io::to_json_text(value);
    CHECK(out == R"({"a":{"y":-3,"z":0.1},"b":[1,2.5,"s",null,true],"c":1e300})");
    CHECK(bi::io::parse_json(out, "again") == value);
    CHECK(bi::io::to_json_text(Json(1.0)) == "1.0");
}

TEST_CASE("parse errors name the source and the offset", "[json][io]") {
    try {
        bi::io::parse_json("{\"a\": 1,}", "ws.json");
        FAIL("expected a parse error");
    } catch (const bi::Error& e) {
        CHECK(std::string(e.what()).rfind("ws.json: invalid JSON at offset 8", 0) == 0);
    }
}

TEST_CASE("numbers read as their text says, each one correctly rounded", "[json][io]") {
    const auto read = [](const char* text) { return bi::io::parse_json(text, "n"); };
    CHECK(read("9223372036854775807").as_int() == INT64_MAX);
    CHECK(read("-9223372036854775808").as_int() == INT64_MIN);
    CHECK(read("-0").is_int());
    CHECK(read("9223372036854775808").as_double() == 9223372036854775808.0);
    CHECK(read("1.0").is_double());
    CHECK(read("1e2").is_double());
    CHECK(read("0.30000000000000004").as_double() == 0.30000000000000004);
    CHECK(read("4.9e-324").as_double() == 4.9e-324);
    CHECK(read("1e-400").as_double() == 0.0);
    // A zero significand with a large exponent is zero (RapidJSON 1.1.0's own conversion read
    // "0e48" as -2.4e-268).
    for (const char* zero : {"0e48", "0.0e48", "0.000e30", "-0.0e100", "0E+300"}) {
        CAPTURE(zero);
        CHECK(read(zero).is_double());
        CHECK(read(zero).as_double() == 0.0);
    }
    for (const char* big : {"[1, 2e400]", "[1, 1.8e308]", "[1, -1.8e308]"}) {
        CAPTURE(big);
        try {
            read(big);
            FAIL("expected a number too big to be refused");
        } catch (const bi::Error& e) {
            CHECK(std::string(e.what()) ==
                  "n: invalid JSON at offset 4: Number too big to be stored in double.");
        }
    }
}

TEST_CASE("non-finite numbers are refused on output", "[json][io]") {
    CHECK_THROWS_AS(bi::io::to_json_text(Json(1.0 / 0.0)), bi::Error);
}

TEST_CASE("nesting from outside is bounded before it can exhaust the stack", "[json]") {
    const auto nested = [](std::size_t depth, char open, char close) {
        return std::string(depth, open) + std::string(depth, close);
    };
    CHECK(bi::io::parse_json(nested(bi::io::kMaxJsonDepth, '[', ']'), "t").is_array());
    CHECK_THROWS_WITH(bi::io::parse_json(nested(bi::io::kMaxJsonDepth + 1, '[', ']'), "body"),
                      "body: JSON nested deeper than 256 levels at offset 256");
    // A million levels, the shape a hostile server sends, is refused, not a crash.
    CHECK_THROWS_AS(bi::io::parse_json(nested(1'000'000, '[', ']'), "body"), bi::Error);
    std::string objects;
    for (int i = 0; i < 100'000; ++i) objects += "{\"a\":";
    CHECK_THROWS_AS(bi::io::parse_json(objects + "1" + std::string(100'000, '}'), "body"),
                    bi::Error);
    // Brackets inside strings are text, not nesting.
    CHECK(bi::io::parse_json("[\"" + std::string(1000, '[') + "\\\"\"]", "t").size() == 1);
}

TEST_CASE("a NUL byte ends nothing: text after it is still read", "[json]") {
    const std::string text = std::string("{\"a\":1}") + '\0' + "junk";
    CHECK_THROWS_WITH(bi::io::parse_json(text, "c.json"),
                      "c.json: invalid JSON at offset 7: a NUL byte");
}

TEST_CASE("an object that repeats a key is refused, naming the key and where", "[json]") {
    // Readers disagree on which of two equal keys counts, so one text would be two documents.
    CHECK_THROWS_WITH(bi::io::parse_json(R"({"status": "failed", "status": "green"})", "c.json"),
                      "c.json: invalid JSON at offset 29: the key \"status\" appears twice in "
                      "one object");
    CHECK_THROWS_WITH(bi::io::parse_json(R"([{"a": {"b": 1, "b": 1}}])", "x"),
                      Catch::Contains("the key \"b\" appears twice"));
    // The same key in two objects, or as a string value, is no repeat.
    CHECK(bi::io::parse_json(R"([{"a": 1}, {"a": 2, "b": "a"}])", "x").size() == 2);
    CHECK(bi::io::parse_json(R"({"a": {"a": {"a": 1}}})", "x").is_object());
}
