// The one chat template the mock applies (ChatML), and its Jinja text as /props reports it.
#pragma once

#include <string>
#include <vector>

namespace bi::mock {

struct ChatMessage {
    std::string role;
    std::string content;
};

inline constexpr const char* kChatTemplateJinja =
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

// The prompt text for `messages`, ending with the assistant's generation prompt.
std::string render_chat(const std::vector<ChatMessage>& messages);

}  // namespace bi::mock
