#include "interrupt.hpp"

#include <csignal>
#include <cstring>
#include <string>

namespace bi::driver {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_interrupted_again{false};
std::atomic<int> g_signal{0};

extern "C" void on_interrupt(int signal_number) {
    int expected = 0;
    g_signal.compare_exchange_strong(expected, signal_number);
    if (g_interrupted.exchange(true)) g_interrupted_again.store(true);
}

}  // namespace

void install_interrupt_handlers() {
    static std::atomic<bool> installed{false};
    if (installed.exchange(true)) return;
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &action, nullptr);
}

const std::atomic<bool>& interrupt_flag() {
    return g_interrupted;
}

const std::atomic<bool>& kill_now_flag() {
    return g_interrupted_again;
}

Interrupted::Interrupted(int signal_number)
    : Error(ErrorCategory::Internal, std::string("interrupted by ") +
                                         (signal_number ? ::strsignal(signal_number) : "request") +
                                         "; servers stopped, no cert written"),
      signal_number_(signal_number) {}

void throw_if_interrupted() {
    if (g_interrupted.load()) throw Interrupted(g_signal.load());
}

}  // namespace bi::driver
