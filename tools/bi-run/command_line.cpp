#include "command_line.hpp"

#include <charconv>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace bi::cli {

namespace {

[[noreturn]] void usage(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

// cxxopts quotes names and values between typographic quotes; returns what the first pair holds.
std::string quoted(std::string_view message) {
    static constexpr std::string_view kOpen = "\u2018";
    static constexpr std::string_view kClose = "\u2019";
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

double number_option(const cxxopts::ParseResult& args, const char* name, double minimum,
                     double maximum) {
    const double value = args[name].as<double>();
    if (!(value >= minimum && value <= maximum))
        usage(std::string("--") + name + " must be between " + shortest(minimum) + " and " +
              shortest(maximum));
    return value;
}

cxxopts::ParseResult parse_command_line(cxxopts::Options& options, int argc, char** argv) {
    const std::string command = argc > 0 ? std::string("bi-run ") + argv[0] : "bi-run";
    try {
        auto result = options.parse(argc, argv);
        if (!result.unmatched().empty())
            usage("unexpected argument '" + result.unmatched().front() + "'");
        return result;
    } catch (const cxxopts::exceptions::incorrect_argument_type& e) {
        const std::string value = quoted(e.what());
        const std::string option = option_given_value(argc, argv, value);
        usage((option.empty() ? std::string("a value") : option) + ": '" + value +
              "' is not a valid number for this option (see " + command + " --help)");
    } catch (const cxxopts::exceptions::no_such_option& e) {
        usage("unknown option " + dashed(quoted(e.what())) + " (see " + command + " --help)");
    } catch (const cxxopts::exceptions::missing_argument& e) {
        usage(dashed(quoted(e.what())) + " needs a value");
    } catch (const cxxopts::exceptions::option_requires_argument& e) {
        usage(dashed(quoted(e.what())) + " needs a value");
    } catch (const cxxopts::exceptions::gratuitous_argument_for_option& e) {
        usage(dashed(quoted(e.what())) + " takes no value");
    } catch (const cxxopts::exceptions::parsing& e) {
        usage(e.what());
    }
}

}  // namespace bi::cli
