// Kept for the files that still include it by this name; the formatters live in text.hpp.
#pragma once

#include "text.hpp"
