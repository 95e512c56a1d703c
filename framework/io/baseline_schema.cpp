#include "baseline_schema.hpp"

#include <utility>

#include "cert_tables.hpp"
#include "core/sha256.hpp"
#include "workset.hpp"

namespace bi::io {

namespace schema {

constexpr auto kNull = WhenEmpty::WriteNull;

template <>
struct Codec<FailureLabel> {
    static Json to_json(const FailureLabel& label) { return std::string(label.word()); }
    static FailureLabel from_json(const Json& j, const std::string& path) {
        expect_type(j, Json::Type::String, path);
        if (j.as_string().empty()) shape_error(path, "empty failure mode");
        return FailureLabel::from_word(j.as_string());
    }
};

#define BI_BASELINE_TABLE(Type) \
    template <>                 \
    struct HasTable<Type> : std::true_type {};
BI_BASELINE_TABLE(TokenAlternative)
BI_BASELINE_TABLE(TrialRecord)
BI_BASELINE_TABLE(SerialRepeat)
BI_BASELINE_TABLE(BaselineServer)
BI_BASELINE_TABLE(SerialBaseline)
BI_BASELINE_TABLE(CheckSide)
BI_BASELINE_TABLE(BaselineFileRecord)
BI_BASELINE_TABLE(BaselineCheck)
#undef BI_BASELINE_TABLE

template <>
const Table<TokenAlternative>& table() {
    using T = TokenAlternative;
    static const Table<T> rows{
        optional("id", &T::id),
        required("text", &T::text),
        required("logprob", &T::logprob),
    };
    return rows;
}

// One answer of arm A: its invariant fields, everything it generated and the slot it ran on.
// The arm, the pass and the volatile timings are not kept.
template <>
const Table<TrialRecord>& table() {
    using T = TrialRecord;
    static const Table<T> rows{
        required("test_id", &T::test_id),
        required("family", &T::family),
        required("fill", &T::fill),
        optional("score", &T::score, kNull),
        optional("passed", &T::passed, kNull),
        required("extracted_answer", &T::extracted_answer),
        required("expected_answer", &T::expected_answer),
        optional("prompt_tokens_measured", &T::prompt_tokens_measured, kNull),
        required("failure_mode", &T::failure_mode),
        custom<T>(
            "content", [](const T& t, Json& o) { o.set("content", t.content); },
            [](const Json& o, T& t, const std::string& path) {
                const Json* content = o.find("content");
                if (!content) shape_error(child(path, "content"), "missing");
                t.content = Codec<std::string>::from_json(*content, child(path, "content"));
                t.content_sha = content_sha(t.content);
            }),
        // The whole content's hash: a reader can check a quoted text against it.
        derived<T>("content_sha256", [](const T& t) { return Json(sha256_hex(t.content)); }),
        unless_default("reasoning_content", &T::reasoning_content),
        custom<T>(
            "tool_calls",
            [](const T& t, Json& o) {
                if (!t.tool_calls.is_null()) o.set("tool_calls", t.tool_calls);
            },
            [](const Json& o, T& t, const std::string&) {
                const Json* calls = o.find("tool_calls");
                t.tool_calls = calls ? *calls : Json();
            }),
        optional("completion_tokens", &T::completion_tokens),
        required("finish_reason", &T::finish_reason),
        optional("token_ids", &T::token_ids),
        optional("token_logprobs", &T::token_logprobs),
        optional("token_texts", &T::token_texts),
        optional("top_alternatives", &T::top_alternatives),
        optional("id_slot", &T::id_slot),
        unless_default("error", &T::error),
    };
    return rows;
}

template <>
const Table<SerialRepeat>& table() {
    using R = SerialRepeat;
    static const Table<R> rows{
        required("n_compared", &R::n_compared),
        derived<R>("exact", [](const R& r) { return Json(r.exact()); }),
        required("divergent_ids", &R::divergent_ids),
        required("token_only_ids", &R::token_only_ids),
        required("logprob_drift_ids", &R::logprob_drift_ids),
    };
    return rows;
}

template <>
const Table<BaselineServer>& table() {
    using S = BaselineServer;
    static const Table<S> rows{
        required("launch", &S::launch),
        required("props", &S::props),
        required("build_info", &S::build_info),
        optional("kind", &S::kind),
    };
    return rows;
}

// The answers as an array in test id order; a test id twice is refused.
template <typename S>
Field<S> answers_row(std::string_view key, ArmResults S::*member) {
    return custom<S>(
        key,
        [key, member](const S& s, Json& o) {
            Json list = Json::array();
            for (const auto& [id, trial] : s.*member)
                list.push_back(Codec<TrialRecord>::to_json(trial));
            o.set(key, list);
        },
        [key, member](const Json& o, S& s, const std::string& path) {
            const std::string at = child(path, key);
            const Json* list = o.find(key);
            if (!list) shape_error(at, "missing");
            for (auto& trial : Codec<std::vector<TrialRecord>>::from_json(*list, at)) {
                trial.arm = "A";
                const std::string id = trial.test_id;
                if (!(s.*member).emplace(id, std::move(trial)).second)
                    shape_error(at, "test id '" + id + "' appears twice");
            }
        });
}

template <>
const Table<SerialBaseline>& table() {
    using B = SerialBaseline;
    static const Table<B> rows{
        required("schema", &B::schema),
        required("source", &B::source),
        required("ts_utc", &B::ts_utc),
        required("model", &B::model),
        required("ctx", &B::ctx),
        required("kv_label", &B::kv_label),
        required("reps", &B::reps),
        custom<B>(
            "rows", [](const B& b, Json& o) { o.set("rows", rows_to_json(b.rows)); },
            [](const Json& o, B& b, const std::string& path) {
                const Json* list = o.find("rows");
                if (!list) shape_error(child(path, "rows"), "missing");
                try {
                    b.rows = rows_from_json(*list, child(path, "rows"));
                } catch (const Error& e) {
                    throw ShapeError(e.what());
                }
            }),
        required("rows_sha256", &B::rows_sha256),
        optional("scorer_config", &B::scorer_config),
        required("run", &B::run),
        required("model_file", &B::model_file),
        required("server", &B::server),
        required("host", &B::host),
        required("provenance", &B::provenance),
        required("timings", &B::timings),
        unless_default("identity_problems", &B::identity_problems),
        derived<B>("n_answers", [](const B& b) { return Json(b.answers.size()); }),
        answers_row("answers", &B::answers),
        required("serial_repeat", &B::repeat),
        optional("digest", &B::digest),
        optional("signature", &B::signature),
    };
    return rows;
}

template <>
const Table<CheckSide>& table() {
    using S = CheckSide;
    static const Table<S> rows{
        required("ts_utc", &S::ts_utc),
        required("source", &S::source),
        required("server", &S::server),
        required("host", &S::host),
        required("model_file", &S::model_file),
        required("kv_label", &S::kv_label),
        required("server_flags", &S::server_flags),
        optional("scorer_plugin", &S::scorer_plugin),
        required("serial_repeat", &S::repeat),
        required("n_items", &S::n_items),
        required("n_ok", &S::n_ok),
    };
    return rows;
}

template <>
const Table<BaselineFileRecord>& table() {
    using F = BaselineFileRecord;
    static const Table<F> rows{
        required("path", &F::path),
        required("sha256", &F::sha256),
        required("digest", &F::digest),
        required("signature", &F::signature),
    };
    return rows;
}

template <>
const Table<BaselineCheck>& table() {
    using C = BaselineCheck;
    static const Table<C> rows{
        required("schema", &C::schema),
        required("ts_utc", &C::ts_utc),
        required("model", &C::model),
        required("ctx", &C::ctx),
        required("status", &C::status),
        required("reasons", &C::reasons),
        required("baseline_file", &C::baseline_file),
        required("baseline", &C::baseline),
        required("current", &C::current),
        required("differences", &C::differences),
        optional("comparison", &C::comparison, kNull),
        unless_default("generation_changes", &C::generation_changes),
        required("provenance", &C::provenance),
        optional("digest", &C::digest),
        optional("signature", &C::signature),
    };
    return rows;
}

}  // namespace schema

namespace {

bool names_schema(const core::Json& document, std::string_view family) {
    if (!document.is_object()) return false;
    const core::Json* schema = document.find("schema");
    return schema && schema->is_string() && schema->as_string().rfind(family, 0) == 0;
}

// Reads `document` as a T of schema `expected`, then checks that it renders back to itself.
template <typename T>
Parsed<T> parse_document(const core::Json& document, std::string_view expected,
                         core::Json (*render)(const T&), void (*check_hashes)(const T&) = nullptr) {
    Parsed<T> parsed;
    try {
        schema::expect_type(document, core::Json::Type::Object, "$");
        const core::Json* name = document.find("schema");
        if (!name || !name->is_string())
            schema::shape_error("$.schema", "missing (expected " + std::string(expected) + ")");
        if (name->as_string() != expected)
            schema::shape_error("$.schema", "'" + name->as_string() + "' is not " +
                                                std::string(expected) +
                                                ", the one this bi-run reads");
        T value = schema::Codec<T>::from_json(document, "$");
        if (!value.digest) schema::shape_error("$.digest", "missing");
        if (check_hashes) check_hashes(value);
        const auto at = schema::first_difference(document, render(value), "$");
        if (!at.empty())
            schema::shape_error(at,
                                "does not agree with the rest of the document (an edited "
                                "derived field, or a key that is not part of " +
                                    std::string(expected) + ")");
        parsed.value = std::move(value);
    } catch (const schema::ShapeError& e) {
        parsed.problem = e.what();
    }
    return parsed;
}

void check_rows_sha256(const core::SerialBaseline& baseline) {
    if (core::sha256_hex(workset_to_json_text(baseline.rows)) != baseline.rows_sha256)
        schema::shape_error("$.rows_sha256", "does not match the rows");
}

}  // namespace

core::Json baseline_to_json(const core::SerialBaseline& baseline) {
    return schema::Codec<core::SerialBaseline>::to_json(baseline);
}

core::Json check_to_json(const core::BaselineCheck& check) {
    return schema::Codec<core::BaselineCheck>::to_json(check);
}

Parsed<core::SerialBaseline> baseline_from_json(const core::Json& document) {
    return parse_document<core::SerialBaseline>(document, core::kBaselineSchema, baseline_to_json,
                                                check_rows_sha256);
}

Parsed<core::BaselineCheck> check_from_json(const core::Json& document) {
    return parse_document<core::BaselineCheck>(document, core::kBaselineCheckSchema, check_to_json);
}

bool names_baseline_schema(const core::Json& document) {
    return names_schema(document, "bi-baseline/");
}

bool names_check_schema(const core::Json& document) {
    return names_schema(document, "bi-baseline-check/");
}

}  // namespace bi::io
