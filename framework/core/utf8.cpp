#include "utf8.hpp"

namespace bi::core {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char lead = byte(i);
        if (lead < 0x80) {
            ++i;
            continue;
        }
        // The length of the sequence and the range its second byte must fall in (the first
        // continuation byte is where overlongs, surrogates and values past U+10FFFF show).
        std::size_t length = 0;
        unsigned char low = 0x80, high = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            if (lead == 0xE0) low = 0xA0;   // overlong below U+0800
            if (lead == 0xED) high = 0x9F;  // U+D800..U+DFFF are surrogates
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            if (lead == 0xF0) low = 0x90;   // overlong below U+10000
            if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
        } else {
            return i;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
        }
        if (i + 1 >= text.size() || byte(i + 1) < low || byte(i + 1) > high) return i;
        for (std::size_t k = 2; k < length; ++k)
            if (i + k >= text.size() || (byte(i + k) & 0xC0) != 0x80) return i;
        i += length;
    }
    return std::nullopt;
}

std::string replace_invalid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    while (!text.empty()) {
        const auto bad = first_invalid_utf8(text);
        out.append(text.substr(0, bad.value_or(text.size())));
        if (!bad) break;
        out.append("\xEF\xBF\xBD");  // U+FFFD REPLACEMENT CHARACTER
        text.remove_prefix(*bad + 1);
    }
    return out;
}

}  // namespace bi::core
