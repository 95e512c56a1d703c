#include "command_line.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "option_aliases.hpp"

namespace bi::cli {

namespace {

constexpr std::string_view kOpenQuote = "\u2018";
constexpr std::string_view kCloseQuote = "\u2019";

// cxxopts quotes names and values between typographic quotes; returns what the first pair holds.
std::string quoted(std::string_view message) {
    constexpr std::string_view kOpen = kOpenQuote;
    constexpr std::string_view kClose = kCloseQuote;
    const auto open = message.find(kOpen);
    if (open == std::string_view::npos) return {};
    const auto start = open + kOpen.size();
    const auto close = message.find(kClose, start);
    if (close == std::string_view::npos) return {};
    return std::string(message.substr(start, close - start));
}

// The shortest text that reads back as `value` ("0.001", "1e+06").
std::string shortest(double value) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return std::string(text, end);
}

std::string dashed(const std::string& name) {
    if (name.empty() || name.front() == '-') return name;
    return (name.size() == 1 ? "-" : "--") + name;
}

}  // namespace

std::string option_given_value(int argc, const char* const* argv, std::string_view value) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view token = argv[i];
        if (token.size() < 2 || token.front() != '-') continue;
        const auto equals = token.find('=');
        if (equals != std::string_view::npos) {
            if (token.substr(equals + 1) == value) return std::string(token.substr(0, equals));
        } else if (i + 1 < argc && argv[i + 1] == value) {
            return std::string(token);
        }
    }
    return {};
}

namespace {

// The spec of the option whose long name is `long_name` among `command`'s options, or nullptr.
const OptionSpec* find_option(const CommandSpec& command, std::string_view long_name) {
    for (const auto& group : command.groups)
        for (const auto id : group.ids)
            if (const auto& spec = option_spec(id); spec.long_name() == long_name) return &spec;
    return nullptr;
}

// What the option given as `option` ("--passes") takes, for a value it could not read. A value
// found on no option (an item of a list, "1,x") is named as before: a whole number.
const char* expected_of(const CommandSpec& command, const std::string& option) {
    if (option.empty()) return expected_value(ValueKind::Count);
    const OptionSpec* spec = find_option(command, option.substr(option.find_first_not_of('-')));
    return expected_value(spec ? spec->kind : ValueKind::Count);
}

std::shared_ptr<cxxopts::Value> value_of(const OptionSpec& spec) {
    std::shared_ptr<cxxopts::Value> value;
    switch (spec.type) {
        case ValueType::Switch:
            return cxxopts::value<bool>();
        case ValueType::Int:
            value = cxxopts::value<int>();
            break;
        case ValueType::Int64:
            value = cxxopts::value<std::int64_t>();
            break;
        case ValueType::Count:
            value = cxxopts::value<std::uint64_t>();
            break;
        case ValueType::Number:
            value = cxxopts::value<double>();
            break;
        case ValueType::Text:
            value = cxxopts::value<std::string>();
            break;
        case ValueType::Texts:
            value = cxxopts::value<std::vector<std::string>>();
            break;
        case ValueType::Ints:
            value = cxxopts::value<std::vector<int>>();
            break;
    }
    if (spec.default_value) value->default_value(*spec.default_value);
    return value;
}

// The groups --help shows: the spec's list, else every group in cxxopts' (alphabetical) order;
// a group asked for that has no options is skipped, as --help skips it.
std::vector<const OptionGroupSpec*> shown_groups(const CommandSpec& command) {
    std::vector<const OptionGroupSpec*> present;
    for (const auto& group : command.groups) present.push_back(&group);
    std::sort(present.begin(), present.end(),
              [](const auto* a, const auto* b) { return a->name < b->name; });
    if (command.help_groups.empty()) return present;
    std::vector<const OptionGroupSpec*> shown;
    for (const auto& name : command.help_groups)
        for (const auto* group : present)
            if (group->name == name) shown.push_back(group);
    return shown;
}

}  // namespace

CommandOptions command_options(std::string_view name) {
    const CommandSpec& spec = command_spec(name);
    CommandOptions command{cxxopts::Options("bi-run " + std::string(name), spec.description),
                           &spec};
    if (!spec.positional_help.empty())
        command.options.positional_help(std::string(spec.positional_help));
    for (const auto& group : spec.groups)
        for (const auto id : group.ids) {
            const OptionSpec& option = option_spec(id);
            command.options.add_options(group.name)(option.cxxopts_names(), option.help,
                                                    value_of(option),
                                                    std::string(option.value_name));
        }
    if (!spec.positional.empty()) command.options.parse_positional({std::string(spec.positional)});
    return command;
}

OptionTable option_table(const CommandSpec& command) {
    OptionTable table;
    table.description = command.description;
    table.usage = "[OPTION...]";
    if (!command.positional_help.empty()) table.usage += " " + std::string(command.positional_help);
    for (const auto* group : shown_groups(command)) {
        OptionGroup shown{group->name, {}};
        for (const auto id : group->ids) {
            const OptionSpec& spec = option_spec(id);
            OptionEntry entry;
            entry.short_name = spec.short_name ? std::string(1, spec.short_name) : "";
            entry.long_name = spec.long_name();
            entry.description = spec.help;
            if (spec.type != ValueType::Switch) {
                entry.value_name = spec.value_name.empty() ? "arg" : std::string(spec.value_name);
                entry.default_value = spec.default_value.value_or("");
            }
            entry.repeatable = spec.repeatable();
            entry.kind = spec.kind;
            entry.choices = spec.choices;
            shown.options.push_back(std::move(entry));
        }
        table.groups.push_back(std::move(shown));
    }
    return table;
}

ValueKind value_kind(std::string_view command, std::string_view option) {
    const std::string_view name = command.substr(command.rfind("bi-run ") == 0 ? 7 : 0);
    if (const OptionSpec* spec = find_option(command_spec(name), option)) return spec->kind;
    throw Error(ErrorCategory::Internal,
                "bi: --" + std::string(option) + " is not an option of " + std::string(command));
}

bool printed_help(const cxxopts::ParseResult& args, const CommandOptions& command) {
    if (!args.count("help")) return false;
    std::cout << command.options.help(command.spec->help_groups) << "\n";
    return true;
}

std::optional<std::string> given(const cxxopts::ParseResult& args, const char* name) {
    if (!args.count(name)) return std::nullopt;
    return args[name].as<std::string>();
}

double number_option(const cxxopts::ParseResult& args, const char* name, double minimum,
                     double maximum) {
    const double value = args[name].as<double>();
    if (!(value >= minimum && value <= maximum))
        usage_error(std::string("--") + name + " must be between " + shortest(minimum) + " and " +
                    shortest(maximum));
    return value;
}

cxxopts::ParseResult parse_command_line(CommandLine& line, CommandOptions& command_options,
                                        int argc, char** argv) {
    cxxopts::Options& options = command_options.options;
    const std::string command = argc > 0 ? std::string("bi-run ") + argv[0] : "bi-run";
    try {
        auto result = options.parse(argc, argv);
        if (!result.unmatched().empty())
            usage_error("unexpected argument '" + result.unmatched().front() + "'");
        for (const auto& note : line.aliases.notes)
            std::cerr << command << ": note: " << note << "\n";
        line.aliases.notes.clear();
        return result;
    } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
        const std::string value = quoted(e.what());
        const std::string option = option_given_value(argc, argv, value);
        usage_error((option.empty() ? std::string("a value") : option) + ": '" + value +
                    "' is not " + expected_of(*command_options.spec, option) + " (see " + command +
                    " --help)");
    } catch (const cxxopts::exceptions::no_such_option& e) {
        usage_error("unknown option " + dashed(quoted(e.what())) + " (see " + command + " --help)");
    } catch (const cxxopts::exceptions::missing_argument& e) {
        usage_error(dashed(quoted(e.what())) + " needs a value");
    } catch (const cxxopts::exceptions::option_requires_argument& e) {
        usage_error(dashed(quoted(e.what())) + " needs a value");
    } catch (const cxxopts::exceptions::gratuitous_argument_for_option& e) {
        usage_error(dashed(quoted(e.what())) + " takes no value");
    } catch (const cxxopts::exceptions::parsing& e) {
        std::string message = e.what();
        for (const std::string_view quote : {kOpenQuote, kCloseQuote})
            for (auto at = message.find(quote); at != std::string::npos; at = message.find(quote))
                message.replace(at, quote.size(), "'");
        usage_error(message);
    }
}

}  // namespace bi::cli
