// JSON for /health, /props, /v1/models, /slots and errors. "bi_mock" in /props is how the driver
// tells the mock from a real llama-server.
#include "info_bodies.hpp"

#include "chat_template.hpp"
#include "request_parsing.hpp"
#include "vocabulary.hpp"

namespace bi::mock {

using core::Json;

Json error_body(int status, const std::string& message, const std::string& type) {
    return Json::Object{
        {"error", Json::Object{{"code", status}, {"message", message}, {"type", type}}}};
}

Json health_body() {
    return Json::Object{{"status", "ok"}};
}

Json props_body(const MockConfig& config, const std::string& build_info) {
    const Json knobs = Json::Object{
        {"divergence", divergence_name(config.divergence)},
        {"divergence_p", config.divergence_p},
        {"seed", static_cast<std::int64_t>(config.seed)},
        {"empty", config.empty},
        {"crash_after", config.crash_after},
        {"hang", config.hang},
        {"loading_seconds", config.loading_seconds},
        {"tick_ms", config.tick_ms},
        {"tick_per_turnaround", config.tick_per_turnaround},
    };
    return Json::Object{
        {"default_generation_settings",
         Json::Object{{"params", default_generation_settings()}, {"n_ctx", config.n_ctx}}},
        {"total_slots", config.slots},
        {"model_alias", model_name(config)},
        {"model_path", config.model_path},
        {"model_ftype", "mock"},
        {"modalities", Json::Object{{"vision", false}, {"video", false}, {"audio", false}}},
        {"endpoint_slots", config.slots_endpoint},
        {"endpoint_props", false},
        {"endpoint_metrics", config.metrics},
        {"ui", false},
        {"ui_settings", Json::object()},
        {"media_marker", "<__media__>"},
        {"chat_template", kChatTemplateJinja},
        {"chat_template_caps", Json::Object{{"supports_object_arguments", false},
                                            {"supports_parallel_tool_calls", false},
                                            {"supports_preserve_reasoning", false},
                                            {"supports_reasoning_effort", false},
                                            {"supports_string_content", true},
                                            {"supports_system_role", true},
                                            {"supports_tool_calls", false},
                                            {"supports_tools", false},
                                            {"supports_typed_content", false}}},
        {"bos_token", std::string(kBosText)},
        {"eos_token", std::string(kEosText)},
        {"build_info", build_info},
        {"is_sleeping", false},
        {"cors_proxy_enabled", false},
        {"n_threads", config.threads},
        {"bi_mock", true},
        {"bi_mock_knobs", knobs},
    };
}

Json models_body(const MockConfig& config, std::int64_t created) {
    const std::string name = model_name(config);
    const Json meta =
        Json::Object{{"vocab_type", 1}, {"n_vocab", kVocabSize}, {"n_ctx_train", config.n_ctx},
                     {"n_embd", 0},     {"n_params", 0},         {"size", 0}};
    return Json::Object{
        {"object", "list"},
        {"data", Json::Array{Json::Object{{"id", name},
                                          {"object", "model"},
                                          {"created", created},
                                          {"owned_by", "llamacpp"},
                                          {"meta", meta}}}},
        {"models", Json::Array{Json::Object{{"name", name},
                                            {"model", name},
                                            {"type", "model"},
                                            {"capabilities", Json::Array{"completion"}}}}},
    };
}

Json slots_body(const std::vector<SlotView>& slots) {
    Json body = Json::array();
    for (const auto& slot : slots) {
        Json entry = Json::Object{{"id", slot.id},
                                  {"n_ctx", slot.n_ctx},
                                  {"speculative", false},
                                  {"is_processing", slot.is_processing}};
        if (slot.id_task >= 0) {
            entry.set("id_task", slot.id_task);
            entry.set("n_prompt_tokens", slot.n_prompt_tokens);
            entry.set("n_prompt_tokens_processed", slot.n_prompt_tokens_processed);
            entry.set("n_prompt_tokens_cache", slot.n_prompt_tokens_cache);
            entry.set("params", slot.params);
            entry.set("next_token", Json::Array{Json::Object{{"has_next_token", slot.is_processing},
                                                             {"has_new_line", false},
                                                             {"n_remain", slot.n_remain},
                                                             {"n_decoded", slot.n_decoded}}});
        }
        body.push_back(std::move(entry));
    }
    return body;
}

}  // namespace bi::mock
