// The framework's one exception type; the CLI edge turns it into a one-line message.
#pragma once

#include <stdexcept>
#include <string>

namespace bi {

enum class ErrorCategory { Usage, Input, Json, Plugin, Io, Server, Http, Guard, Internal };

class Error : public std::runtime_error {
public:
    Error(ErrorCategory category, const std::string& message)
        : std::runtime_error(message), category_(category) {}
    ErrorCategory category() const { return category_; }

private:
    ErrorCategory category_;
};

}  // namespace bi
