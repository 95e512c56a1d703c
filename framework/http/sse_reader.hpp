// Server-sent events (text/event-stream) read as the bytes arrive: a streamed completion is a
// sequence of `data:` events, each stamped with the moment the read that completed it returned.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace bi::http {

struct SseEvent {
    std::string data;  // the event's data lines, joined by '\n'
    std::chrono::steady_clock::time_point arrival;
    // The event came as an "error:" field, not "data:": how older llama-server builds and
    // ik_llama.cpp report a failure mid-stream; `data` then holds its value.
    bool error_field = false;
};

// Incremental parser: lines end in "\n", "\r\n" or "\r" (also when split across reads); a line
// starting with ':' is a comment (keep-alive pings); "data:" lines add to the event, a blank line
// ends it; an "error:" line makes it an error event (SseEvent::error_field); other fields (event,
// id, retry) are read and ignored. An event without data or error lines is not an event.
class SseReader {
public:
    // Appends to `out` every event that `bytes` completes.
    void feed(std::string_view bytes, std::chrono::steady_clock::time_point arrival,
              std::vector<SseEvent>& out);

    // True when bytes of an unfinished event or line were read: the stream broke off mid-event.
    bool pending() const { return !line_.empty() || has_data_; }

private:
    void end_line(std::chrono::steady_clock::time_point arrival, std::vector<SseEvent>& out);

    std::string line_;
    std::string data_;
    bool has_data_ = false;
    bool error_field_ = false;
    bool after_cr_ = false;  // the previous byte ended a line with '\r': a '\n' next is its pair
};

}  // namespace bi::http
