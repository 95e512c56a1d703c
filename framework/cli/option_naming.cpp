#include "option_naming.hpp"

#include "command_line.hpp"
#include "command_specs.hpp"
#include "option_table.hpp"

namespace bi::cli {

namespace {

// The option that sets `field` among `command`'s options, or nullptr.
const OptionSpec* setter_in(const CommandSpec& command, core::RequestField field) {
    for (const auto& group : command.groups)
        for (const auto id : group.ids)
            if (const auto& spec = option_spec(id); spec.field == field) return &spec;
    return nullptr;
}

const OptionSpec* setter(const CommandLine& line, core::RequestField field) {
    if (const CommandSpec* command = find_command_spec(line.command))
        if (const OptionSpec* spec = setter_in(*command, field)) return spec;
    for (const auto& spec : option_specs())
        if (spec.field == field) return &spec;
    return nullptr;
}

}  // namespace

std::string option_naming(core::RequestField field, const CommandLine& line) {
    const OptionSpec* spec = setter(line, field);
    if (!spec) return core::field_ref(field);
    std::string option = "--" + spec->long_name();
    for (const auto& [canonical, typed] : line.aliases.spellings)
        if (canonical == option && !typed.empty()) return typed;
    return option;
}

std::string with_options_named(std::string_view text, const CommandLine& line) {
    return core::name_fields(
        text, [&line](core::RequestField field) { return option_naming(field, line); });
}

OptionNamingStream::OptionNamingStream(std::ostream& sink, const CommandLine& line)
    : std::ostream(nullptr), buffer_(sink, line) {
    rdbuf(&buffer_);
}

OptionNamingStream::~OptionNamingStream() {
    buffer_.pubsync();
}

OptionNamingStream::Buffer::int_type OptionNamingStream::Buffer::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char text = traits_type::to_char_type(c);
    xsputn(&text, 1);
    return c;
}

std::streamsize OptionNamingStream::Buffer::xsputn(const char* text, std::streamsize n) {
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_.append(text, static_cast<std::size_t>(n));
    if (const auto newline = pending_.rfind('\n'); newline != std::string::npos)
        pass_on(newline + 1);
    return n;
}

int OptionNamingStream::Buffer::sync() {
    const std::lock_guard<std::mutex> lock(mutex_);
    pass_on(pending_.size());
    out_.flush();
    return out_ ? 0 : -1;
}

void OptionNamingStream::Buffer::pass_on(std::size_t end) {
    out_ << with_options_named(std::string_view(pending_).substr(0, end), line_);
    pending_.erase(0, end);
}

}  // namespace bi::cli
