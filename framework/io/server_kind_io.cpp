#include "server_kind_io.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/sha256.hpp"
#include "files.hpp"
#include "kind_evidence_fields.hpp"
#include "toml_read.hpp"

namespace bi::io {

namespace {

using toml_read::bad;

constexpr std::pair<core::MetricsFormat, std::string_view> kMetricsFormats[] = {
    {core::MetricsFormat::Prometheus, "prometheus"},
    {core::MetricsFormat::JsonIterations, "json-iterations"},
};

bool is_name(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
    });
}

// `chunk`: the template may hold {chunk} (launch.prefill_chunk), which no other may.
void check_template(const std::string& text, const std::string& path, const std::string& where,
                    bool chunk = false) {
    if (const auto unknown = core::unknown_placeholder(text, chunk); !unknown.empty()) {
        std::string known;
        for (const auto name : core::kLaunchPlaceholders)
            known += (known.empty() ? "{" : ", {") + std::string(name) + "}";
        const std::string chunk_word = "{" + std::string(core::kChunkPlaceholder) + "}";
        known += chunk ? ", " + chunk_word : "; " + chunk_word + " only in launch.prefill_chunk";
        bad(path, where + ": unknown placeholder " + unknown + " in '" + text +
                      "' (known: " + known + ")");
    }
}

bool is_env_name(const std::string& text) {
    return !text.empty() && !(text[0] >= '0' && text[0] <= '9') &&
           std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_';
           });
}

// An endpoint path: "" (none) or "/..." with no whitespace, query or fragment.
std::string path_at(const toml::table& t, const char* key, const std::string& path,
                    const std::string& where) {
    std::string value = toml_read::string_at(t, key, path, where);
    if (value.empty()) return value;
    const bool clean = value.front() == '/' && std::none_of(value.begin(), value.end(), [](char c) {
                           return c <= ' ' || c == '?' || c == '#' || c == 0x7f;
                       });
    if (!clean) bad(path, where + "." + key + " '" + value + "' must be a path starting with '/'");
    return value;
}

using toml_read::bool_at;
using toml_read::Row;
using toml_read::text_row;
using toml_read::texts_row;

// An endpoint path member ("" when absent).
template <typename S>
Row<S> path_row(const char* key, std::string S::*member) {
    return {key,
            [key, member](const toml::table& t, const std::string& path, const std::string& where,
                          S& out) { out.*member = path_at(t, key, path, where); }};
}

// A true-or-false member.
template <typename S>
Row<S> flag_row(const char* key, bool S::*member, bool fallback) {
    return {key, [key, member, fallback](const toml::table& t, const std::string& path,
                                         const std::string& where, S& out) {
                out.*member = bool_at(t, key, fallback, path, where);
            }};
}

const toml::table* table_at(const toml::table& root, const char* key, const std::string& path) {
    const toml::node* node = root.get(key);
    if (!node) return nullptr;
    if (!node->is_table()) bad(path, std::string("[") + key + "] must be a table");
    return node->as_table();
}

void check_templates(const std::vector<std::string>& tokens, const std::string& path,
                     const std::string& where, bool chunk = false) {
    for (const auto& token : tokens) check_template(token, path, where, chunk);
}

// A table of NAME = "value" at `where`.env (a template each), in name order.
std::vector<std::pair<std::string, std::string>> env_at(const toml::table& t,
                                                        const std::string& path,
                                                        const std::string& where) {
    std::vector<std::pair<std::string, std::string>> out;
    const toml::node* env = t.get("env");
    if (!env) return out;
    if (!env->is_table()) bad(path, where + ".env must be a table of NAME = \"value\"");
    for (const auto& [key, value] : *env->as_table()) {
        const std::string name(key.str());
        if (!is_env_name(name))
            bad(path, where + ".env: '" + name + "' is not an environment variable name");
        if (!value.is_string()) bad(path, where + ".env." + name + " must be a string");
        const std::string text = value.value<std::string>().value_or("");
        check_template(text, path, where + ".env." + name);
        out.emplace_back(name, text);
    }
    return out;
}

const std::vector<Row<core::KindLaunch>>& launch_rows() {
    using L = core::KindLaunch;
    static const std::vector<Row<L>> rows{
        {"argv",
         [](const toml::table& t, const std::string& path, const std::string& where, L& launch) {
             launch.argv = toml_read::strings_at(t, "argv", path, where);
             if (launch.argv.empty()) bad(path, "launch.argv must list the server's arguments");
             check_templates(launch.argv, path, "launch.argv");
         }},
        {"env", [](const toml::table& t, const std::string& path, const std::string& where,
                   L& launch) { launch.env = env_at(t, path, where); }},
        texts_row("managed_flags", &L::managed_flags),
        {"cache_off",
         [](const toml::table& t, const std::string& path, const std::string& where, L& launch) {
             launch.cache_off = toml_read::strings_at(t, "cache_off", path, where);
             check_templates(launch.cache_off, path, "launch.cache_off");
         }},
        {"prefill_chunk",
         [](const toml::table& t, const std::string& path, const std::string& where, L& launch) {
             launch.prefill_chunk = toml_read::strings_at(t, "prefill_chunk", path, where);
             check_templates(launch.prefill_chunk, path, "launch.prefill_chunk", true);
             const std::string chunk = "{" + std::string(core::kChunkPlaceholder) + "}";
             const bool uses_chunk = std::any_of(
                 launch.prefill_chunk.begin(), launch.prefill_chunk.end(),
                 [&](const std::string& token) { return token.find(chunk) != std::string::npos; });
             if (t.get("prefill_chunk") && !uses_chunk)
                 bad(path, "launch.prefill_chunk must set the chunk: it never uses " + chunk);
         }},
        {"ready_path",
         [](const toml::table& t, const std::string& path, const std::string& where, L& launch) {
             launch.ready_path = path_at(t, "ready_path", path, where);
             if (launch.ready_path.empty()) launch.ready_path = "/health";
         }},
        {"model_form",
         [](const toml::table& t, const std::string& path, const std::string& where, L& launch) {
             const auto form = toml_read::string_at(t, "model_form", path, where);
             if (form == "directory")
                 launch.model_form = core::ModelForm::Directory;
             else if (form == "name")
                 launch.model_form = core::ModelForm::Name;
             else if (!form.empty() && form != "gguf")
                 bad(path, "launch.model_form '" + form + "' is not gguf, directory or name");
         }},
        text_row("memory_fraction_flag", &L::memory_fraction_flag),
        {"memory_fraction_default",  // after its flag
         [](const toml::table& t, const std::string& path, const std::string&, L& launch) {
             const toml::node* d = t.get("memory_fraction_default");
             if (!d) return;
             const auto value = d->value<double>();
             if (!value || !(*value > 0.0 && *value <= 1.0) || launch.memory_fraction_flag.empty())
                 bad(path,
                     "launch.memory_fraction_default must be a fraction in (0, 1], with "
                     "memory_fraction_flag");
             launch.memory_fraction_default = *value;
         }},
    };
    return rows;
}

core::KindLaunch read_launch(const toml::table& root, const std::string& path) {
    const toml::table* table = table_at(root, "launch", path);
    if (!table) bad(path, "no [launch] table");
    core::KindLaunch launch;
    toml_read::read_rows(*table, launch_rows(), path, "launch", "[launch]", launch);
    // The model, where the server listens and how many requests it computes at once are what a
    // cell is; a kind that cannot be told them cannot be run.
    std::string all;
    for (const auto& token : launch.argv) all += token + "\n";
    for (const auto& [name, text] : launch.env) all += text + "\n";
    for (const char* needed : {"{port}", "{n}"})
        if (all.find(needed) == std::string::npos)
            bad(path, std::string("launch.argv and launch.env never use ") + needed);
    launch.model_in_launch = all.find("{model}") != std::string::npos;
    return launch;
}

// A TOML value as JSON: strings, booleans, integers, floats, arrays and tables of those.
core::Json json_of(const toml::node& node, const std::string& path, const std::string& where) {
    if (node.is_string()) return core::Json(node.value<std::string>().value_or(""));
    if (node.is_boolean()) return core::Json(node.value<bool>().value_or(false));
    if (node.is_integer()) return core::Json(node.value<std::int64_t>().value_or(0));
    if (node.is_floating_point()) return core::Json(node.value<double>().value_or(0.0));
    if (const toml::array* array = node.as_array()) {
        core::Json out = core::Json::array();
        for (const auto& item : *array) out.push_back(json_of(item, path, where));
        return out;
    }
    if (const toml::table* table = node.as_table()) {
        core::Json out = core::Json::object();
        for (const auto& [key, value] : *table)
            out.set(key.str(), json_of(value, path, where + "." + std::string(key.str())));
        return out;
    }
    bad(path, where + " must be a string, number, boolean, array or table");
}

// Body fields bi-run itself decides: a kind may not override them.
constexpr std::string_view kOwnedFields[] = {"messages", "prompt",   "temperature", "seed",
                                             "stream",   "logprobs", "top_logprobs"};

// A table of body fields as JSON; none of them one bi-run sets itself.
core::Json body_fields_at(const toml::table& t, const char* key, const std::string& path) {
    const toml::node* fields = t.get(key);
    if (!fields) return core::Json::object();
    const std::string where = std::string("request.") + key;
    if (!fields->is_table()) bad(path, where + " must be a table");
    core::Json json = json_of(*fields, path, where);
    for (const auto owned : kOwnedFields)
        if (json.find(owned))
            bad(path, where + "." + std::string(owned) + ": bi-run sets it itself");
    return json;
}

// A dotted field path into an answer ("usage.prompt_tokens_details.cached_tokens"): each
// segment a non-empty name.
bool is_field_path(const std::string& field) {
    const bool empty_segment = field.empty() || field.front() == '.' || field.back() == '.' ||
                               field.find("..") != std::string::npos;
    return !empty_segment && field.find_first_of(" \t") == std::string::npos;
}

// A list of dotted field paths.
std::vector<std::string> field_paths_at(const toml::table& t, const char* key,
                                        const std::string& path, const std::string& where) {
    auto fields = toml_read::strings_at(t, key, path, where);
    for (const auto& field : fields)
        if (!is_field_path(field))
            bad(path,
                where + "." + key + ": '" + field + "' is not a dotted field path (name.name...)");
    return fields;
}

// Warm-up requests a kind may ask for after each launch: a handful, never a workload.
constexpr std::int64_t kMaxWarmup = 64;

const std::vector<Row<core::KindRequest>>& request_rows() {
    using R = core::KindRequest;
    static const std::vector<Row<R>> rows{
        {"chat_path",
         [](const toml::table& t, const std::string& path, const std::string& where, R& request) {
             if (auto chat = path_at(t, "chat_path", path, where); !chat.empty())
                 request.chat_path = std::move(chat);
         }},
        path_row("completion_path", &R::completion_path),
        {"limit_fields",
         [](const toml::table& t, const std::string& path, const std::string& where, R& request) {
             if (t.get("limit_fields"))
                 request.limit_fields = toml_read::strings_at(t, "limit_fields", path, where);
             if (request.limit_fields.empty())
                 bad(path,
                     "request.limit_fields must name the field that limits the answer's length");
         }},
        {"fields", [](const toml::table& t, const std::string& path, const std::string&,
                      R& request) { request.fields = body_fields_at(t, "fields", path); }},
        {"stream_fields",
         [](const toml::table& t, const std::string& path, const std::string&, R& request) {
             request.stream_fields = body_fields_at(t, "stream_fields", path);
         }},
        flag_row("streams", &R::streams, true),
        text_row("slot_field", &R::slot_field),
        flag_row("model_field", &R::model_field, false),
        path_row("tokenize_path", &R::tokenize_path),
        path_row("detokenize_path", &R::detokenize_path),
        {"cache_on_fields",
         [](const toml::table& t, const std::string& path, const std::string&, R& request) {
             request.cache_on_fields = body_fields_at(t, "cache_on_fields", path);
         }},
        flag_row("prompt_ids", &R::prompt_ids, false),
        {"cached_tokens",
         [](const toml::table& t, const std::string& path, const std::string& where, R& request) {
             request.cache_witness.cached_tokens = field_paths_at(t, "cached_tokens", path, where);
         }},
        {"evaluated_tokens",
         [](const toml::table& t, const std::string& path, const std::string& where, R& request) {
             request.cache_witness.evaluated_tokens =
                 field_paths_at(t, "evaluated_tokens", path, where);
         }},
        {"warmup",
         [](const toml::table& t, const std::string& path, const std::string&, R& request) {
             const toml::node* n = t.get("warmup");
             if (!n) return;
             const auto value = n->value<std::int64_t>();
             if (!n->is_integer() || !value || *value < 0 || *value > kMaxWarmup)
                 bad(path, "request.warmup must be a count of requests from 0 to " +
                               std::to_string(kMaxWarmup));
             request.warmup = static_cast<int>(*value);
         }},
        {"draft_fields",
         [](const toml::table& t, const std::string& path, const std::string& where, R& request) {
             request.draft_fields = field_paths_at(t, "draft_fields", path, where);
         }},
    };
    return rows;
}

core::KindRequest read_request(const toml::table& root, const std::string& path) {
    core::KindRequest request;
    const toml::table* table = table_at(root, "request", path);
    if (!table) return request;
    toml_read::read_rows(*table, request_rows(), path, "request", "[request]", request);
    if (request.prompt_ids && request.completion_path.empty())
        bad(path, "request.prompt_ids needs completion_path (the endpoint that takes token ids)");
    return request;
}

core::KindEvidence read_evidence(const toml::table& root, const std::string& path) {
    core::KindEvidence e;
    const toml::table* table = table_at(root, "evidence", path);
    if (!table) return e;
    const toml::table& t = *table;
    std::vector<std::string_view> keys;
    for (const auto& field : evidence_fields())
        if (field.in_kind_file) keys.push_back(field.key);
    toml_read::check_keys(t, keys, path, "[evidence]");
    for (const auto& field : evidence_fields()) {
        if (!field.in_kind_file) continue;
        const std::string key(field.key);
        std::string text = field.path ? path_at(t, key.c_str(), path, "evidence")
                                      : toml_read::string_at(t, key.c_str(), path, "evidence");
        if (field.text) {
            e.*field.text = std::move(text);
        } else if (!text.empty()) {
            const auto format = parse_metrics_format(text);
            if (!format)
                bad(path,
                    "evidence.metrics_format '" + text + "' is not prometheus or json-iterations");
            e.metrics_format = *format;
        }
    }
    if (e.has_slots() && e.slot_busy.empty())
        bad(path, "evidence.slot_busy must name the field that says a slot is computing");
    if (!e.has_slots() && !e.slot_task.empty()) bad(path, "evidence.slot_task needs slots_path");
    if (!e.step_mean.empty() && !e.step_sum.empty())
        bad(path, "evidence: give step_mean or step_sum, not both");
    if ((!e.step_mean.empty() || !e.step_sum.empty()) != !e.step_count.empty())
        bad(path, "evidence: step_count goes with step_mean or step_sum");
    if (e.metrics_path.empty() && (!e.running_gauge.empty() || !e.step_count.empty()))
        bad(path, "evidence: running_gauge and the step counters need metrics_path");
    if (!e.metrics_path.empty() && e.running_gauge.empty())
        bad(path, "evidence: metrics_path needs running_gauge (the requests computing now)");
    if (e.metrics_format == core::MetricsFormat::JsonIterations && !e.step_count.empty())
        bad(path, "evidence: json-iterations metrics have no step counters");
    return e;
}

const std::vector<Row<core::KindIdentity>>& identity_rows() {
    using I = core::KindIdentity;
    static const std::vector<Row<I>> rows{
        path_row("props_path", &I::props_path),
        {"version_argv",  // absent: the default; [] runs nothing
         [](const toml::table& t, const std::string& path, const std::string& where, I& id) {
             if (t.get("version_argv"))
                 id.version_argv = toml_read::strings_at(t, "version_argv", path, where);
         }},
        texts_row("binary_names", &I::binary_names),
        path_row("models_path", &I::models_path),
        texts_row("probe_argv", &I::probe_argv),
        texts_row("probe_text", &I::probe_text),
    };
    return rows;
}

core::KindIdentity read_identity(const toml::table& root, const std::string& path) {
    core::KindIdentity identity;
    const toml::table* table = table_at(root, "identity", path);
    if (!table) return identity;
    toml_read::read_rows(*table, identity_rows(), path, "identity", "[identity]", identity);
    const bool empty_text = std::any_of(identity.probe_text.begin(), identity.probe_text.end(),
                                        [](const std::string& t) { return t.empty(); });
    if (identity.probe_argv.empty() != identity.probe_text.empty() || empty_text)
        bad(path,
            "identity.probe_argv and identity.probe_text are given together (a command and "
            "the non-empty texts its output must hold)");
    return identity;
}

// One flag's names: each a "-" or "--" option, the first the one bi-run writes.
std::vector<std::string> flag_names_at(const toml::table& t, const char* key,
                                       const std::string& path) {
    auto names = toml_read::strings_at(t, key, path, "flags");
    for (const auto& name : names)
        if (name.size() < 2 || name[0] != '-' || name.find_first_of("= \t") != std::string::npos)
            bad(path, std::string("flags.") + key + ": '" + name + "' is not a flag name");
    return names;
}

// A flag-names member.
Row<core::KindFlags> flag_names_row(const char* key,
                                    std::vector<std::string> core::KindFlags::*member) {
    return {key,
            [key, member](const toml::table& t, const std::string& path, const std::string&,
                          core::KindFlags& flags) { flags.*member = flag_names_at(t, key, path); }};
}

const std::vector<Row<core::KindFlags>>& flags_rows() {
    using F = core::KindFlags;
    static const std::vector<Row<F>> rows{
        flag_names_row("kv_cache_type_k", &F::kv_cache_type_k),
        flag_names_row("kv_cache_type_v", &F::kv_cache_type_v),
        flag_names_row("kv_cache_type", &F::kv_cache_type),
        flag_names_row("gpu_layers", &F::gpu_layers),
        flag_names_row("devices", &F::devices),
        flag_names_row("split_mode", &F::split_mode),
        flag_names_row("main_gpu", &F::main_gpu),
        flag_names_row("tensor_split", &F::tensor_split),
        flag_names_row("draft_model", &F::draft_model),
        flag_names_row("prefill_chunk", &F::prefill_chunk),
    };
    return rows;
}

// [determinism]: how the kind's determinism mode is turned on, and reported.
core::KindDeterminism read_determinism(const toml::table& root, const std::string& path) {
    using D = core::KindDeterminism;
    static const std::vector<Row<D>> rows{
        {"env", [](const toml::table& t, const std::string& p, const std::string& where,
                   D& d) { d.env = env_at(t, p, where); }},
        {"flags",
         [](const toml::table& t, const std::string& p, const std::string& where, D& d) {
             d.flags = toml_read::strings_at(t, "flags", p, where);
             check_templates(d.flags, p, "determinism.flags");
         }},
        path_row("status_path", &D::status_path),
        {"status_field",
         [](const toml::table& t, const std::string& p, const std::string& where, D& d) {
             const auto fields =
                 t.contains("status_field")
                     ? std::vector<std::string>{toml_read::string_at(t, "status_field", p, where)}
                     : std::vector<std::string>{};
             for (const auto& field : fields)
                 if (!is_field_path(field))
                     bad(p, where + ".status_field: '" + field +
                                "' is not a dotted field path (name.name...)");
             if (!fields.empty()) d.status_field = fields.front();
         }},
        {"warmup",
         [](const toml::table& t, const std::string& p, const std::string&, D& d) {
             const toml::node* n = t.get("warmup");
             if (!n) return;
             const auto value = n->value<std::int64_t>();
             if (!n->is_integer() || !value || *value < 0 || *value > kMaxWarmup)
                 bad(p, "determinism.warmup must be a count of requests from 0 to " +
                            std::to_string(kMaxWarmup));
             d.warmup = static_cast<int>(*value);
         }},
        text_row("none", &D::none),
    };
    core::KindDeterminism determinism;
    const toml::table* table = table_at(root, "determinism", path);
    if (!table) return determinism;
    toml_read::read_rows(*table, rows, path, "determinism", "[determinism]", determinism);
    if (determinism.status_path.empty() != determinism.status_field.empty())
        bad(path, "determinism: status_path and status_field are given together");
    if (determinism.available() && !determinism.none.empty())
        bad(path, "determinism: a kind with a mode (env or flags) gives no 'none' reason");
    if (!determinism.available() && (determinism.reports() || determinism.warmup > 0))
        bad(path, "determinism: status and warmup need the mode's env or flags");
    return determinism;
}

core::KindFlags read_flags(const toml::table& root, const std::string& path) {
    core::KindFlags flags;
    const toml::table* table = table_at(root, "flags", path);
    if (!table) return flags;
    toml_read::read_rows(*table, flags_rows(), path, "flags", "[flags]", flags);
    if (flags.kv_cache_type_k.empty() != flags.kv_cache_type_v.empty())
        bad(path, "flags: kv_cache_type_k and kv_cache_type_v are given together");
    if (!flags.kv_cache_type.empty() && flags.has_kv_cache_type())
        bad(path, "flags: kv_cache_type is one flag for K and V; not with kv_cache_type_k/_v");
    return flags;
}

// The flags that set the prefill chunk and the names they go by are given together, and every
// flag the launch sets is among the names, so that no user flag can set the chunk unseen.
void check_prefill_chunk(const core::ServerKind& kind, const std::string& path) {
    const auto& sets = kind.launch.prefill_chunk;
    const auto& names = kind.flags.prefill_chunk;
    if (sets.empty() != names.empty())
        bad(path,
            "launch.prefill_chunk and flags.prefill_chunk are given together (the flags that set "
            "the chunk, and every name they go by)");
    for (const auto& flag : core::flag_names(sets))
        if (std::find(names.begin(), names.end(), flag) == names.end())
            bad(path,
                "launch.prefill_chunk sets " + flag + ", which flags.prefill_chunk does not name");
}

}  // namespace

std::string_view metrics_format_name(core::MetricsFormat format) {
    for (const auto& [value, word] : kMetricsFormats)
        if (value == format) return word;
    return kMetricsFormats[0].second;
}

std::optional<core::MetricsFormat> parse_metrics_format(std::string_view word) {
    for (const auto& [value, name] : kMetricsFormats)
        if (name == word) return value;
    return std::nullopt;
}

core::ServerKind parse_server_kind(const std::string& text, const std::string& path) {
    const toml::table root = toml_read::parse_text(text, path);
    toml_read::check_keys(root,
                          {"schema", "name", "description", "launch", "request", "evidence",
                           "identity", "flags", "determinism"},
                          path, "the file");
    const std::string schema = toml_read::string_at(root, "schema", path, "the file");
    if (schema != core::kServerKindSchema)
        bad(path, "schema '" + schema + "' is not " + std::string(core::kServerKindSchema));
    core::ServerKind kind;
    kind.name = toml_read::string_at(root, "name", path, "the file");
    if (!is_name(kind.name))
        bad(path, "name '" + kind.name + "' must be letters, digits, '.', '_' or '-'");
    kind.description = toml_read::string_at(root, "description", path, "the file");
    kind.launch = read_launch(root, path);
    kind.request = read_request(root, path);
    if (!kind.launch.model_in_launch && !kind.request.model_field)
        bad(path,
            "the model reaches the server neither by launch.argv or launch.env ({model}) "
            "nor by request.model_field");
    kind.identity = read_identity(root, path);
    kind.evidence = read_evidence(root, path);
    kind.flags = read_flags(root, path);
    kind.determinism = read_determinism(root, path);
    check_prefill_chunk(kind, path);
    kind.evidence.props_path = kind.identity.props_path;
    if (!kind.evidence.capacity_field.empty() && kind.identity.props_path.empty())
        bad(path, "evidence.capacity_field needs identity.props_path (where it is read)");
    if (!kind.evidence.served_model.empty() && kind.identity.props_path.empty())
        bad(path, "evidence.served_model needs identity.props_path (where it is read)");
    kind.source = path;
    kind.sha256 = core::sha256_hex(text);
    return kind;
}

core::ServerKind read_server_kind(const std::string& path) {
    std::string text;
    try {
        text = read_file(path);
    } catch (const Error& e) {
        throw Error(ErrorCategory::Input, e.what());
    }
    return parse_server_kind(text, path);
}

const std::vector<core::ServerKind>& builtin_server_kinds() {
    static const std::vector<core::ServerKind> kinds = [] {
        std::vector<core::ServerKind> out;
        for (const auto& [file, text] : builtin_kind_texts())
            out.push_back(parse_server_kind(text, "built-in:" + file));
        return out;
    }();
    return kinds;
}

const core::ServerKind& default_server_kind() {
    static const core::ServerKind& kind = []() -> const core::ServerKind& {
        for (const auto& shipped : builtin_server_kinds())
            if (shipped.name == kDefaultServerKind) return shipped;
        throw Error(ErrorCategory::Internal,
                    std::string("no shipped server kind ") + kDefaultServerKind);
    }();
    return kind;
}

std::string builtin_kind_problem(const core::ServerKindRecord& record) {
    for (const auto& kind : builtin_server_kinds()) {
        if (kind.source != record.source || kind.sha256 != record.sha256) continue;
        if (kind.name != record.name)
            return "server.kind names '" + record.name + "' but " + kind.source + " is '" +
                   kind.name + "'";
        if (!(kind.evidence == record.evidence))
            return "server.kind.evidence is not what " + kind.source + " declares";
        if (record.slot_pinning && kind.request.slot_field.empty())
            return "server.kind.slot_pinning is true but " + kind.source + " has no slots";
        return "";
    }
    return "";
}

}  // namespace bi::io
