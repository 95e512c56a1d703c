// What the kernel says about this process and its children: CPU seconds, resident memory and the
// machine's load, so every benchmark number can be printed with the conditions it was taken in.
#pragma once

#include <sys/types.h>

#include <array>
#include <optional>

namespace bi::bench {

// User + system CPU seconds of this whole process (every thread) so far.
double process_cpu_seconds();

// User + system CPU seconds of another process, from /proc/PID/stat; nullopt when unreadable.
std::optional<double> other_process_cpu_seconds(pid_t pid);

// VmHWM (peak resident set) and VmRSS of this process in KiB; 0 when /proc is unreadable.
long peak_rss_kib();
long current_rss_kib();

// The 1, 5 and 15 minute load averages; zeros when unavailable.
std::array<double, 3> load_average();

int online_cpus();

}  // namespace bi::bench
