#include "plan_io.hpp"

#include "core/cert.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/sha256.hpp"
#include "files.hpp"
#include "json_text.hpp"

namespace bi::io {

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
    core::Json options = core::Json::array();
    for (const auto& token : plan.options) options.push_back(token);
    core::Json doc = core::Json::Object{{"schema", plan.schema},
                                        {"out_dir", plan.out_dir},
                                        {"options", options},
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
    if (plan.schema != core::kPlanSchema)
        bad(path, "schema", "'" + plan.schema + "' is not " + core::kPlanSchema);
    plan.plan_id = member(path, doc, "plan_id", "", T::String, "a string").as_string();
    plan.out_dir = member(path, doc, "out_dir", "", T::String, "a string").as_string();
    const auto& options = member(path, doc, "options", "", T::Array, "an array").as_array();
    for (std::size_t i = 0; i < options.size(); ++i) {
        if (!options[i].is_string())
            bad(path, "options[" + std::to_string(i) + "]", "expected a string");
        plan.options.push_back(options[i].as_string());
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
