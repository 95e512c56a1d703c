// The driver names the request fields its messages are about (core::field_ref: "`passes` must be
// at least 1"); bi-run names each as the option that sets it in the command being run (the option
// table's `field`), spelt as the user typed it: "--gate-passes must be at least 1".
#pragma once

#include <mutex>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "core/request_field.hpp"

namespace bi::cli {

struct CommandLine;

// The option of `line`'s command that sets `field`, as the user typed it: the alias they gave
// for it ("--gate-passes"), else the option's own name ("--passes"). An option of another command
// stands in when this one has none, and the field's reference as written when no option sets it.
std::string option_naming(core::RequestField field, const CommandLine& line);

// `text` with every field reference named by option_naming.
std::string with_options_named(std::string_view text, const CommandLine& line);

// An output stream that passes what it is given on to `sink` with every field reference named by
// option_naming: line by line, and what is pending when it is flushed (a progress status line).
// The notes and progress lines the driver writes go through it.
class OptionNamingStream : public std::ostream {
public:
    OptionNamingStream(std::ostream& sink, const CommandLine& line);
    OptionNamingStream(const OptionNamingStream&) = delete;
    OptionNamingStream& operator=(const OptionNamingStream&) = delete;
    ~OptionNamingStream() override;

private:
    class Buffer : public std::streambuf {
    public:
        Buffer(std::ostream& sink, const CommandLine& line) : out_(sink), line_(line) {}

    protected:
        int_type overflow(int_type c) override;
        std::streamsize xsputn(const char* text, std::streamsize n) override;
        int sync() override;

    private:
        void pass_on(std::size_t end);  // pending_[0, end) named and written; the lock is held

        std::ostream& out_;
        const CommandLine& line_;
        std::mutex mutex_;
        std::string pending_;
    };
    Buffer buffer_;
};

}  // namespace bi::cli
