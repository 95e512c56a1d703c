// GET /props: the server's self-description, and the part of it a cert keeps.
#pragma once

#include <string_view>

#include "core/json.hpp"

namespace bi::http {

// The body as JSON; an empty object when it is not JSON (a server without /props, or one that
// answers junk, is described by what the cert records elsewhere). Never throws bi::Error.
core::Json parse_props(std::string_view body);

// The fields worth keeping in a cert (build_info, total_slots, model_path, model_alias, bi_mock,
// model_ftype, chat_template, and default_generation_settings.n_ctx as n_ctx); the rest is
// generation defaults. Always an object.
// `also`: one more top-level field to keep (a kind's served_model).
core::Json trim_props(const core::Json& props, const std::string& also = "");

}  // namespace bi::http
