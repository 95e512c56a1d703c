#include "markup.hpp"

namespace bi::report {

std::string escape_markup(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (char ch : text) {
        const auto byte = static_cast<unsigned char>(ch);
        switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                if ((byte < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || byte == 0x7f)
                    out += "\xEF\xBF\xBD";
                else
                    out += ch;
        }
    }
    return out;
}

std::string escape_attribute(std::string_view text) {
    std::string out;
    for (char ch : escape_markup(text)) {
        if (ch == '\n')
            out += "&#10;";
        else if (ch == '\r')
            out += "&#13;";
        else if (ch == '\t')
            out += "&#9;";
        else
            out += ch;
    }
    return out;
}

}  // namespace bi::report
