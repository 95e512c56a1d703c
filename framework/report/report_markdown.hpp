// `bi-run report --markdown`: the matrix per model and the cells that are not green with their
// deciding reasons, for a CI step summary (at most kMaxMarkdownBytes).
#pragma once

#include <cstddef>
#include <string>

#include "report_model.hpp"

namespace bi::report {

inline constexpr std::size_t kMaxMarkdownBytes = 1u << 20;

std::string render_markdown(const ReportModel& model);

// Text from a cert inside Markdown: HTML-significant characters as entities, Markdown
// punctuation backslash-escaped, newlines as spaces (a list item stays one line).
std::string escape_markdown(const std::string& text);

}  // namespace bi::report
