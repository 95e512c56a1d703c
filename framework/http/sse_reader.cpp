#include "sse_reader.hpp"

namespace bi::http {

void SseReader::feed(std::string_view bytes, std::chrono::steady_clock::time_point arrival,
                     std::vector<SseEvent>& out) {
    for (const char c : bytes) {
        const bool pair_of_cr = after_cr_ && c == '\n';
        after_cr_ = c == '\r';
        if (pair_of_cr) continue;
        if (c == '\n' || c == '\r') {
            end_line(arrival, out);
        } else {
            line_ += c;
        }
    }
}

void SseReader::end_line(std::chrono::steady_clock::time_point arrival,
                         std::vector<SseEvent>& out) {
    if (line_.empty()) {
        if (has_data_) out.push_back({std::move(data_), arrival, error_field_});
        data_.clear();
        has_data_ = false;
        error_field_ = false;
        return;
    }
    std::string_view line = line_;
    if (line.front() != ':') {
        const auto colon = line.find(':');
        const std::string_view field = line.substr(0, colon);
        std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        const bool error = field == "error";
        if (field == "data" || error) {
            // An error line takes the event over: what it says is what the server meant.
            if (error && !error_field_) data_.clear();
            if (error || !error_field_) {
                if (has_data_ && !(error && !error_field_)) data_ += '\n';
                data_ += value;
            }
            has_data_ = true;
            error_field_ = error_field_ || error;
        }
    }
    line_.clear();
}

}  // namespace bi::http
