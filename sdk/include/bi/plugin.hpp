// Optional header-only C++17 helper over plugin.h: subclass bi::sdk::Scorer or
// bi::sdk::WorksetGenerator, list them in one function, export it with BI_SDK_EXPORT_PLUGIN.
// Every trampoline is noexcept and turns exceptions into a status code plus message.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "plugin.h"

namespace bi::sdk {

// Throw from a plugin method to fail the call with a chosen BI_STATUS_* code. Any other
// exception fails it with BI_STATUS_EXCEPTION and its what() as the message.
class Failure : public std::runtime_error {
public:
    Failure(std::int32_t status, const std::string& message)
        : std::runtime_error(message), status_(status == BI_STATUS_OK ? BI_STATUS_ERROR : status) {}
    std::int32_t status() const noexcept { return status_; }

private:
    std::int32_t status_;
};

// The host's services, or none: every member works (as a no-op or nullopt) when absent.
class HostServices {
public:
    explicit HostServices(const bi_host_services* services = nullptr) noexcept
        : services_(services) {}

    bool can_count_tokens() const noexcept {
        return services_ && BI_STRUCT_HAS(services_, bi_host_services, count_tokens) &&
               services_->count_tokens;
    }
    // The server's token count for `text`; nullopt when there is no tokenizer or it failed, in
    // which case a generator falls back to an estimate.
    std::optional<std::int64_t> count_tokens(std::string_view text) const {
        if (!can_count_tokens()) return std::nullopt;
        std::int64_t count = 0;
        const std::string copy(text);  // the C side wants a NUL-terminated string
        if (services_->count_tokens(services_->host_data, copy.c_str(), copy.size(), &count) !=
            BI_STATUS_OK)
            return std::nullopt;
        return count;
    }
    void log(std::int32_t level, const std::string& message) const noexcept {
        if (services_ && BI_STRUCT_HAS(services_, bi_host_services, log) && services_->log)
            services_->log(services_->host_data, level, message.c_str());
    }

private:
    const bi_host_services* services_;
};

// ---- scorers ---------------------------------------------------------------------------------

// One completion as the scorer sees it; the views live for the duration of the call only.
struct ScoreInput {
    std::string_view test_id;
    std::string_view family;
    std::string_view prompt;
    std::string_view system;
    std::string_view completion;
    std::string_view expected_answer_json;
    double fill = 0.0;
    std::uint64_t seed = 0;
    std::int32_t rep = 0;
    std::string_view extracted_answer_json;  // empty during extract_answer
    std::string_view failure_mode;           // empty until score
    // The rest of what the server generated (ABI 1.1). A host of ABI 1.0 sends none of it, and
    // then these keep their defaults: no reasoning, no tool calls, unknown count and reason.
    std::string_view reasoning;                 // empty when none
    std::string_view tool_calls_json = "null";  // a JSON array, or "null" when none
    std::int64_t completion_tokens = -1;        // generated tokens, -1 when unknown
    std::string_view stop_reason;               // "stop", "length", "eos", ...; empty when unknown
};

struct Score {
    double value = 0.0;
    bool passed = false;
};

// What a scorer's constructor may take: the run's config and the host's services (both valid
// for the scorer's whole life).
struct ScorerContext {
    std::string config_json = "{}";
    HostServices host;
};

// Override the three steps. One instance serves one run, called from one thread at a time.
class Scorer {
public:
    virtual ~Scorer() = default;
    // The answer found in the completion, as JSON text; use json_string() for text.
    virtual std::string extract_answer(const ScoreInput& input) = 0;
    // "ok" for a genuinely scored completion, else a failure label such as "empty".
    virtual std::string classify_failure_mode(const ScoreInput& input) = 0;
    virtual Score score(const ScoreInput& input) = 0;
};

// ---- generators ------------------------------------------------------------------------------

struct GenerateRequest {
    std::string model_id;
    std::int64_t ctx = 0;
    std::uint64_t seed = 0;
    std::vector<std::pair<std::string, std::string>> params;  // command-line order

    // The last value given for `key`, if any.
    std::optional<std::string> param(std::string_view key) const {
        for (auto it = params.rbegin(); it != params.rend(); ++it)
            if (it->first == key) return it->second;
        return std::nullopt;
    }
};

struct Row {
    std::string prompt;
    std::string system;  // empty: no system message
    std::string family;
    double fill = 0.0;
    std::string expected_answer_json = "null";
};

// Hands rows to the host, which copies them.
class RowSink {
public:
    explicit RowSink(const bi_workset_sink* sink) noexcept : sink_(sink) {}
    // Throws Failure when the host refuses the row; let it propagate (the host knows why).
    void add(const Row& row) {
        bi_workset_row c{};
        c.struct_size = sizeof c;
        c.prompt = row.prompt.c_str();
        c.system = row.system.c_str();
        c.family = row.family.c_str();
        c.fill = row.fill;
        c.expected_answer_json = row.expected_answer_json.c_str();
        const std::int32_t status = sink_->add_row(sink_->host_data, &c);
        if (status != BI_STATUS_OK) throw Failure(status, "the host refused a row");
    }

private:
    const bi_workset_sink* sink_;
};

// Override generate. A fresh instance serves each call, so no state leaks between calls.
class WorksetGenerator {
public:
    virtual ~WorksetGenerator() = default;
    virtual void generate(const GenerateRequest& request, const HostServices& host,
                          RowSink& rows) = 0;
};

// ---- JSON string codec ------------------------------------------------------------------------
// Answers and expected answers cross the C ABI as JSON text, and a plugin must not depend on the
// host's JSON library across it. Most scorers need only JSON strings, so the SDK carries this
// small codec and no more; a plugin wanting full JSON compiles its own library privately, as the
// bundled spark plugin does with RapidJSON.

namespace detail {

// JSON's two-character escapes: the letter after the backslash, and the byte it stands for.
inline constexpr char kShortEscapes[][2] = {{'"', '"'},  {'\\', '\\'}, {'/', '/'},  {'b', '\b'},
                                            {'f', '\f'}, {'n', '\n'},  {'r', '\r'}, {'t', '\t'}};

inline char escape_letter(char byte) {  // 0 when `byte` has no two-character escape
    for (const auto& escape : kShortEscapes)
        if (escape[1] == byte) return escape[0];
    return 0;
}

inline char escaped_byte(char letter) {  // 0 when `letter` is no escape letter
    for (const auto& escape : kShortEscapes)
        if (escape[0] == letter) return escape[1];
    return 0;
}

inline void append_utf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
        out += static_cast<char>(code);
    } else if (code < 0x800) {
        out += static_cast<char>(0xC0 | (code >> 6));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
        out += static_cast<char>(0xE0 | (code >> 12));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (code >> 18));
        out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (code & 0x3F));
    }
}

inline std::optional<std::uint32_t> read_hex4(std::string_view text, std::size_t at) {
    if (at + 4 > text.size()) return std::nullopt;
    std::uint32_t value = 0;
    for (std::size_t i = at; i < at + 4; ++i) {
        const char c = text[i];
        value <<= 4;
        if (c >= '0' && c <= '9')
            value |= static_cast<std::uint32_t>(c - '0');
        else if (c >= 'a' && c <= 'f')
            value |= static_cast<std::uint32_t>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            value |= static_cast<std::uint32_t>(c - 'A' + 10);
        else
            return std::nullopt;
    }
    return value;
}

}  // namespace detail

// `text` as a JSON string literal.
inline std::string json_string(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && ch != '"' && ch != '\\') {
            out += ch;
        } else if (const char letter = detail::escape_letter(ch)) {
            out += '\\';
            out += letter;
        } else {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
            out += escaped;
        }
    }
    out += '"';
    return out;
}

// The text of `json` when it is a JSON string literal (surrounding whitespace allowed), else
// nullopt: e.g. an expected answer of "\"Paris\"" gives "Paris", "42" gives nullopt.
inline std::optional<std::string> json_string_value(std::string_view json) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (!json.empty() && is_space(json.front())) json.remove_prefix(1);
    while (!json.empty() && is_space(json.back())) json.remove_suffix(1);
    if (json.size() < 2 || json.front() != '"' || json.back() != '"') return std::nullopt;
    const std::string_view body = json.substr(1, json.size() - 2);
    std::string out;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (c == '"' || static_cast<unsigned char>(c) < 0x20) return std::nullopt;
        if (c != '\\') {
            out += c;
            continue;
        }
        if (++i == body.size()) return std::nullopt;
        if (body[i] != 'u') {
            const char byte = detail::escaped_byte(body[i]);
            if (!byte) return std::nullopt;
            out += byte;
            continue;
        }
        auto code = detail::read_hex4(body, i + 1);
        if (!code) return std::nullopt;
        i += 4;
        if (*code >= 0xD800 && *code < 0xDC00) {  // a surrogate pair spells one code point
            if (i + 2 >= body.size() || body[i + 1] != '\\' || body[i + 2] != 'u')
                return std::nullopt;
            const auto low = detail::read_hex4(body, i + 3);
            if (!low || *low < 0xDC00 || *low > 0xDFFF) return std::nullopt;
            code = 0x10000 + ((*code - 0xD800) << 10) + (*low - 0xDC00);
            i += 6;
        } else if (*code >= 0xDC00 && *code <= 0xDFFF) {
            return std::nullopt;
        }
        detail::append_utf8(out, *code);
    }
    return out;
}

// ---- the plugin definition and its C trampolines ---------------------------------------------

namespace detail {

struct ScorerEntry {
    bi_scorer table{};
    std::string id;
    std::string description;
    std::function<std::unique_ptr<Scorer>(const ScorerContext&)> make;
};

struct GeneratorEntry {
    bi_generator table{};
    std::string id;
    std::string description;
    std::function<std::unique_ptr<WorksetGenerator>()> make;
};

template <typename Sink>
void report_error(const Sink* sink, const char* message) noexcept {
    if (sink && BI_STRUCT_HAS(sink, Sink, set_error) && sink->set_error)
        sink->set_error(sink->host_data, message);
}

// Runs `body`, mapping every exception to a status so none crosses the C boundary.
template <typename Sink, typename Body>
std::int32_t guarded(const Sink* sink, Body&& body) noexcept {
    try {
        body();
        return BI_STATUS_OK;
    } catch (const Failure& failure) {
        report_error(sink, failure.what());
        return failure.status();
    } catch (const std::exception& e) {
        report_error(sink, e.what());
        return BI_STATUS_EXCEPTION;
    } catch (...) {
        report_error(sink, "unknown exception");
        return BI_STATUS_EXCEPTION;
    }
}

inline std::string_view view(const char* text) {
    return text ? std::string_view(text) : std::string_view();
}

inline ScoreInput to_score_input(const bi_score_input* in) {
    if (!in || !BI_STRUCT_HAS(in, bi_score_input, failure_mode))
        throw Failure(BI_STATUS_INVALID_ARGUMENT, "score input missing or too short");
    ScoreInput out;
    out.test_id = view(in->test_id);
    out.family = view(in->family);
    out.prompt = view(in->prompt);
    out.system = view(in->system);
    if (in->completion) out.completion = std::string_view(in->completion, in->completion_size);
    out.expected_answer_json = in->expected_answer_json ? view(in->expected_answer_json) : "null";
    out.fill = in->fill;
    out.seed = in->seed;
    out.rep = in->rep;
    out.extracted_answer_json = view(in->extracted_answer_json);
    out.failure_mode = view(in->failure_mode);
    if (BI_STRUCT_HAS(in, bi_score_input, stop_reason)) {
        if (in->reasoning) out.reasoning = std::string_view(in->reasoning, in->reasoning_size);
        if (in->tool_calls_json) out.tool_calls_json = in->tool_calls_json;
        out.completion_tokens = in->completion_tokens;
        out.stop_reason = view(in->stop_reason);
    }
    return out;
}

inline Scorer& scorer_of(void* instance) {
    if (!instance) throw Failure(BI_STATUS_INVALID_ARGUMENT, "no scorer instance");
    return *static_cast<Scorer*>(instance);
}

// The sink itself when it is long enough and has the setter this call needs.
template <typename Setter>
const bi_scorer_sink& require_sink(const bi_scorer_sink* sink, Setter bi_scorer_sink::*setter) {
    if (!sink || !BI_STRUCT_HAS(sink, bi_scorer_sink, set_error) || !(sink->*setter))
        throw Failure(BI_STATUS_INVALID_ARGUMENT, "scorer sink missing or too short");
    return *sink;
}

inline std::int32_t scorer_create(const bi_scorer* self, const char* config_json,
                                  const bi_host_services* host, void** out_instance,
                                  const bi_scorer_sink* sink) noexcept {
    return guarded(sink, [&] {
        if (!self || !self->plugin_data || !out_instance)
            throw Failure(BI_STATUS_INVALID_ARGUMENT, "create called without its scorer");
        ScorerContext context;
        if (config_json) context.config_json = config_json;
        context.host = HostServices(host);
        *out_instance = static_cast<const ScorerEntry*>(self->plugin_data)->make(context).release();
    });
}

inline void scorer_destroy(const bi_scorer*, void* instance) noexcept {
    delete static_cast<Scorer*>(instance);
}

inline std::int32_t scorer_extract(const bi_scorer*, void* instance, const bi_score_input* input,
                                   const bi_scorer_sink* sink) noexcept {
    return guarded(sink, [&] {
        const auto& out = require_sink(sink, &bi_scorer_sink::set_extracted_answer);
        const std::string json = scorer_of(instance).extract_answer(to_score_input(input));
        out.set_extracted_answer(out.host_data, json.data(), json.size());
    });
}

inline std::int32_t scorer_classify(const bi_scorer*, void* instance, const bi_score_input* input,
                                    const bi_scorer_sink* sink) noexcept {
    return guarded(sink, [&] {
        const auto& out = require_sink(sink, &bi_scorer_sink::set_failure_mode);
        const std::string label = scorer_of(instance).classify_failure_mode(to_score_input(input));
        out.set_failure_mode(out.host_data, label.c_str());
    });
}

inline std::int32_t scorer_score(const bi_scorer*, void* instance, const bi_score_input* input,
                                 const bi_scorer_sink* sink) noexcept {
    return guarded(sink, [&] {
        const auto& out = require_sink(sink, &bi_scorer_sink::set_score);
        const Score result = scorer_of(instance).score(to_score_input(input));
        out.set_score(out.host_data, result.value, result.passed ? 1 : 0);
    });
}

inline GenerateRequest to_generate_request(const bi_generate_request* in) {
    if (!in || !BI_STRUCT_HAS(in, bi_generate_request, param_count))
        throw Failure(BI_STATUS_INVALID_ARGUMENT, "generate request missing or too short");
    GenerateRequest out;
    out.model_id = view(in->model_id);
    out.ctx = in->ctx;
    out.seed = in->seed;
    for (std::uint32_t i = 0; in->params && i < in->param_count; ++i)
        out.params.emplace_back(view(in->params[i].key), view(in->params[i].value));
    return out;
}

inline std::int32_t generator_generate(const bi_generator* self, const bi_generate_request* request,
                                       const bi_host_services* host,
                                       const bi_workset_sink* sink) noexcept {
    return guarded(sink, [&] {
        if (!self || !self->plugin_data)
            throw Failure(BI_STATUS_INVALID_ARGUMENT, "generate called without its generator");
        if (!sink || !BI_STRUCT_HAS(sink, bi_workset_sink, set_error) || !sink->add_row)
            throw Failure(BI_STATUS_INVALID_ARGUMENT, "work-set sink missing or too short");
        const auto* entry = static_cast<const GeneratorEntry*>(self->plugin_data);
        const GenerateRequest parsed = to_generate_request(request);
        const HostServices services(host);
        RowSink rows(sink);
        entry->make()->generate(parsed, services, rows);
    });
}

}  // namespace detail

// The plugin's name, version, scorers and generators. Build one in a function and pass that
// function to BI_SDK_EXPORT_PLUGIN.
class PluginDefinition {
public:
    PluginDefinition(std::string name, std::string version, std::string description = {})
        : name_(std::move(name)),
          version_(std::move(version)),
          description_(std::move(description)) {}
    PluginDefinition(const PluginDefinition&) = delete;
    PluginDefinition& operator=(const PluginDefinition&) = delete;
    PluginDefinition(PluginDefinition&&) = default;
    PluginDefinition& operator=(PluginDefinition&&) = default;
    ~PluginDefinition() = default;

    // T is constructible from `const ScorerContext&`, or default-constructible.
    template <typename T>
    PluginDefinition& add_scorer(std::string id, std::string description = {}) & {
        static_assert(std::is_base_of_v<Scorer, T>, "add_scorer needs a bi::sdk::Scorer");
        auto entry = std::make_unique<detail::ScorerEntry>();
        entry->id = std::move(id);
        entry->description = std::move(description);
        entry->make = [](const ScorerContext& context) -> std::unique_ptr<Scorer> {
            if constexpr (std::is_constructible_v<T, const ScorerContext&>)
                return std::make_unique<T>(context);
            else
                return std::make_unique<T>();
        };
        scorers_.push_back(std::move(entry));
        return *this;
    }

    // T is default-constructible; a fresh one serves each generate call.
    template <typename T>
    PluginDefinition& add_generator(std::string id, std::string description = {}) & {
        static_assert(std::is_base_of_v<WorksetGenerator, T>,
                      "add_generator needs a bi::sdk::WorksetGenerator");
        auto entry = std::make_unique<detail::GeneratorEntry>();
        entry->id = std::move(id);
        entry->description = std::move(description);
        entry->make = []() -> std::unique_ptr<WorksetGenerator> { return std::make_unique<T>(); };
        generators_.push_back(std::move(entry));
        return *this;
    }

    // The same on a temporary, so `return PluginDefinition(...).add_scorer<A>("a");` works.
    template <typename T>
    PluginDefinition&& add_scorer(std::string id, std::string description = {}) && {
        add_scorer<T>(std::move(id), std::move(description));
        return std::move(*this);
    }
    template <typename T>
    PluginDefinition&& add_generator(std::string id, std::string description = {}) && {
        add_generator<T>(std::move(id), std::move(description));
        return std::move(*this);
    }

    // Fills the C tables; call once the definition sits at its final address.
    void finalize() {
        scorer_tables_.clear();
        for (auto& entry : scorers_) {
            bi_scorer& t = entry->table;
            t.struct_size = sizeof t;
            t.id = entry->id.c_str();
            t.description = entry->description.empty() ? nullptr : entry->description.c_str();
            t.plugin_data = entry.get();
            t.create = &detail::scorer_create;
            t.destroy = &detail::scorer_destroy;
            t.extract_answer = &detail::scorer_extract;
            t.classify_failure_mode = &detail::scorer_classify;
            t.score = &detail::scorer_score;
            scorer_tables_.push_back(&t);
        }
        generator_tables_.clear();
        for (auto& entry : generators_) {
            bi_generator& t = entry->table;
            t.struct_size = sizeof t;
            t.id = entry->id.c_str();
            t.description = entry->description.empty() ? nullptr : entry->description.c_str();
            t.plugin_data = entry.get();
            t.generate = &detail::generator_generate;
            generator_tables_.push_back(&t);
        }
        descriptor_ = bi_plugin_descriptor{};
        descriptor_.struct_size = sizeof descriptor_;
        descriptor_.abi_major = BI_PLUGIN_ABI_MAJOR;
        descriptor_.abi_minor = BI_PLUGIN_ABI_MINOR;
        descriptor_.name = name_.c_str();
        descriptor_.version = version_.c_str();
        descriptor_.description = description_.empty() ? nullptr : description_.c_str();
        descriptor_.scorers = scorer_tables_.data();
        descriptor_.scorer_count = static_cast<std::uint32_t>(scorer_tables_.size());
        descriptor_.generators = generator_tables_.data();
        descriptor_.generator_count = static_cast<std::uint32_t>(generator_tables_.size());
    }

    const bi_plugin_descriptor* descriptor() const noexcept { return &descriptor_; }

private:
    std::string name_;
    std::string version_;
    std::string description_;
    std::vector<std::unique_ptr<detail::ScorerEntry>> scorers_;  // stable addresses for `self`
    std::vector<std::unique_ptr<detail::GeneratorEntry>> generators_;
    std::vector<const bi_scorer*> scorer_tables_;
    std::vector<const bi_generator*> generator_tables_;
    bi_plugin_descriptor descriptor_{};
};

namespace detail {

// Builds the definition once; a throwing definition function yields no descriptor (the host then
// reports the plugin as unusable) rather than an exception escaping bi_plugin_entry.
template <typename Define>
std::unique_ptr<PluginDefinition> build_plugin(Define define) noexcept {
    try {
        auto plugin = std::make_unique<PluginDefinition>(define());
        plugin->finalize();
        return plugin;
    } catch (...) {
        return nullptr;
    }
}

}  // namespace detail

}  // namespace bi::sdk

// Exports `define_function` (returning a bi::sdk::PluginDefinition) as the plugin's entry point.
// The static lives in the plugin's own bi_plugin_entry, so each plugin has its own definition.
#define BI_SDK_EXPORT_PLUGIN(define_function)                                                \
    extern "C" BI_PLUGIN_EXPORT const bi_plugin_descriptor* bi_plugin_entry(void) {          \
        static const std::unique_ptr<::bi::sdk::PluginDefinition> bi_sdk_plugin_definition = \
            ::bi::sdk::detail::build_plugin(define_function);                                \
        return bi_sdk_plugin_definition ? bi_sdk_plugin_definition->descriptor() : nullptr;  \
    }
