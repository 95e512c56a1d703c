// The work-set used when neither --workset nor --generator is given: 32 short prompts.
#pragma once

#include <vector>

#include "core/work_item.hpp"

namespace bi::driver {

std::vector<core::WorkRow> builtin_work_rows();

}  // namespace bi::driver
