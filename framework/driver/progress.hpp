// Progress on stderr: one rewritten status line on a terminal, plain log lines otherwise.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <mutex>
#include <string>

namespace bi::driver {

class Progress {
public:
    enum class Mode { Quiet, Lines, Terminal };
    static Mode detect(bool quiet);  // Terminal when stderr is a TTY

    Progress(Mode mode, std::ostream& out);

    void note(const std::string& message);  // a whole line ("launching the N=4 server")
    // A line printed even when quiet: a decision the operator must see (a cell skipped, a
    // stale lock taken over).
    void notice(const std::string& message);
    void arm_started(const std::string& label, std::size_t total);
    void arm_advanced(std::size_t done, std::size_t total);  // any thread
    void arm_finished(const std::string& summary);

private:
    void end_status_line();

    Mode mode_;
    std::ostream& out_;
    std::mutex mutex_;
    std::string label_;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point last_draw_;
    bool status_line_open_ = false;
};

}  // namespace bi::driver
