// Every option of every bi-run command, declared once: its name, what its value is, its help, its
// default and the request field it sets. Commands list the options they take by id
// (command_specs.hpp); cxxopts, --help, the man pages, the completion scripts, the parse errors
// and the naming of request fields in the driver's messages (option_naming.hpp) all read this one
// table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/request_field.hpp"

namespace bi::cli {

// What a value is, for the person typing it: what a parse error says was expected, and what a
// completion script offers.
enum class ValueKind { Switch, Integer, Count, Number, Text, File, Directory, Word };

// How cxxopts stores the value (what the command reads it as).
enum class ValueType {
    Switch,  // bool, no value
    Int,     // int
    Int64,   // std::int64_t
    Count,   // std::uint64_t
    Number,  // double
    Text,    // std::string
    Texts,   // std::vector<std::string>, repeatable
    Ints,    // std::vector<int>, repeatable
};

struct OptionSpec {
    // Unique: the long name, or "NAME@COMMAND" where a command gives the same name another
    // meaning, help or default ("ctx@selftest").
    std::string_view id;
    ValueType type;
    ValueKind kind;
    std::optional<std::string> default_value;
    std::string_view value_name;  // the placeholder --help shows ("FILE"); empty: "arg"
    std::string help;
    char short_name = 0;  // 'h' for -h, or none
    // The field of the driver's request the option's value goes to; none for an option the
    // command reads itself (report, verify-cert, the mock's knobs, ...).
    std::optional<core::RequestField> field;
    // The only words the value may be ("chat", "completion"), for the completion scripts; empty
    // when the value is free (a path, a number, a name from the plugins or kinds).
    std::vector<std::string> choices{};

    std::string long_name() const;      // "ctx" for "ctx@selftest"
    std::string cxxopts_names() const;  // "h,help", "ctx"
    bool repeatable() const { return type == ValueType::Texts || type == ValueType::Ints; }
    // This spec, setting `request_field`: spec(...).sets(F::Ctxs) in the table.
    OptionSpec sets(core::RequestField request_field) &&;
    // This spec, whose value is one of `words`: spec(...).one_of({"chat", "completion"}).
    OptionSpec one_of(std::vector<std::string> words) &&;
};

// The whole table, in declaration order.
const std::vector<OptionSpec>& option_specs();

// The option with this id; bi::Error(Internal) when there is none (a command lists an id the
// table lacks: a bug, caught by every test that parses that command).
const OptionSpec& option_spec(std::string_view id);

// The fields of core::request_fields() that no option in `specs` sets: a message that names one
// could not be told as an option (a CLI test checks the table leaves none).
std::vector<core::RequestField> fields_without_option(const std::vector<OptionSpec>& specs);

// What a value of `kind` must be, for "--passes: 'abc' is not an integer".
const char* expected_value(ValueKind kind);

}  // namespace bi::cli
