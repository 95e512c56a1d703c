#include "server_kind.hpp"

#include <algorithm>

#include "error.hpp"

namespace bi::core {

namespace {

bool known(std::string_view name) {
    return std::find(std::begin(kLaunchPlaceholders), std::end(kLaunchPlaceholders), name) !=
           std::end(kLaunchPlaceholders);
}

std::string value_of(std::string_view name, const LaunchValues& v) {
    if (name == kChunkPlaceholder) return std::to_string(v.prefill_chunk);
    if (name == "model") return v.model;
    if (name == "host") return v.host;
    if (name == "port") return std::to_string(v.port);
    if (name == "n") return std::to_string(v.n);
    if (name == "ctx") return std::to_string(v.ctx);
    return std::to_string(v.ctx * v.n);  // ctx_total; unknown names are refused when read
}

// "--port=8080" names the flag "--port".
std::string_view flag_name(std::string_view token) {
    const auto eq = token.find('=');
    return eq == std::string_view::npos ? token : token.substr(0, eq);
}

}  // namespace

std::string unknown_placeholder(std::string_view text, bool chunk) {
    for (std::size_t open = text.find('{'); open != std::string_view::npos;
         open = text.find('{', open + 1)) {
        const auto close = text.find('}', open);
        if (close == std::string_view::npos) return std::string(text.substr(open));
        const auto name = text.substr(open + 1, close - open - 1);
        if (!known(name) && !(chunk && name == kChunkPlaceholder))
            return "{" + std::string(name) + "}";
    }
    return "";
}

std::string fill_placeholders(std::string_view text, const LaunchValues& values) {
    std::string out;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto open = text.find('{', at);
        const auto close = open == std::string_view::npos ? open : text.find('}', open);
        if (close == std::string_view::npos) break;
        const auto name = text.substr(open + 1, close - open - 1);
        out.append(text.substr(at, open - at));
        out += known(name) || name == kChunkPlaceholder
                   ? value_of(name, values)
                   : std::string(text.substr(open, close - open + 1));
        at = close + 1;
    }
    out.append(text.substr(std::min(at, text.size())));
    return out;
}

std::vector<std::string> launch_argv(const ServerKind& kind, const std::string& binary,
                                     const LaunchValues& values,
                                     const std::vector<std::string>& user_flags, PromptCache cache,
                                     bool determinism) {
    if (kind.launch.argv.empty())
        throw Error(ErrorCategory::Internal, "server kind '" + kind.name + "' has no launch argv");
    std::vector<std::string> argv{binary};
    for (const auto& token : kind.launch.argv) argv.push_back(fill_placeholders(token, values));
    if (cache == PromptCache::Off)
        for (const auto& token : kind.launch.cache_off)
            argv.push_back(fill_placeholders(token, values));
    if (values.prefill_chunk > 0) {
        if (kind.launch.prefill_chunk.empty())
            throw Error(ErrorCategory::Internal,
                        "server kind '" + kind.name + "' cannot set a prefill chunk");
        for (const auto& token : kind.launch.prefill_chunk)
            argv.push_back(fill_placeholders(token, values));
    }
    if (determinism)
        for (const auto& token : kind.determinism.flags)
            argv.push_back(fill_placeholders(token, values));
    argv.insert(argv.end(), user_flags.begin(), user_flags.end());
    return argv;
}

std::vector<std::string> launch_env(const ServerKind& kind, const LaunchValues& values,
                                    bool determinism) {
    std::vector<std::string> env;
    env.reserve(kind.launch.env.size());
    for (const auto& [name, value] : kind.launch.env)
        env.push_back(name + "=" + fill_placeholders(value, values));
    if (determinism)
        for (const auto& [name, value] : kind.determinism.env)
            env.push_back(name + "=" + fill_placeholders(value, values));
    return env;
}

std::string CacheWitness::describe() const {
    std::string text;
    for (const auto& field : cached_tokens) text += (text.empty() ? "" : ", ") + field;
    for (const auto& field : evaluated_tokens)
        text += (text.empty() ? "" : ", ") + std::string("prompt tokens - ") + field;
    return text;
}

bool KindEvidence::operator==(const KindEvidence& o) const {
    return slots_path == o.slots_path && slot_busy == o.slot_busy && slot_task == o.slot_task &&
           slots_hint == o.slots_hint && metrics_path == o.metrics_path &&
           metrics_format == o.metrics_format && running_gauge == o.running_gauge &&
           gauge_hint == o.gauge_hint && step_mean == o.step_mean && step_sum == o.step_sum &&
           step_count == o.step_count && capacity_field == o.capacity_field &&
           props_path == o.props_path && served_model == o.served_model;
}

std::string_view model_form_name(ModelForm form) {
    switch (form) {
        case ModelForm::Gguf:
            return "gguf";
        case ModelForm::Directory:
            return "directory";
        case ModelForm::Name:
            return "name";
    }
    return "gguf";
}

const KindEvidence& unrecorded_kind_evidence() {
    static const KindEvidence evidence = [] {
        KindEvidence e = llama_server_evidence();
        e.served_model.clear();
        e.slot_task.clear();
        return e;
    }();
    return evidence;
}

namespace {

bool ends_with_path(const std::string& longer, const std::string& shorter) {
    return longer.size() > shorter.size() && longer[longer.size() - shorter.size() - 1] == '/' &&
           longer.compare(longer.size() - shorter.size(), shorter.size(), shorter) == 0;
}

bool same_model(const std::string& reported, const std::string& launched) {
    return reported == launched || ends_with_path(reported, launched) ||
           ends_with_path(launched, reported);
}

}  // namespace

std::vector<std::string> model_identity_problems(const KindEvidence& evidence,
                                                 const Json& props_serial, const Json& props_n,
                                                 std::int64_t n, const std::string& launched) {
    std::vector<std::string> problems;
    if (evidence.served_model.empty() || launched.empty()) return problems;
    const auto check = [&](const Json& props, const std::string& which) {
        const Json* named = props.find(evidence.served_model);
        if (!named || !named->is_string() || same_model(named->as_string(), launched)) return;
        problems.push_back("the " + which + " server's " + evidence.props_path + " " +
                           evidence.served_model + " is '" + named->as_string() +
                           "', not the launched '" + launched + "'");
    };
    check(props_serial, "serial");
    check(props_n, std::to_string(n) + "-slot");
    return problems;
}

void check_user_flags(const ServerKind& kind, const std::vector<std::string>& flags) {
    const auto& managed = kind.launch.managed_flags;
    for (const auto& token : flags) {
        const auto name = flag_name(token);
        if (std::find(managed.begin(), managed.end(), name) != managed.end())
            throw Error(ErrorCategory::Usage, "--server-flag " + token + ": bi-run sets " +
                                                  std::string(name) + " itself for each arm (" +
                                                  kind.name + ")");
    }
}

std::vector<std::string> flag_names(const std::vector<std::string>& tokens) {
    std::vector<std::string> names;
    for (const auto& token : tokens)
        if (token.size() > 1 && token[0] == '-') names.emplace_back(flag_name(token));
    return names;
}

std::string prefill_chunk_flag_among(const ServerKind& kind,
                                     const std::vector<std::string>& flags) {
    const auto& names = kind.flags.prefill_chunk;
    for (const auto& token : flags)
        if (std::find(names.begin(), names.end(), flag_name(token)) != names.end()) return token;
    return "";
}

}  // namespace bi::core
