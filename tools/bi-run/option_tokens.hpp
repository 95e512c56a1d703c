// The values of a repeatable option exactly as typed, one per occurrence, for options whose
// values are argv tokens of another program (--server-flag).
#pragma once

#include <cxxopts.hpp>

#include <string>
#include <vector>

namespace bi::cli {

// cxxopts splits a vector option's value at commas, which would turn "--server-flag=3,1" into two
// server tokens; the parse result's ordered list keeps each occurrence whole.
std::vector<std::string> option_tokens(const cxxopts::ParseResult& args, const std::string& name);

}  // namespace bi::cli
