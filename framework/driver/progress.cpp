#include "progress.hpp"
#include "core/text.hpp"

#include <unistd.h>

#include <ostream>

namespace bi::driver {

namespace {

std::string seconds(double s) {
    return core::format_fixed(s, 1) + "s";
}

}  // namespace

Progress::Mode Progress::detect(bool quiet) {
    if (quiet) return Mode::Quiet;
    return ::isatty(STDERR_FILENO) ? Mode::Terminal : Mode::Lines;
}

Progress::Progress(Mode mode, std::ostream& out) : mode_(mode), out_(out) {}

void Progress::end_status_line() {
    if (!status_line_open_) return;
    out_ << "\r\x1b[K";
    status_line_open_ = false;
}

void Progress::note(const std::string& message) {
    if (mode_ == Mode::Quiet) return;
    std::lock_guard<std::mutex> lock(mutex_);
    end_status_line();
    out_ << "bi-run: " << message << std::endl;
}

void Progress::notice(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    end_status_line();
    out_ << "bi-run: " << message << std::endl;
}

void Progress::arm_started(const std::string& label, std::size_t total) {
    std::lock_guard<std::mutex> lock(mutex_);
    label_ = label;
    started_ = last_draw_ = std::chrono::steady_clock::now();
    if (mode_ == Mode::Lines)
        out_ << "bi-run: " << label << ": " << total << " requests" << std::endl;
}

void Progress::arm_advanced(std::size_t done, std::size_t total) {
    if (mode_ != Mode::Terminal) return;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    const double elapsed = std::chrono::duration<double>(now - started_).count();
    std::string eta = "?";
    if (done > 0)
        eta = seconds(elapsed / static_cast<double>(done) * static_cast<double>(total - done));
    out_ << "\r\x1b[K" << label_ << "  " << done << "/" << total << "  elapsed " << seconds(elapsed)
         << "  ETA " << eta << std::flush;
    status_line_open_ = true;
}

void Progress::arm_finished(const std::string& summary) {
    if (mode_ == Mode::Quiet) return;
    std::lock_guard<std::mutex> lock(mutex_);
    end_status_line();
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    out_ << "bi-run: " << label_ << ": " << summary << " (" << seconds(elapsed) << ")" << std::endl;
}

}  // namespace bi::driver
