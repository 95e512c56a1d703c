// Text from certs inside HTML and XML: completions are untrusted, so every character that could
// open markup is escaped, and control characters XML 1.0 forbids become U+FFFD.
#pragma once

#include <string>
#include <string_view>

namespace bi::report {

// & < > " ' as entities; C0 controls other than tab, newline and carriage return (and DEL) as
// U+FFFD. Safe in element text and in quoted attribute values of HTML and XML.
std::string escape_markup(std::string_view text);

// escape_markup, and newlines as &#10; so that an attribute value keeps its line breaks.
std::string escape_attribute(std::string_view text);

}  // namespace bi::report
