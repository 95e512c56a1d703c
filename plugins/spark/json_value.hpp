// A small JSON value, parser and canonical writer private to the spark plugin: a plugin may not
// share the host's JSON library, and the scorer must parse what models write.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace spark {

class JsonValue {
public:
    using Array = std::vector<JsonValue>;
    using Object = std::map<std::string, JsonValue, std::less<>>;  // sorted: canonical order
    enum class Type { Null, Bool, Int, Double, String, Array, Object };

    JsonValue() = default;
    static JsonValue boolean(bool value);
    static JsonValue integer(std::int64_t value);
    static JsonValue number(double value);
    static JsonValue string(std::string value);
    static JsonValue array(Array items = {});
    static JsonValue object(Object members = {});

    Type type() const { return static_cast<Type>(value_.index()); }
    bool is_null() const { return type() == Type::Null; }
    bool is_bool() const { return type() == Type::Bool; }
    bool is_number() const { return type() == Type::Int || type() == Type::Double; }
    bool is_string() const { return type() == Type::String; }
    bool is_array() const { return type() == Type::Array; }
    bool is_object() const { return type() == Type::Object; }

    // Accessors throw std::runtime_error on a type mismatch.
    bool as_bool() const;
    std::int64_t as_int() const;  // an integral double converts
    double as_double() const;
    const std::string& as_string() const;
    const Array& as_array() const;
    const Object& as_object() const;
    Object& as_object();

    const JsonValue* find(std::string_view key) const;  // nullptr when absent or not an object
    JsonValue& set(const std::string& key, JsonValue value);  // this must be an object

private:
    std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object> value_;
};

// Strict RFC 8259 parse of the whole text (surrounding whitespace allowed); nullopt on any error.
std::optional<JsonValue> parse_json(std::string_view text);

// Compact canonical text: sorted keys, no spaces, shortest round-trip doubles.
std::string to_json(const JsonValue& value);

// Type-strict equality: a bool is never a number and a number never a string; numbers compare
// by value (7 equals 7.0), objects by their members.
bool typed_equal(const JsonValue& a, const JsonValue& b);

}  // namespace spark
