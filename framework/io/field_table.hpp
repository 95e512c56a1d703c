// A field table maps a C++ struct to a JSON object, member by member: one row per key, in the
// order the schema documents them, each required or optional. Writing and reading both walk the
// same rows, so a field is one struct member plus one row.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"

namespace bi::io::schema {

// Thrown while reading; the message is "$.path: problem".
struct ShapeError : Error {
    explicit ShapeError(const std::string& message) : Error(ErrorCategory::Json, message) {}
};

[[noreturn]] inline void shape_error(const std::string& path, const std::string& problem) {
    throw ShapeError(path + ": " + problem);
}

inline void expect_type(const core::Json& value, core::Json::Type type, const std::string& path) {
    if (value.type() != type)
        shape_error(path, std::string("expected ") + core::type_name(type) + ", got " +
                              core::type_name(value.type()));
}

template <typename S>
struct Field {
    std::string_view key;
    std::function<void(const S&, core::Json& object)> write;
    // Reads the member from `object` (whose path is `path`); null for write-only rows.
    std::function<void(const core::Json& object, S&, const std::string& path)> read;

    Field(std::string_view k, std::function<void(const S&, core::Json&)> w,
          std::function<void(const core::Json&, S&, const std::string&)> r)
        : key(k), write(std::move(w)), read(std::move(r)) {}
    // A row of a base struct is a row of the struct built on it (a member pointer of the base
    // deduces the base: the cert's rows for the members of its context).
    template <typename Base,
              typename = std::enable_if_t<std::is_base_of_v<Base, S> && !std::is_same_v<Base, S>>>
    Field(Field<Base> base)  // NOLINT(google-explicit-constructor): a row converts like its struct
        : key(base.key),
          write([w = std::move(base.write)](const S& s, core::Json& o) { w(s, o); }) {
        if (base.read)
            read = [r = std::move(base.read)](const core::Json& o, S& s, const std::string& path) {
                r(o, s, path);
            };
    }
};

template <typename S>
using Table = std::vector<Field<S>>;

// Specialised once per struct in the schema's .cpp: the struct's rows.
template <typename S>
const Table<S>& table();

template <typename T, typename = void>
struct HasTable : std::false_type {};

// Value codecs: to_json / from_json for one type. Structs with a table, vectors, string maps and
// optionals compose.
template <typename T, typename = void>
struct Codec;

template <>
struct Codec<bool> {
    static core::Json to_json(bool v) { return v; }
    static bool from_json(const core::Json& j, const std::string& path) {
        expect_type(j, core::Json::Type::Bool, path);
        return j.as_bool();
    }
};

template <typename T>
struct Codec<T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>> {
    static core::Json to_json(T v) { return v; }
    static T from_json(const core::Json& j, const std::string& path) {
        expect_type(j, core::Json::Type::Int, path);
        const std::int64_t v = j.as_int();
        if (std::is_unsigned_v<T> && v < 0) shape_error(path, "must not be negative");
        return static_cast<T>(v);
    }
};

template <>
struct Codec<double> {
    static core::Json to_json(double v) { return v; }
    static double from_json(const core::Json& j, const std::string& path) {
        if (!j.is_number()) expect_type(j, core::Json::Type::Double, path);
        return j.as_double();
    }
};

template <>
struct Codec<std::string> {
    static core::Json to_json(const std::string& v) { return v; }
    static std::string from_json(const core::Json& j, const std::string& path) {
        expect_type(j, core::Json::Type::String, path);
        return j.as_string();
    }
};

template <>
struct Codec<core::Json> {
    static core::Json to_json(const core::Json& v) { return v; }
    static core::Json from_json(const core::Json& j, const std::string&) { return j; }
};

// An enum with a name table: name(value) and a parse function returning std::optional.
template <typename E, std::string_view (*Name)(E), std::optional<E> (*Parse)(std::string_view)>
struct NamedEnumCodec {
    static core::Json to_json(E v) { return std::string(Name(v)); }
    static E from_json(const core::Json& j, const std::string& path, const char* what) {
        expect_type(j, core::Json::Type::String, path);
        if (auto v = Parse(j.as_string())) return *v;
        shape_error(path, std::string("unknown ") + what + " '" + j.as_string() + "'");
    }
};

template <typename T>
struct Codec<std::vector<T>> {
    static core::Json to_json(const std::vector<T>& v) {
        core::Json out = core::Json::array();
        for (const auto& item : v) out.push_back(Codec<T>::to_json(item));
        return out;
    }
    static std::vector<T> from_json(const core::Json& j, const std::string& path) {
        expect_type(j, core::Json::Type::Array, path);
        std::vector<T> out;
        const auto& items = j.as_array();
        for (std::size_t i = 0; i < items.size(); ++i)
            out.push_back(Codec<T>::from_json(items[i], path + "[" + std::to_string(i) + "]"));
        return out;
    }
};

template <typename T>
struct Codec<std::map<std::string, T>> {
    static core::Json to_json(const std::map<std::string, T>& v) {
        core::Json out = core::Json::object();
        for (const auto& [key, item] : v) out.set(key, Codec<T>::to_json(item));
        return out;
    }
    static std::map<std::string, T> from_json(const core::Json& j, const std::string& path) {
        expect_type(j, core::Json::Type::Object, path);
        std::map<std::string, T> out;
        for (const auto& [key, item] : j.as_object())
            out.emplace(key, Codec<T>::from_json(item, path + "." + key));
        return out;
    }
};

// A struct with a table: every row writes into, and reads from, one JSON object.
template <typename T>
void write_rows(const T& value, core::Json& object) {
    for (const auto& row : table<T>()) row.write(value, object);
}

template <typename T>
void read_rows(const core::Json& object, T& value, const std::string& path) {
    for (const auto& row : table<T>())
        if (row.read) row.read(object, value, path);
}

template <typename T>
struct Codec<T, std::enable_if_t<HasTable<T>::value>> {
    static core::Json to_json(const T& v) {
        core::Json out = core::Json::object();
        write_rows(v, out);
        return out;
    }
    static T from_json(const core::Json& j, const std::string& path) {
        expect_type(j, core::Json::Type::Object, path);
        T out{};
        read_rows(j, out, path);
        return out;
    }
};

// How an optional member appears: written as null when empty, or left out when empty.
enum class WhenEmpty { WriteNull, Omit };

inline std::string child(const std::string& path, std::string_view key) {
    return path + "." + std::string(key);
}

// A required member: missing is an error.
template <typename S, typename T, typename C = Codec<T>>
Field<S> required(std::string_view key, T S::*member) {
    return {key, [key, member](const S& s, core::Json& o) { o.set(key, C::to_json(s.*member)); },
            [key, member](const core::Json& o, S& s, const std::string& path) {
                const core::Json* v = o.find(key);
                if (!v) shape_error(child(path, key), "missing");
                s.*member = C::from_json(*v, child(path, key));
            }};
}

// An optional member: absent or null reads as empty.
template <typename S, typename T, typename C = Codec<T>>
Field<S> optional(std::string_view key, std::optional<T> S::*member,
                  WhenEmpty when_empty = WhenEmpty::Omit) {
    return {key,
            [key, member, when_empty](const S& s, core::Json& o) {
                if (s.*member)
                    o.set(key, C::to_json(*(s.*member)));
                else if (when_empty == WhenEmpty::WriteNull)
                    o.set(key, core::Json());
            },
            [key, member](const core::Json& o, S& s, const std::string& path) {
                const core::Json* v = o.find(key);
                if (!v || v->is_null())
                    s.*member = std::nullopt;
                else
                    s.*member = C::from_json(*v, child(path, key));
            }};
}

// A member written only when it differs from its default (an empty map, a zero count), and read
// as the default when absent: an additive field that older certs do not carry.
template <typename T>
auto is_default(const T& value, int) -> decltype(value.empty()) {
    return value.empty();
}
template <typename T>
bool is_default(const T& value, long) {
    return value == T{};
}

template <typename S, typename T, typename C = Codec<T>>
Field<S> unless_default(std::string_view key, T S::*member) {
    return {key,
            [key, member](const S& s, core::Json& o) {
                if (!is_default(s.*member, 0)) o.set(key, C::to_json(s.*member));
            },
            [key, member](const core::Json& o, S& s, const std::string& path) {
                const core::Json* v = o.find(key);
                s.*member = v ? C::from_json(*v, child(path, key)) : T{};
            }};
}

// A nested struct whose members sit in the same JSON object as its parent's.
template <typename S, typename T>
Field<S> inline_members(T S::*member) {
    return {"", [member](const S& s, core::Json& o) { write_rows(s.*member, o); },
            [member](const core::Json& o, S& s, const std::string& path) {
                read_rows(o, s.*member, path);
            }};
}

// A value derived from other members: written, never read. The cert reader checks that a
// stored document re-renders identically, so an edited derived value is caught there.
template <typename S>
Field<S> derived(std::string_view key, std::function<core::Json(const S&)> value) {
    return {key, [key, value](const S& s, core::Json& o) { o.set(key, value(s)); }, nullptr};
}

// A member with its own write and read (for keys whose shape is not one member's).
template <typename S>
Field<S> custom(std::string_view key, std::function<void(const S&, core::Json&)> write,
                std::function<void(const core::Json&, S&, const std::string&)> read) {
    return {key, std::move(write), std::move(read)};
}

// The first path at which two documents differ, or "" when they are equal: a reader renders
// what it read and refuses a document that does not render back to itself (an edited derived
// value, a key that is not part of the schema).
inline std::string first_difference(const core::Json& a, const core::Json& b,
                                    const std::string& path) {
    if (a.type() != b.type()) return path;
    if (a.is_object()) {
        for (const auto& [key, value] : a.as_object()) {
            const core::Json* other = b.find(key);
            if (!other) return path + "." + key;
            if (auto at = first_difference(value, *other, path + "." + key); !at.empty()) return at;
        }
        for (const auto& [key, value] : b.as_object())
            if (!a.find(key)) return path + "." + key;
        return "";
    }
    if (a.is_array()) {
        const auto& x = a.as_array();
        const auto& y = b.as_array();
        for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
            if (auto at = first_difference(x[i], y[i], path + "[" + std::to_string(i) + "]");
                !at.empty())
                return at;
        return x.size() == y.size() ? "" : path;
    }
    return a == b ? "" : path;
}

}  // namespace bi::io::schema
