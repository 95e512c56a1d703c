#include "bounded_socket.hpp"

#include <Poco/Exception.h>
#include <Poco/Net/NetException.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>

namespace bi::http {

namespace {

// The kernel's receive stamp in a recvmsg() answer, as its age against the real-time clock now;
// none when the message carries no stamp. The stamp is on the real-time clock, which may be
// stepped: a negative age counts as none.
std::optional<std::chrono::nanoseconds> stamp_age(msghdr& message) {
#ifdef SO_TIMESTAMPNS
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS ||
            c->cmsg_len < CMSG_LEN(sizeof(timespec)))
            continue;
        timespec stamp{};
        std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
        timespec now{};
        if (::clock_gettime(CLOCK_REALTIME, &now) != 0) return std::nullopt;
        const auto age = std::chrono::seconds(now.tv_sec - stamp.tv_sec) +
                         std::chrono::nanoseconds(now.tv_nsec - stamp.tv_nsec);
        if (age.count() < 0) return std::nullopt;
        return age;
    }
#else
    (void)message;
#endif
    return std::nullopt;
}

}  // namespace

void BoundedSocketImpl::arm(Clock::time_point deadline, std::size_t max_bytes,
                            std::chrono::milliseconds max_gap) {
    deadline_ = deadline;
    max_bytes_ = max_bytes;
    max_gap_ = max_gap;
    last_data_ = Clock::now();
    armed_at_ = last_data_;
    last_arrival_ = last_data_;
    received_ = 0;
    expired_ = false;
    over_limit_ = false;
    stalled_ = false;
}

Poco::Timespan BoundedSocketImpl::time_left(bool reading) {
    const auto now = Clock::now();
    const bool gap_first = reading && max_gap_.count() > 0 && last_data_ + max_gap_ < deadline_;
    const auto until = gap_first ? last_data_ + max_gap_ : deadline_;
    const auto left = std::chrono::duration_cast<std::chrono::microseconds>(until - now);
    if (left.count() <= 0) {
        if (gap_first) {
            stalled_ = true;
            throw Poco::TimeoutException("no data within the stream's gap limit");
        }
        expired_ = true;
        throw Poco::TimeoutException("the request's deadline passed");
    }
    return Poco::Timespan(static_cast<Poco::Timespan::TimeDiff>(left.count()));
}

void BoundedSocketImpl::wait_for(int mode) {
    // poll() may round its wait down to whole milliseconds: ask again until the deadline has
    // really passed (time_left() throws then).
    while (!poll(time_left(mode == SELECT_READ), mode | SELECT_ERROR)) {
    }
}

void BoundedSocketImpl::connect(const Poco::Net::SocketAddress& address,
                                const Poco::Timespan& timeout) {
    StreamSocketImpl::connect(address, std::min(timeout, time_left()));
    // A request goes out as its header and then its body, two small writes: with Nagle's
    // algorithm the body waits for the server to acknowledge the header, which a delayed ACK
    // holds back for up to 40 ms a request.
    setNoDelay(true);
#ifdef SO_TIMESTAMPNS
    // Each received segment stamped by the kernel as it arrives (last_arrival()); without it
    // the receive's own return time serves.
    const int on = 1;
    (void)::setsockopt(sockfd(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
#endif
}

// Non-blocking sends after a bounded wait, so no single send(2) can outlast the deadline.
int BoundedSocketImpl::sendBytes(const void* buffer, int length, int flags) {
    const char* data = static_cast<const char*>(buffer);
    int sent = 0;
    while (sent < length) {
        wait_for(SELECT_WRITE);
        const auto n = ::send(sockfd(), data + sent, static_cast<std::size_t>(length - sent),
                              flags | MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n >= 0) {
            sent += static_cast<int>(n);
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            error(errno);
        }
    }
    return sent;
}

int BoundedSocketImpl::receiveBytes(void* buffer, int length, int flags) {
    for (;;) {
        wait_for(SELECT_READ);
        iovec data{buffer, static_cast<std::size_t>(length)};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
        msghdr message{};
        message.msg_iov = &data;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        const auto n = ::recvmsg(sockfd(), &message, flags | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
            error(errno);
        }
        received_ += static_cast<std::size_t>(n);
        if (n > 0) {
            last_data_ = Clock::now();
            last_arrival_ = last_data_;
            if (const auto age = stamp_age(message))
                last_arrival_ = std::max(
                    armed_at_, last_data_ - std::chrono::duration_cast<Clock::duration>(*age));
        }
        if (received_ > max_bytes_) {
            over_limit_ = true;
            throw Poco::Net::MessageException("response larger than " + std::to_string(max_bytes_) +
                                              " bytes");
        }
        return static_cast<int>(n);
    }
}

}  // namespace bi::http
