// Building, reading and comparing spark's JSON values. Objects are kept sorted by key so that
// iteration and the canonical text follow one order, as the scorer has always read them.
#include "json.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace spark {

namespace {

std::string_view key_of(const Json::Member& member) {
    return string_of(member.name);
}

// Rebuilds `object` with its members in key order; of a repeated key only the last one stays.
void sort_members(Json& object) {
    std::vector<Json::Member*> members;
    for (auto& member : object.GetObject()) members.push_back(&member);
    std::stable_sort(
        members.begin(), members.end(),
        [](const Json::Member* a, const Json::Member* b) { return key_of(*a) < key_of(*b); });
    rapidjson::CrtAllocator allocator;
    Json sorted(rapidjson::kObjectType);
    for (std::size_t i = 0; i < members.size(); ++i)
        if (i + 1 == members.size() || key_of(*members[i]) != key_of(*members[i + 1]))
            sorted.AddMember(members[i]->name, members[i]->value, allocator);  // moves both
    object.Swap(sorted);
}

bool is_integer(const Json& value) {
    return value.IsNumber() && !value.IsDouble();
}

}  // namespace

Json json_string(std::string_view text) {
    rapidjson::CrtAllocator allocator;
    return Json(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
}

Json json_integer(std::int64_t value) {
    return Json(value);
}

Json json_number(double value) {
    return Json(value);
}

Json json_boolean(bool value) {
    return Json(value);
}

Json json_object() {
    return Json(rapidjson::kObjectType);
}

Json json_array() {
    return Json(rapidjson::kArrayType);
}

Json json_copy(const Json& value) {
    rapidjson::CrtAllocator allocator;
    return Json(value, allocator);
}

void set_member(Json& object, std::string_view key, Json value) {
    rapidjson::CrtAllocator allocator;
    object.AddMember(json_string(key), value, allocator);
    sort_members(object);
}

void push_item(Json& array, Json item) {
    rapidjson::CrtAllocator allocator;
    array.PushBack(item, allocator);
}

const Json* find_member(const Json& value, std::string_view key) {
    if (!value.IsObject()) return nullptr;
    for (const auto& member : value.GetObject())
        if (key_of(member) == key) return &member.value;
    return nullptr;
}

std::string_view string_of(const Json& value) {
    if (!value.IsString()) throw std::runtime_error("spark: JSON value is not a string");
    return {value.GetString(), value.GetStringLength()};
}

void canonicalise(Json& value) {
    if (value.IsArray())
        for (auto& item : value.GetArray()) canonicalise(item);
    if (!value.IsObject()) return;
    for (auto& member : value.GetObject()) canonicalise(member.value);
    sort_members(value);
}

bool typed_equal(const Json& a, const Json& b) {
    if (is_integer(a) && is_integer(b)) return a.GetInt64() == b.GetInt64();
    if (a.IsNumber() && b.IsNumber()) return a.GetDouble() == b.GetDouble();
    if (a.GetType() != b.GetType()) return false;  // true and false are two types here
    switch (a.GetType()) {
        case rapidjson::kNullType:
        case rapidjson::kFalseType:
        case rapidjson::kTrueType:
            return true;
        case rapidjson::kStringType:
            return string_of(a) == string_of(b);
        case rapidjson::kArrayType: {
            if (a.Size() != b.Size()) return false;
            for (rapidjson::SizeType i = 0; i < a.Size(); ++i)
                if (!typed_equal(a[i], b[i])) return false;
            return true;
        }
        case rapidjson::kObjectType: {
            if (a.MemberCount() != b.MemberCount()) return false;
            for (const auto& member : a.GetObject()) {
                const Json* other = find_member(b, key_of(member));
                if (!other || !typed_equal(member.value, *other)) return false;
            }
            return true;
        }
        default:
            return false;
    }
}

}  // namespace spark
