// Facts about the machine the cell ran on, for the cert's "host" section.
#pragma once

#include "core/cert.hpp"

namespace bi::driver {

// Fields that cannot be read are left empty.
core::HostRecord describe_host();

}  // namespace bi::driver
