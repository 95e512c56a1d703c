// A small JSON value for the pure core: holds invariant fields, expected answers and the cert.
// Parsing and writing text lives in framework/io; this header only models values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace bi::core {

class Json {
public:
    using Array = std::vector<Json>;
    using Object = std::map<std::string, Json, std::less<>>;  // sorted keys = canonical order
    enum class Type { Null, Bool, Int, Double, String, Array, Object };

    Json() = default;
    Json(std::nullptr_t) {}
    Json(bool value) : value_(value) {}
    template <typename T,
              std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    Json(T value) : value_(static_cast<std::int64_t>(value)) {}
    template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
    Json(T value) : value_(static_cast<double>(value)) {}
    Json(const char* value) : value_(std::string(value)) {}
    Json(std::string value) : value_(std::move(value)) {}
    Json(std::string_view value) : value_(std::string(value)) {}
    Json(Array value) : value_(std::move(value)) {}
    Json(Object value) : value_(std::move(value)) {}

    static Json array() { return Json(Array{}); }
    static Json object() { return Json(Object{}); }

    Type type() const { return static_cast<Type>(value_.index()); }
    bool is_null() const { return type() == Type::Null; }
    bool is_bool() const { return type() == Type::Bool; }
    bool is_int() const { return type() == Type::Int; }
    bool is_double() const { return type() == Type::Double; }
    bool is_number() const { return is_int() || is_double(); }
    bool is_string() const { return type() == Type::String; }
    bool is_array() const { return type() == Type::Array; }
    bool is_object() const { return type() == Type::Object; }

    // Accessors throw bi::Error (category "json") on a type mismatch.
    bool as_bool() const;
    std::int64_t as_int() const;
    double as_double() const;  // an Int converts
    const std::string& as_string() const;
    const Array& as_array() const;
    Array& as_array();
    const Object& as_object() const;
    Object& as_object();

    // Object helpers: find returns nullptr when absent or when this is not an object.
    const Json* find(std::string_view key) const;
    // The member at a dotted path ("usage.prompt_tokens_details.cached_tokens"); nullptr when a
    // segment is missing, null, or not an object's member.
    const Json* find_path(std::string_view dotted) const;
    Json& operator[](std::string_view key);  // a null value becomes an object
    Json& set(std::string_view key, Json value);
    bool erase(std::string_view key);
    // Array helper: a null value becomes an array.
    Json& push_back(Json value);
    std::size_t size() const;  // elements of an array or object, else 0

    // Lookups that default when the key is missing or of another type.
    std::string string_or(std::string_view key, const std::string& fallback) const;
    bool bool_or(std::string_view key, bool fallback) const;
    std::int64_t int_or(std::string_view key, std::int64_t fallback) const;

    friend bool operator==(const Json& a, const Json& b);
    friend bool operator!=(const Json& a, const Json& b) { return !(a == b); }

private:
    std::variant<std::monostate, bool, std::int64_t, double, std::string, Array, Object> value_;
};

// Type-strict equality of canonical JSON values: 1 != true, "1" != 1, 1 == 1.0, and an object
// member holding null equals a missing member. This is the comparison every gate uses.
bool canonical_equal(const Json& a, const Json& b);

const char* type_name(Json::Type type);

}  // namespace bi::core
