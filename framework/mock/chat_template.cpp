// ChatML rendering, matching kChatTemplateJinja with add_generation_prompt set.
#include "chat_template.hpp"

namespace bi::mock {

std::string render_chat(const std::vector<ChatMessage>& messages) {
    std::string prompt;
    for (const auto& message : messages)
        prompt += "<|im_start|>" + message.role + "\n" + message.content + "<|im_end|>\n";
    prompt += "<|im_start|>assistant\n";
    return prompt;
}

}  // namespace bi::mock
