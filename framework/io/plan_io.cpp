#include "plan_io.hpp"

#include "core/cert.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/sha256.hpp"
#include "field_table.hpp"
#include "files.hpp"
#include "json_text.hpp"

namespace bi::io {

namespace schema {

using core::RunRequest;
using core::ScoringRequest;
using core::TargetRequest;

template <>
struct HasTable<ScoringRequest> : std::true_type {};
template <>
struct HasTable<TargetRequest> : std::true_type {};
template <>
struct HasTable<RunRequest> : std::true_type {};

// A time limit is a number of seconds in the file (the keys end in _s), as it always was.
template <>
struct Codec<core::Seconds> {
    static core::Json to_json(core::Seconds v) { return Codec<double>::to_json(v.count()); }
    static core::Seconds from_json(const core::Json& j, const std::string& path) {
        return core::Seconds(Codec<double>::from_json(j, path));
    }
};

// The endpoint as the command line names it: "chat" or "completion".
template <>
struct Codec<core::EndpointKind>
    : NamedEnumCodec<core::EndpointKind, core::endpoint_name, core::parse_endpoint> {
    static core::EndpointKind from_json(const core::Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "endpoint");
    }
};

// How C passes arrive: "mixed", "together" or "staggered".
template <>
struct Codec<core::Arrivals>
    : NamedEnumCodec<core::Arrivals, core::arrivals_name, core::parse_arrivals> {
    static core::Arrivals from_json(const core::Json& j, const std::string& path) {
        return NamedEnumCodec::from_json(j, path, "arrivals");
    }
};

// One row per member; the plan keeps every value (defaults included), so that what a plan means
// does not change when an option or its default does.
template <>
const Table<ScoringRequest>& table() {
    using S = ScoringRequest;
    static const Table<S> rows{
        required("plugins", &S::plugins),
        required("plugin_dirs", &S::plugin_dirs),
        required("plugin_timeout_s", &S::plugin_timeout),
        optional("scorer", &S::scorer, WhenEmpty::WriteNull),
        optional("scorer_config", &S::scorer_config, WhenEmpty::WriteNull),
        optional("workset", &S::workset, WhenEmpty::WriteNull),
        optional("generator", &S::generator, WhenEmpty::WriteNull),
        custom<S>(  // KEY=VALUE strings in the file, as the command line gave them
            "generator_params",
            [](const S& r, core::Json& o) {
                core::Json list = core::Json::array();
                for (const auto& [key, value] : r.generator_params)
                    list.push_back(key + "=" + value);
                o.set("generator_params", std::move(list));
            },
            [](const core::Json& o, S& r, const std::string& path) {
                const core::Json* v = o.find("generator_params");
                if (!v) shape_error(child(path, "generator_params"), "missing");
                for (const auto& text : Codec<std::vector<std::string>>::from_json(
                         *v, child(path, "generator_params"))) {
                    const auto equals = text.find('=');
                    if (equals == std::string::npos || equals == 0)
                        shape_error(child(path, "generator_params"),
                                    "'" + text + "' is not KEY=VALUE");
                    r.generator_params.emplace_back(text.substr(0, equals),
                                                    text.substr(equals + 1));
                }
            }),
        required("logit_drift_eps", &S::logit_drift_eps),
    };
    return rows;
}

template <>
const Table<TargetRequest>& table() {
    using T = TargetRequest;
    static const Table<T> rows{
        optional("server_bin", &T::server_bin, WhenEmpty::WriteNull),
        optional("model", &T::model, WhenEmpty::WriteNull),
        required("server_flags", &T::server_flags),
        optional("server_kind", &T::server_kind),  // absent in plans of the default kind
        unless_default("server_kind_dirs", &T::server_kind_dirs),
        optional("models_toml", &T::models_toml, WhenEmpty::WriteNull),
        optional("models_dir", &T::models_dir, WhenEmpty::WriteNull),
        required("ready_timeout_s", &T::ready_timeout),
        required("shutdown_grace_s", &T::shutdown_grace),
        optional("port", &T::port, WhenEmpty::WriteNull),
        required("reserved_ports", &T::reserved_ports),
        required("untouchable_pids", &T::untouchable_pids),
        optional("max_footprint_gb", &T::max_footprint_gb, WhenEmpty::WriteNull),
        // Written only when set: a plan from before chunks could be set reads as the server's own
        // chunking, and renders as it was written.
        optional("prefill_chunk", &T::prefill_chunk),
    };
    return rows;
}

// The cells (ctxs, parallels, profile, out_dir) are the groups' and the plan's, not the
// request's: those members are not stored here.
template <>
const Table<RunRequest>& table() {
    using R = RunRequest;
    static const Table<R> rows{
        optional("model_alias", &R::model_alias, WhenEmpty::WriteNull),
        optional("passes", &R::passes, WhenEmpty::WriteNull),
        optional("target_rate", &R::target_rate, WhenEmpty::WriteNull),
        required("confidence", &R::confidence),
        optional("max_passes", &R::max_passes, WhenEmpty::WriteNull),
        required("reps", &R::reps),
        required("n_predict", &R::n_predict),
        optional("kv_label", &R::kv_label, WhenEmpty::WriteNull),
        required("endpoint", &R::endpoint),
        required("logprobs", &R::logprobs),
        custom<R>(
            "seed",
            [](const R& r, core::Json& o) { o.set("seed", static_cast<std::int64_t>(r.seed)); },
            [](const core::Json& o, R& r, const std::string& path) {
                const core::Json* v = o.find("seed");
                if (!v) shape_error(child(path, "seed"), "missing");
                r.seed = static_cast<std::uint64_t>(Codec<std::int64_t>::from_json(*v, path));
            }),
        required("stagger_ms", &R::stagger_ms),
        // A plan from before arrivals were chosen sent every pass's requests together: together
        // is written as no key, so that such a plan still renders as it was written.
        custom<R>(
            "arrivals",
            [](const R& r, core::Json& o) {
                if (r.arrivals != core::Arrivals::Together)
                    o.set("arrivals", Codec<core::Arrivals>::to_json(r.arrivals));
            },
            [](const core::Json& o, R& r, const std::string& path) {
                const core::Json* v = o.find("arrivals");
                r.arrivals = v ? Codec<core::Arrivals>::from_json(*v, child(path, "arrivals"))
                               : core::Arrivals::Together;
            }),
        required("req_timeout_s", &R::req_timeout),
        required("arm_deadline_s", &R::arm_deadline),
        required("stop_on_red", &R::stop_on_red),
        unless_default("cache_arm", &R::cache_arm),
        custom<R>(
            "determinism",
            [](const R& r, core::Json& o) {
                if (r.determinism) o.set("determinism", std::string(core::name(*r.determinism)));
            },
            [](const core::Json& o, R& r, const std::string& path) {
                const core::Json* v = o.find("determinism");
                if (!v) return;
                const auto word = Codec<std::string>::from_json(*v, child(path, "determinism"));
                r.determinism = core::parse_determinism(word);
                if (!r.determinism)
                    shape_error(child(path, "determinism"),
                                "'" + word + "' is not " + std::string(core::kDeterminismWords));
            }),
        custom<R>(  // a decimal string in the file
            "max_response_bytes",
            [](const R& r, core::Json& o) {
                o.set("max_response_bytes", std::to_string(r.max_response_bytes));
            },
            [](const core::Json& o, R& r, const std::string& path) {
                const core::Json* v = o.find("max_response_bytes");
                if (!v) shape_error(child(path, "max_response_bytes"), "missing");
                const std::string text =
                    Codec<std::string>::from_json(*v, child(path, "max_response_bytes"));
                const bool digits = !text.empty() && text.size() <= 19 &&
                                    text.find_first_not_of("0123456789") == std::string::npos;
                if (!digits)
                    shape_error(child(path, "max_response_bytes"), "expected a whole number");
                r.max_response_bytes = std::stoull(text);
            }),
        required("scoring", &R::scoring),
        required("target", &R::target),
        optional("sign_key", &R::sign_key, WhenEmpty::WriteNull),
    };
    return rows;
}

}  // namespace schema

namespace {

core::Json to_json(const core::SweepPlan& plan, bool with_id) {
    core::Json groups = core::Json::array();
    for (std::size_t i = 0; i < plan.groups.size(); ++i) {
        const auto& g = plan.groups[i];
        core::Json parallels = core::Json::array();
        for (int n : g.parallels) parallels.push_back(n);
        core::Json cells = core::Json::array();
        for (int n : g.parallels) cells.push_back(core::cert_file_name(g.model, g.ctx, n));
        groups.push_back(core::Json::Object{
            {"index", i},
            {"model", g.model},
            {"profile", g.profile ? core::Json(*g.profile) : core::Json()},
            {"ctx", g.ctx},
            {"parallels", parallels},
            {"certs", cells},
        });
    }
    core::Json doc =
        core::Json::Object{{"schema", plan.schema},
                           {"out_dir", plan.out_dir},
                           {"request", schema::Codec<core::RunRequest>::to_json(plan.request)},
                           {"groups", groups}};
    if (with_id) doc.set("plan_id", plan.plan_id);
    return doc;
}

[[noreturn]] void bad(const std::string& path, const std::string& where, const std::string& why) {
    throw Error(ErrorCategory::Input, path + ": " + where + ": " + why);
}

const core::Json& member(const std::string& path, const core::Json& object, const char* key,
                         const std::string& where, core::Json::Type type, const char* kind) {
    const core::Json* value = object.find(key);
    const std::string at = where.empty() ? std::string(key) : where + "." + key;
    if (!value) bad(path, at, "missing");
    if (value->type() != type) bad(path, at, std::string("expected ") + kind);
    return *value;
}

}  // namespace

std::string plan_id(const core::SweepPlan& plan) {
    core::Sha256 hash;
    hash.update(to_json_text(to_json(plan, false)));
    return "plan-" + hash.hex_digest().substr(0, 16);
}

std::string render_plan(const core::SweepPlan& plan) {
    core::SweepPlan copy = plan;
    copy.plan_id = plan_id(plan);
    return to_json_text(to_json(copy, true), true) + "\n";
}

core::SweepPlan read_plan(const std::string& path) {
    using T = core::Json::Type;
    const core::Json doc = parse_json(read_file(path), path);
    if (!doc.is_object()) bad(path, "$", "a plan is a JSON object");
    core::SweepPlan plan;
    plan.schema = member(path, doc, "schema", "", T::String, "a string").as_string();
    if (plan.schema == "bi-plan/1")
        bad(path, "schema",
            "bi-plan/1 stored the sweep's options as command-line words, which this bi-run does "
            "not replay: write the plan again with bi-run plan");
    if (plan.schema != core::kPlanSchema)
        bad(path, "schema", "'" + plan.schema + "' is not " + core::kPlanSchema);
    plan.plan_id = member(path, doc, "plan_id", "", T::String, "a string").as_string();
    plan.out_dir = member(path, doc, "out_dir", "", T::String, "a string").as_string();
    try {
        plan.request = schema::Codec<core::RunRequest>::from_json(
            member(path, doc, "request", "", T::Object, "an object"), "request");
    } catch (const schema::ShapeError& e) {
        throw Error(ErrorCategory::Input, path + ": " + e.what());
    }
    const auto& groups = member(path, doc, "groups", "", T::Array, "an array").as_array();
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const std::string where = "groups[" + std::to_string(i) + "]";
        const auto& g = groups[i];
        if (!g.is_object()) bad(path, where, "expected an object");
        core::PlanGroup group;
        group.model = member(path, g, "model", where, T::String, "a string").as_string();
        group.ctx = member(path, g, "ctx", where, T::Int, "an integer").as_int();
        if (const core::Json* profile = g.find("profile"); profile && !profile->is_null()) {
            if (!profile->is_string()) bad(path, where + ".profile", "expected a string or null");
            group.profile = profile->as_string();
        }
        const auto& ns = member(path, g, "parallels", where, T::Array, "an array").as_array();
        for (const auto& n : ns) {
            if (!n.is_int() || n.as_int() < 1 || n.as_int() > 4096)
                bad(path, where + ".parallels", "expected integers from 1 to 4096");
            group.parallels.push_back(static_cast<int>(n.as_int()));
        }
        if (group.parallels.empty()) bad(path, where + ".parallels", "empty");
        plan.groups.push_back(std::move(group));
    }
    core::SweepPlan sorted = plan;
    core::sort_plan(sorted);
    for (std::size_t i = 0; i < plan.groups.size(); ++i)
        if (sorted.groups[i].model != plan.groups[i].model ||
            sorted.groups[i].ctx != plan.groups[i].ctx ||
            sorted.groups[i].parallels != plan.groups[i].parallels)
            bad(path, "groups",
                "not in plan order (sorted by model, then ctx); write it with "
                "bi-run plan");
    const std::string expected = plan_id(plan);
    if (plan.plan_id != expected)
        bad(path, "plan_id",
            plan.plan_id + " does not match the plan's content (" + expected +
                "): the file was edited; write a new one with bi-run plan");
    return plan;
}

}  // namespace bi::io
