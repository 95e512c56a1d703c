// Facts about the machine the cell ran on, for the cert's "host" section.
#pragma once

#include "core/json.hpp"

namespace bi::driver {

// {hostname, cpu, n_cpus, gpus[], os}; fields that cannot be read are left empty.
core::Json describe_host();

}  // namespace bi::driver
