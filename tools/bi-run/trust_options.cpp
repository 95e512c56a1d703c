#include "trust_options.hpp"

#include "core/error.hpp"
#include "option_tokens.hpp"
#include "trust/expectations.hpp"

namespace bi::cli {

trust::JudgeOptions judge_options(const cxxopts::ParseResult& args) {
    trust::JudgeOptions o;
    // Whole tokens: a key path or an expected flag list may hold a comma.
    for (const auto& path : option_tokens(args, "trusted-key")) o.trusted.add(path);
    o.require_signature = args.count("require-signature") > 0;
    if (o.require_signature && o.trusted.empty())
        throw Error(ErrorCategory::Usage,
                    "--require-signature needs --trusted-key (the keys a signature must be by)");
    for (const auto& text : option_tokens(args, "expect"))
        o.expected.push_back(trust::parse_expectation(text, "--expect"));
    if (args.count("expect-deployment"))
        for (auto& e : trust::read_deployment_file(args["expect-deployment"].as<std::string>()))
            o.expected.push_back(std::move(e));
    return o;
}

}  // namespace bi::cli
