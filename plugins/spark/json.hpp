// spark's JSON: RapidJSON values compiled privately into libspark.so (a plugin never shares the
// host's JSON library), kept canonical: object keys sorted and unique, integers apart from doubles.
#pragma once

#include <stdexcept>

// A misused value (GetString on a number, ...) throws, which the SDK turns into an error status,
// instead of an assert that vanishes in release builds. Every spark file reaches RapidJSON
// through this header, so the definition comes first.
#define RAPIDJSON_ASSERT(x) \
    ((x) ? static_cast<void>(0) : throw std::runtime_error("spark: JSON misuse: " #x))

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace spark {

// CrtAllocator frees what a value holds when the value is destroyed, so values move and nest
// without a Document that must outlive them.
using Json = rapidjson::GenericValue<rapidjson::UTF8<>, rapidjson::CrtAllocator>;

Json json_string(std::string_view text);
Json json_integer(std::int64_t value);
Json json_number(double value);
Json json_boolean(bool value);
Json json_object();
Json json_array();
Json json_copy(const Json& value);

// `object` must be an object: sets `key`, replacing any earlier value, keeping keys sorted.
void set_member(Json& object, std::string_view key, Json value);
// `array` must be an array.
void push_item(Json& array, Json item);

// The member named `key`; nullptr when it is absent or `value` is not an object.
const Json* find_member(const Json& value, std::string_view key);

// The text of a string value (it may hold NUL bytes); throws std::runtime_error otherwise.
std::string_view string_of(const Json& value);

// Sorts the keys of every object inside `value`, keeping the last of a repeated key.
void canonicalise(Json& value);

// Strict RFC 8259 parse of the whole text (surrounding whitespace allowed), canonicalised;
// nullopt on any error. A number without fraction or exponent that fits in int64 is an
// integer, any other a finite double.
std::optional<Json> parse_json(std::string_view text);

// Compact canonical text: sorted keys, no spaces, shortest round-trip doubles.
std::string to_json(const Json& value);

// Type-strict equality: a bool is never a number and a number never a string; numbers compare
// by value (7 equals 7.0), objects by their members.
bool typed_equal(const Json& a, const Json& b);

}  // namespace spark
