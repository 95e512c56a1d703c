// Internal to bi_http: the socket under every HttpSession. Each request arms it with a wall-clock
// deadline and a byte limit, so that a server dripping one byte at a time, or sending forever,
// cannot hold a request past its deadline or fill memory, whatever Poco reads on top of it.
#pragma once

#include <Poco/Net/StreamSocketImpl.h>

#include <chrono>
#include <cstddef>

namespace bi::http {

// Every connect, send and receive waits at most until the armed deadline and then throws
// Poco::TimeoutException with expired() set; every receive adds to received() and throws
// Poco::Net::MessageException with over_limit() set once it exceeds the limit. The flags stay
// set until the next arm(), so a caller can tell what happened after Poco has wrapped or
// swallowed the exception (istreams turn it into badbit). Used by one thread at a time.
class BoundedSocketImpl : public Poco::Net::StreamSocketImpl {
public:
    using Clock = std::chrono::steady_clock;

    // `max_gap`: a receive that waits longer than this since the previous one returned data
    // (or since arm()) throws Poco::TimeoutException with stalled() set; zero: no such limit.
    void arm(Clock::time_point deadline, std::size_t max_bytes,
             std::chrono::milliseconds max_gap = std::chrono::milliseconds::zero());
    bool expired() const { return expired_; }
    bool stalled() const { return stalled_; }
    bool over_limit() const { return over_limit_; }
    std::size_t received() const { return received_; }
    // When the bytes of the latest receive reached this machine: the kernel's receive stamp of
    // the last segment that receive returned (SO_TIMESTAMPNS), on the steady clock, so a reader
    // thread that ran late does not make them look late; where the kernel gives no stamp, the
    // moment the receive returned. Never before the latest arm().
    Clock::time_point last_arrival() const { return last_arrival_; }

    void connect(const Poco::Net::SocketAddress& address, const Poco::Timespan& timeout) override;
    int sendBytes(const void* buffer, int length, int flags) override;
    int receiveBytes(void* buffer, int length, int flags) override;

private:
    ~BoundedSocketImpl() override = default;  // reference-counted: Poco deletes it

    // Time left before the deadline (and, when reading, before the gap limit); throws (marking
    // expired or stalled) when none is.
    Poco::Timespan time_left(bool reading = false);
    // Waits for the socket to become readable or writable before the deadline.
    void wait_for(int mode);

    Clock::time_point deadline_ = Clock::time_point::max();
    std::chrono::milliseconds max_gap_{0};
    Clock::time_point last_data_ = Clock::time_point::min();
    Clock::time_point armed_at_ = Clock::time_point::min();
    Clock::time_point last_arrival_ = Clock::time_point::min();
    std::size_t max_bytes_ = 0;
    std::size_t received_ = 0;
    bool expired_ = false;
    bool over_limit_ = false;
    bool stalled_ = false;
};

}  // namespace bi::http
