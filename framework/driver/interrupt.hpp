// SIGINT/SIGTERM/SIGHUP become a flag the dispatcher polls, so the run unwinds normally and every
// server it started is torn down by its RAII handle before the process exits 128 + the signal.
// A second signal sets a flag that makes a teardown in progress SIGKILL at once.
#pragma once

#include <atomic>

#include "core/error.hpp"

namespace bi::driver {

// Installs the handlers once; later calls do nothing.
void install_interrupt_handlers();

// Set by the handlers; the dispatcher and the cell runner check it.
const std::atomic<bool>& interrupt_flag();

// Set by the second signal (any of the three): teardown stops waiting for the grace.
const std::atomic<bool>& kill_now_flag();

// Thrown when the run stops because of a signal; no cert is written.
class Interrupted : public Error {
public:
    explicit Interrupted(int signal_number);
    int signal_number() const { return signal_number_; }

private:
    int signal_number_;
};

// Throws Interrupted when the flag is set.
void throw_if_interrupted();

}  // namespace bi::driver
