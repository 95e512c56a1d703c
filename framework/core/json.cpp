#include "json.hpp"

#include <cmath>
#include <limits>

#include "error.hpp"

namespace bi::core {

namespace {

[[noreturn]] void type_error(const char* wanted, Json::Type got) {
    throw Error(ErrorCategory::Json, std::string("expected ") + wanted + ", got " + type_name(got));
}

// An int and a double are equal when the double holds exactly that integer.
bool int_equals_double(std::int64_t i, double d) {
    if (!std::isfinite(d) || std::trunc(d) != d) return false;
    if (d < -9223372036854775808.0 || d >= 9223372036854775808.0) return false;
    return static_cast<std::int64_t>(d) == i;
}

}  // namespace

const char* type_name(Json::Type type) {
    switch (type) {
        case Json::Type::Null:
            return "null";
        case Json::Type::Bool:
            return "bool";
        case Json::Type::Int:
            return "integer";
        case Json::Type::Double:
            return "number";
        case Json::Type::String:
            return "string";
        case Json::Type::Array:
            return "array";
        case Json::Type::Object:
            return "object";
    }
    return "unknown";
}

bool Json::as_bool() const {
    if (!is_bool()) type_error("bool", type());
    return std::get<bool>(value_);
}

std::int64_t Json::as_int() const {
    if (!is_int()) type_error("integer", type());
    return std::get<std::int64_t>(value_);
}

double Json::as_double() const {
    if (is_int()) return static_cast<double>(std::get<std::int64_t>(value_));
    if (!is_double()) type_error("number", type());
    return std::get<double>(value_);
}

const std::string& Json::as_string() const {
    if (!is_string()) type_error("string", type());
    return std::get<std::string>(value_);
}

const Json::Array& Json::as_array() const {
    if (!is_array()) type_error("array", type());
    return std::get<Array>(value_);
}

Json::Array& Json::as_array() {
    if (!is_array()) type_error("array", type());
    return std::get<Array>(value_);
}

const Json::Object& Json::as_object() const {
    if (!is_object()) type_error("object", type());
    return std::get<Object>(value_);
}

Json::Object& Json::as_object() {
    if (!is_object()) type_error("object", type());
    return std::get<Object>(value_);
}

const Json* Json::find(std::string_view key) const {
    if (!is_object()) return nullptr;
    const auto& object = std::get<Object>(value_);
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
}

const Json* Json::find_path(std::string_view dotted) const {
    const Json* node = this;
    while (true) {
        const std::size_t dot = dotted.find('.');
        if (!node->is_object()) return nullptr;
        node = node->find(dotted.substr(0, dot));
        if (!node || node->is_null()) return nullptr;
        if (dot == std::string_view::npos) return node;
        dotted.remove_prefix(dot + 1);
    }
}

Json& Json::operator[](std::string_view key) {
    if (is_null()) value_ = Object{};
    auto& object = as_object();
    auto it = object.find(key);
    if (it == object.end()) it = object.emplace(std::string(key), Json()).first;
    return it->second;
}

Json& Json::set(std::string_view key, Json value) {
    (*this)[key] = std::move(value);
    return *this;
}

bool Json::erase(std::string_view key) {
    if (!is_object()) return false;
    auto& object = std::get<Object>(value_);
    auto it = object.find(key);
    if (it == object.end()) return false;
    object.erase(it);
    return true;
}

Json& Json::push_back(Json value) {
    if (is_null()) value_ = Array{};
    as_array().push_back(std::move(value));
    return *this;
}

std::size_t Json::size() const {
    if (is_array()) return std::get<Array>(value_).size();
    if (is_object()) return std::get<Object>(value_).size();
    return 0;
}

std::string Json::string_or(std::string_view key, const std::string& fallback) const {
    const Json* v = find(key);
    return v && v->is_string() ? v->as_string() : fallback;
}

bool Json::bool_or(std::string_view key, bool fallback) const {
    const Json* v = find(key);
    return v && v->is_bool() ? v->as_bool() : fallback;
}

std::int64_t Json::int_or(std::string_view key, std::int64_t fallback) const {
    const Json* v = find(key);
    return v && v->is_int() ? v->as_int() : fallback;
}

bool operator==(const Json& a, const Json& b) {
    return a.value_ == b.value_;
}

bool canonical_equal(const Json& a, const Json& b) {
    using T = Json::Type;
    if (a.is_number() && b.is_number()) {
        if (a.is_int() && b.is_int()) return a.as_int() == b.as_int();
        if (a.is_double() && b.is_double()) return a.as_double() == b.as_double();
        return a.is_int() ? int_equals_double(a.as_int(), b.as_double())
                          : int_equals_double(b.as_int(), a.as_double());
    }
    if (a.type() != b.type()) return false;
    switch (a.type()) {
        case T::Null:
            return true;
        case T::Bool:
            return a.as_bool() == b.as_bool();
        case T::String:
            return a.as_string() == b.as_string();
        case T::Array: {
            const auto& x = a.as_array();
            const auto& y = b.as_array();
            if (x.size() != y.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (!canonical_equal(x[i], y[i])) return false;
            return true;
        }
        case T::Object: {
            // Walk the union of keys; a missing member reads as null.
            static const Json kNull;
            for (const auto& [key, value] : a.as_object()) {
                const Json* other = b.find(key);
                if (!canonical_equal(value, other ? *other : kNull)) return false;
            }
            for (const auto& [key, value] : b.as_object())
                if (!a.find(key) && !value.is_null()) return false;
            return true;
        }
        default:
            return false;
    }
}

}  // namespace bi::core
