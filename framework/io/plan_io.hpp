// The sweep plan on disk (schema bi-plan/1): canonical JSON with its plan id, and a validated
// read. Shards of one sweep on many hosts read the same file and agree on its groups.
#pragma once

#include <string>

#include "core/sweep_plan.hpp"

namespace bi::io {

// "plan-" + the first 16 hex digits of sha256 over the canonical text of the plan without its
// plan_id: the same groups and options give the same id on every machine.
std::string plan_id(const core::SweepPlan& plan);

// The file form, plan_id filled in: keys sorted, 2-space indent, trailing newline.
std::string render_plan(const core::SweepPlan& plan);

// Reads and checks a plan: schema, every field's type, sorted groups, and a plan_id that
// matches its content (an edited plan is refused). Errors are bi::Error(Input) naming the
// file and the field ("plan.json: groups[2].ctx: expected an integer").
core::SweepPlan read_plan(const std::string& path);

}  // namespace bi::io
