// The lines bi-run prints about what a cert rules out: both bounds with their n, the planned
// passes (--target-rate) and the length scope.
#pragma once

#include <string>
#include <vector>

#include "core/cert.hpp"

namespace bi::report {

std::vector<std::string> sensitivity_lines(const core::Cert& cert);

// One bound in a table cell, with its n: "<=0.0231 n=128" (no divergence: the one-sided upper
// bound), "0.0156 n=128" (the observed rate), "- n=0" when nothing was counted.
std::string bound_cell(const core::RateBound& bound);

}  // namespace bi::report
