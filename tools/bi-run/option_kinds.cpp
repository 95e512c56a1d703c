#include "option_kinds.hpp"

#include <string>

#include "core/error.hpp"

namespace bi::cli {

namespace {

struct OptionKind {
    std::string_view option;
    ValueKind kind;
};

// Every option of every command, by long name.
constexpr OptionKind kKinds[] = {
    {"all-profiles", ValueKind::Switch},
    {"arm-deadline", ValueKind::Number},
    {"baseline", ValueKind::File},
    {"cert", ValueKind::File},
    {"confidence", ValueKind::Number},
    {"crash-after", ValueKind::Integer},
    {"csv", ValueKind::Switch},
    {"ctx", ValueKind::Integer},
    {"divergence", ValueKind::Text},
    {"divergence-p", ValueKind::Number},
    {"dry-run", ValueKind::Switch},
    {"dtype", ValueKind::Text},
    {"embd", ValueKind::Integer},
    {"empty", ValueKind::Switch},
    {"endpoint", ValueKind::Text},
    {"expect", ValueKind::Text},
    {"expect-deployment", ValueKind::File},
    {"ff", ValueKind::Integer},
    {"generator", ValueKind::Word},
    {"generator-param", ValueKind::Text},
    {"gguf-gb", ValueKind::Number},
    {"hang", ValueKind::Switch},
    {"head-dim", ValueKind::Integer},
    {"heads", ValueKind::Integer},
    {"help", ValueKind::Switch},
    {"html", ValueKind::File},
    {"json", ValueKind::Switch},
    {"junit", ValueKind::File},
    {"keep", ValueKind::Switch},
    {"kv-heads", ValueKind::Integer},
    {"kv-label", ValueKind::Text},
    {"layers", ValueKind::Integer},
    {"loading-seconds", ValueKind::Number},
    {"logit-drift-eps", ValueKind::Number},
    {"logprobs", ValueKind::Integer},
    {"markdown", ValueKind::Switch},
    {"max-footprint-gb", ValueKind::Number},
    {"max-n", ValueKind::Integer},
    {"max-passes", ValueKind::Integer},
    {"max-response-bytes", ValueKind::Text},
    {"model", ValueKind::File},
    {"model-alias", ValueKind::Text},
    {"model-id", ValueKind::Text},
    {"models-dir", ValueKind::Directory},
    {"models-toml", ValueKind::File},
    {"n-head-kv", ValueKind::Integer},
    {"n-layer", ValueKind::Integer},
    {"n-predict", ValueKind::Integer},
    {"out", ValueKind::File},
    {"out-dir", ValueKind::Directory},
    {"output", ValueKind::File},
    {"parallel", ValueKind::Integer},
    {"passes", ValueKind::Integer},
    {"plan", ValueKind::File},
    {"plugin", ValueKind::File},
    {"plugin-dir", ValueKind::Directory},
    {"plugin-timeout", ValueKind::Number},
    {"port", ValueKind::Integer},
    {"profile", ValueKind::Text},
    {"quiet", ValueKind::Switch},
    {"ready-timeout", ValueKind::Number},
    {"realistic-pacing", ValueKind::Switch},
    {"replace", ValueKind::Switch},
    {"report-html", ValueKind::File},
    {"reps", ValueKind::Integer},
    {"req-timeout", ValueKind::Number},
    {"require-signature", ValueKind::Switch},
    {"reserved-port", ValueKind::Integer},
    {"scorer", ValueKind::Word},
    {"scorer-config", ValueKind::File},
    {"seed", ValueKind::Count},
    {"server-bin", ValueKind::File},
    {"server-flag", ValueKind::Text},
    {"server-kind", ValueKind::Word},
    {"server-kind-dir", ValueKind::Directory},
    {"shell", ValueKind::Text},
    {"shutdown-grace", ValueKind::Number},
    {"sign-key", ValueKind::File},
    {"stagger-ms", ValueKind::Integer},
    {"stop-on-red", ValueKind::Switch},
    {"target-rate", ValueKind::Number},
    {"tick-ms", ValueKind::Number},
    {"tokenize", ValueKind::Text},
    {"trusted-key", ValueKind::File},
    {"untouchable-pid", ValueKind::Integer},
    {"vocab-words", ValueKind::Integer},
    {"workset", ValueKind::File},
};

// The cell commands take --ctx and --parallel as comma-separated lists.
constexpr std::string_view kListCommands[] = {"bi-run run-live", "bi-run sweep", "bi-run plan",
                                              "bi-run run-mock"};

}  // namespace

ValueKind value_kind(std::string_view command, std::string_view option) {
    if (option == "ctx" || option == "parallel")
        for (const auto list_command : kListCommands)
            if (command == list_command) return ValueKind::Text;
    for (const auto& entry : kKinds)
        if (entry.option == option) return entry.kind;
    throw Error(ErrorCategory::Internal,
                "bi: --" + std::string(option) + " has no kind in the option table");
}

const char* expected_value(ValueKind kind) {
    if (kind == ValueKind::Integer) return "an integer";
    if (kind == ValueKind::Number) return "a number";
    // A count, and (as the messages have always read) a switch given "=VALUE" it cannot read.
    return "a whole number (0 or more)";
}

}  // namespace bi::cli
