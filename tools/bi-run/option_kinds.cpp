#include "option_kinds.hpp"

#include <string>

#include "core/error.hpp"

namespace bi::cli {

namespace {

// Every option of every command, by long name, each followed by a space.
struct KindNames {
    ValueKind kind;
    std::string_view names;
};
constexpr KindNames kKinds[] = {
    {ValueKind::Switch,
     "all-profiles csv dry-run empty hang help json keep markdown quiet "
     "realistic-pacing replace require-signature stop-on-red "},
    {ValueKind::Integer,
     "crash-after ctx embd ff head-dim heads kv-heads layers logprobs max-n max-passes "
     "n-head-kv n-layer n-predict parallel passes port reps reserved-port stagger-ms "
     "untouchable-pid vocab-words "},
    {ValueKind::Count, "seed "},
    {ValueKind::Number,
     "arm-deadline confidence divergence-p gguf-gb loading-seconds logit-drift-eps "
     "max-footprint-gb plugin-timeout ready-timeout req-timeout shutdown-grace "
     "target-rate tick-ms "},
    {ValueKind::Text,
     "divergence dtype endpoint expect generator-param kv-label max-response-bytes "
     "model-alias model-id profile server-flag shell tokenize "},
    {ValueKind::File,
     "baseline cert expect-deployment html junit model models-toml out output plan "
     "plugin report-html scorer-config server-bin sign-key trusted-key workset "},
    {ValueKind::Directory, "models-dir out-dir plugin-dir server-kind-dir "},
    {ValueKind::Word, "generator scorer server-kind "},
};

// The cell commands take --ctx and --parallel as comma-separated lists.
constexpr std::string_view kListCommands[] = {"bi-run run-live", "bi-run sweep", "bi-run plan",
                                              "bi-run run-mock"};

}  // namespace

ValueKind value_kind(std::string_view command, std::string_view option) {
    if (option == "ctx" || option == "parallel")
        for (const auto list_command : kListCommands)
            if (command == list_command) return ValueKind::Text;
    const std::string word = " " + std::string(option) + " ";
    for (const auto& entry : kKinds)
        if ((" " + std::string(entry.names)).find(word) != std::string::npos) return entry.kind;
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
