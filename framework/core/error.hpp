// The framework's one exception type; the CLI edge turns it into a one-line message.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace bi {

// Trust: a document that is not what it claims (edited after its digest was taken, a signature
// that does not verify or is not by a trusted key, not a well-formed document of its schema).
enum class ErrorCategory { Usage, Input, Json, Plugin, Io, Server, Http, Guard, Trust, Internal };

class Error : public std::runtime_error {
public:
    Error(ErrorCategory category, const std::string& message)
        : std::runtime_error(message), category_(category) {}
    ErrorCategory category() const { return category_; }

private:
    ErrorCategory category_;
};

// A command line or request that the user has to change; the CLI prints it as a usage error.
[[noreturn]] inline void usage_error(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

// Some messages start "bi: " (the plugin host's, say); a line that has a prefix of its own
// ("bi-run sweep: ...", "PATH: ...") shows the message without it.
inline std::string without_bi_prefix(std::string_view message) {
    constexpr std::string_view kPrefix = "bi: ";
    if (message.substr(0, kPrefix.size()) == kPrefix) message.remove_prefix(kPrefix.size());
    return std::string(message);
}

}  // namespace bi
