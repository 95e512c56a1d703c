// Request fields named in messages: each has a name, a reference reads as that name in
// backquotes, and naming the references replaces exactly them.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/request_field.hpp"

using bi::core::field_name;
using bi::core::field_ref;
using bi::core::name_fields;
using F = bi::core::RequestField;

TEST_CASE("every request field has a name of its own, found again by that name",
          "[request-field]") {
    const auto& fields = bi::core::request_fields();
    REQUIRE(fields.size() > 40);
    CHECK(fields.front() == F::OutDir);
    CHECK(fields.back() == F::ShapeHeadDim);
    std::set<std::string> names;
    for (const auto field : fields) {
        const std::string name(field_name(field));
        INFO(name);
        CHECK(names.insert(name).second);
        CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_.") == std::string::npos);
        CHECK(bi::core::field_named(name) == field);
    }
    CHECK(field_name(F::ReadyTimeout) == "target.ready_timeout");
    CHECK(field_name(F::Plugins) == "scoring.plugins");
    CHECK_FALSE(bi::core::field_named("ctx-sweep").has_value());
}

TEST_CASE("naming a message's fields replaces their references and nothing else",
          "[request-field]") {
    const auto option = [](F field) { return "--" + std::string(field_name(field)); };
    CHECK(field_ref(F::Ctxs) == "`ctxs`");
    CHECK(name_fields(field_ref(F::Ctxs) + " x " + field_ref(F::Parallels) + " = 9", option) ==
          "--ctxs x --parallels = 9");
    // Backquotes around anything else stay, and do not hide a reference next to them.
    CHECK(name_fields("`kv` and `ctxs`", option) == "`kv` and --ctxs");
    CHECK(name_fields("a `b` `reps`` c", option) == "a `b` --reps` c");
    CHECK(name_fields("no quotes", option) == "no quotes");
    CHECK(name_fields("`reps", option) == "`reps");
    CHECK(name_fields("``", option) == "``");
    // As written (no namer at hand), a reference reads as the field's name.
    const auto as_written = [](F field) { return field_ref(field); };
    const std::string message = field_ref(F::ReqTimeout) + ": expected a number of seconds";
    CHECK(name_fields(message, as_written) == "`req_timeout`: expected a number of seconds");
}
