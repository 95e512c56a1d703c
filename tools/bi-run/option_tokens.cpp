#include "option_tokens.hpp"

namespace bi::cli {

std::vector<std::string> option_tokens(const cxxopts::ParseResult& args, const std::string& name) {
    std::vector<std::string> tokens;
    for (const auto& given : args.arguments())
        if (given.key() == name) tokens.push_back(given.value());
    return tokens;
}

}  // namespace bi::cli
