#include "server_props.hpp"

#include "core/error.hpp"
#include "io/json_text.hpp"

namespace bi::http {

core::Json parse_props(std::string_view body) {
    try {
        return io::parse_json(body, "/props");
    } catch (const Error&) {
        return core::Json::object();
    }
}

core::Json trim_props(const core::Json& props, const std::string& also) {
    core::Json kept = core::Json::object();
    if (!also.empty())
        if (const core::Json* v = props.find(also)) kept.set(also, *v);
    for (const char* key : {"build_info", "total_slots", "model_path", "model_alias", "bi_mock",
                            "model_ftype", "chat_template", "version", "sha", "model_id",
                            "model_sha", "max_running_requests", "served_model_name"})
        if (const core::Json* v = props.find(key)) kept.set(key, *v);
    if (const core::Json* settings = props.find("default_generation_settings"))
        if (const core::Json* n_ctx = settings->find("n_ctx")) kept.set("n_ctx", *n_ctx);
    return kept;
}

}  // namespace bi::http
