#include "trust_options.hpp"

#include "core/error.hpp"
#include "option_tokens.hpp"
#include "trust/expectations.hpp"

namespace bi::cli {

void add_trusted_key_option(cxxopts::OptionAdder& adder) {
    adder("trusted-key",
          "A public key file (or a directory of *.pub / *.pem) whose signatures are trusted "
          "(repeatable)",
          cxxopts::value<std::vector<std::string>>());
}

void add_promotion_options(cxxopts::OptionAdder& adder) {
    adder("require-signature", "A cert not signed by a trusted key is not promotable")(
        "expect",
        "KEY=VALUE the cert must have been made for (repeatable): binary_sha256, model_sha256, "
        "model, server_flag, server_flags, ctx, n, kv_label, plugin_sha256, workset_sha256, "
        "scorer, source, configuration_id",
        cxxopts::value<std::vector<std::string>>())(
        "expect-deployment", "A JSON object of the same keys (lists for repeatable ones)",
        cxxopts::value<std::string>());
}

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
