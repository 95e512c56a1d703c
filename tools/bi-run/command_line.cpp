#include "command_line.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "option_aliases.hpp"
#include "option_kinds.hpp"

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

// What the option given as `option` ("--passes") takes, for a value it could not read. A value
// found on no option (an item of a list, "1,x") is named as before: a whole number.
const char* expected_of(const cxxopts::Options& options, const std::string& option) {
    if (option.empty()) return expected_value(ValueKind::Count);
    return expected_value(
        value_kind(options.program(), option.substr(option.find_first_not_of('-'))));
}

}  // namespace

OptionTable option_table(const CommandOptions& command) {
    const auto& options = command.options;
    const auto& groups = command.help_groups;
    OptionTable table;
    const std::string help = options.help({}, true);
    const std::string usage_mark = "\nUsage:\n  " + options.program();
    const auto at = help.find(usage_mark);
    table.description = help.substr(0, at);
    if (at != std::string::npos) {
        const auto start = at + usage_mark.size();
        const auto end = help.find('\n', start);
        table.usage = help.substr(start, end - start);
        while (!table.usage.empty() && table.usage.front() == ' ') table.usage.erase(0, 1);
    }
    const auto present = options.groups();
    for (const auto& name : groups.empty() ? present : groups) {
        // --help skips a group it is asked for that has no options; so does the table.
        if (std::find(present.begin(), present.end(), name) == present.end()) continue;
        OptionGroup group{name, {}};
        for (const auto& detail : options.group_help(name).options) {
            OptionEntry entry;
            entry.short_name = detail.s;
            entry.long_name = detail.l.empty() ? std::string() : detail.l.front();
            entry.description = detail.desc;
            if (!detail.is_boolean)
                entry.value_name = detail.arg_help.empty() ? "arg" : detail.arg_help;
            if (detail.has_default && !detail.is_boolean)
                entry.default_value = detail.default_value;
            entry.repeatable = detail.is_container;
            entry.kind = value_kind(options.program(), entry.long_name);
            group.options.push_back(std::move(entry));
        }
        table.groups.push_back(std::move(group));
    }
    return table;
}

bool printed_help(const cxxopts::ParseResult& args, const CommandOptions& command) {
    if (!args.count("help")) return false;
    std::cout << command.options.help(command.help_groups) << "\n";
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

cxxopts::ParseResult parse_command_line(cxxopts::Options& options, int argc, char** argv) {
    const std::string command = argc > 0 ? std::string("bi-run ") + argv[0] : "bi-run";
    try {
        auto result = options.parse(argc, argv);
        if (!result.unmatched().empty())
            usage_error("unexpected argument '" + result.unmatched().front() + "'");
        for (const auto& note : take_alias_notes())
            std::cerr << command << ": note: " << note << "\n";
        return result;
    } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
        const std::string value = quoted(e.what());
        const std::string option = option_given_value(argc, argv, value);
        usage_error((option.empty() ? std::string("a value") : option) + ": '" + value +
                    "' is not " + expected_of(options, option) + " (see " + command + " --help)");
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
