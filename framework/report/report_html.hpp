// `bi-run report --html FILE`: one self-contained page (inline CSS and SVG, no scripts, nothing
// fetched) with a ctx x N matrix per model, the "largest N GREEN at every ctx" answer, and per
// cell its reasons, gates, bounds, provenance and the divergent ids side by side. Every text
// taken from a cert is HTML-escaped.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "report_model.hpp"

namespace bi::report {

std::string render_html(const ReportModel& model);

// One cert's detail section (html_cell.cpp), its id `anchor` (cell_anchor of the cert when
// empty) and its cache check's `anchor` + "-cache"; `entry` must have a cert.
std::string render_cell_html(const ReportEntry& entry, const std::string& anchor = "");

// The anchor of the k-th cert of a cell (ModelGrid::all_at): cell_anchor for the one shown, then
// "cell-tiny_rand-256__ctx512__N4-2", "-3" ... for the others.
std::string entry_anchor(const core::Cert& cert, std::size_t k);

// The byte length of the longest common prefix of `a` and `b` that ends on a UTF-8 character
// boundary: where the first difference is highlighted.
std::size_t common_prefix_chars(std::string_view a, std::string_view b);

// Two texts side by side with their common prefix plain and the rest marked; the labels are
// markup already, the texts are escaped here.
std::string side_by_side(const std::string& left_label, const std::string& left,
                         const std::string& right_label, const std::string& right);

// One divergent id's forensics as tags: class, basis, index, margin, logprobs, contamination.
std::string forensics_tags(const core::IdForensics& forensics);

// A cell's cache check section's anchor: "cell-tiny_rand-256__ctx512__N4-cache".
std::string cache_anchor(const core::Cert& cert);

// The CSS class of a baseline or cache check's status, in the verdicts' colours: SAME "v-green",
// CHANGED "v-red", DRIFT ONLY "v-amber", NOT COMPARABLE "v-unverified".
std::string check_status_class(core::BaselineStatus status);

// The CSS class of a verdict: "v-green", "v-red", "v-amber", "v-unverified"; "v-invalid" for a
// cert the report cannot trust.
std::string verdict_class(const ReportEntry& entry);

}  // namespace bi::report
