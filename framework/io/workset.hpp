// Work-set files (docs/design.md §8): JSON rows <-> core::WorkRow, with errors that name the file,
// the row and the field.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/work_item.hpp"

namespace bi::io {

// Reads rows from a parsed work-set: a non-empty JSON array of objects (or of bare strings, each a
// prompt with family "default" and no expected answer, as the upstream reader takes them) with
//   prompt | item | prompt_text  string, required, non-empty (exactly one of the three names)
//   expected_answer              any JSON, default null
//   family                       non-empty string, default "default"
//   fill | fill_ratio            number in [0, 1], default 0
//   system                       string, default "" (no system message)
// Other keys are ignored, so files carrying extra metadata still load, but each one is reported
// once in `warnings` (when given), naming the first row that has it and the known key it is
// probably a misspelling of: "ws.json: rows[3]: unknown key 'famly' ignored (did you mean
// 'family'?)". Errors are bi::Error(Input): "ws.json: rows[3].fill: expected a number, got
// string".
std::vector<core::WorkRow> rows_from_json(const core::Json& doc, std::string_view what,
                                          std::vector<std::string>* warnings = nullptr);

// read_file_or_stream (a regular file, a FIFO or "-" for standard input) + parse_workset_text.
std::vector<core::WorkRow> load_workset_file(const std::string& path,
                                             std::vector<std::string>* warnings = nullptr);

// parse_json + rows_from_json, naming `path` in every error. Bytes that are not UTF-8 are refused
// naming the row they are in and their byte offset in the file:
// "ws.json: rows[2]: invalid UTF-8 at byte offset 117".
std::vector<core::WorkRow> parse_workset_text(const std::string& text, const std::string& path,
                                              std::vector<std::string>* warnings = nullptr);

// The canonical form of rows: prompt, family, fill, expected_answer and system (when set).
core::Json rows_to_json(const std::vector<core::WorkRow>& rows);

// rows_to_json as text: sorted keys, 2-space indent, trailing newline; loads back unchanged.
std::string workset_to_json_text(const std::vector<core::WorkRow>& rows);

}  // namespace bi::io
