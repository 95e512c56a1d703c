// Waiting on something observable instead of sleeping a guessed time: poll a predicate until it
// holds or a deadline passes. The deadline only bounds a broken run; speed is never asserted.
#pragma once

#include <chrono>
#include <thread>

namespace bi::testing {

inline constexpr std::chrono::milliseconds kDefaultWait{20000};

// True as soon as `done()` holds; false when it still does not after `timeout` (checked once
// more at the deadline, so a slow machine that got there just in time still passes).
template <typename Predicate>
bool wait_until(Predicate&& done, std::chrono::milliseconds timeout = kDefaultWait,
                std::chrono::milliseconds poll = std::chrono::milliseconds(2)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) return done();
        std::this_thread::sleep_for(poll);
    }
    return true;
}

}  // namespace bi::testing
