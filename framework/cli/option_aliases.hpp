// Other spellings of our options (the upstream Python tool's names, --gate-passes), rewritten to
// ours before cxxopts parses, so every option is parsed, checked and listed in --help once.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bi::cli {

struct OptionAlias {
    const char* spelling;         // as typed: "--experiment-port"
    const char* option;           // what it stands for: "--port"; "" drops it (no effect)
    const char* value = nullptr;  // set: a flag that stands for `option value` (--divergence score)
    const char* prefix = nullptr;   // set: prepended to the alias's value ("corner=")
    bool repeatable = false;        // the option may be given more than once, alias or not
    const char* refusal = nullptr;  // set: the spelling is refused with this reason
    // set: an upstream option for something bi-run decides or does anyway; it takes a value and
    // is dropped. A value `agrees` with gets one note line on stderr (`note`); any other value
    // is refused with `refusal`, after the value.
    bool (*agrees)(std::string_view value) = nullptr;
    const char* note = nullptr;
    // set: with no value (the end of the line or an option next) it is a switch and is dropped;
    // the command reads its presence with has_option (upstream's --ctx-sweep).
    bool switch_too = false;
};

// What rewriting aliases learned about one command line: the option each alias stood for, as
// typed ("" when two spellings or the option itself were used), and the notes of the agreeing
// options it dropped, waiting to be printed once the whole line parsed.
struct AliasLog {
    std::vector<std::pair<std::string, std::string>> spellings;  // (option, as typed)
    std::vector<std::string> notes;
};

// An upstream option that bi-run takes only when its value is what bi-run does anyway.
OptionAlias agreeing_option(const char* spelling, bool (*agrees)(std::string_view value),
                            const char* note, const char* refusal);

// A command line owning its strings, with the char* view cxxopts takes.
class ArgvCopy {
public:
    explicit ArgvCopy(std::vector<std::string> tokens);
    ArgvCopy(const ArgvCopy&) = delete;
    ArgvCopy& operator=(const ArgvCopy&) = delete;
    int argc() const { return static_cast<int>(pointers_.size()) - 1; }
    char** argv() { return pointers_.data(); }

private:
    std::vector<std::string> tokens_;
    std::vector<char*> pointers_;  // tokens_ then a null
};

// argv (argv[0] is the command name) with every alias of `aliases` replaced, as `--x V` or
// `--x=V`; nothing after "--" is touched. bi::Error(Usage) naming the spelling for a refused one,
// a missing value, or an alias of a single-valued option given together with that option. The
// spellings used and the notes of agreeing options go to `log`.
std::vector<std::string> apply_aliases(int argc, char** argv, AliasLog& log,
                                       const std::vector<OptionAlias>& aliases);

// `message` with each option that an alias stood for named as the user typed it, so that
// "--passes must be at least 1" reads "--gate-passes must be at least 1" after --gate-passes 0.
// An option also typed by its own name, or stood for by two spellings, or by a flag with a fixed
// value, keeps its name.
std::string as_typed(const std::string& message, const AliasLog& log);

// True when `spelling` (or `spelling=...`) is on the command line before any "--".
bool has_option(int argc, char** argv, const std::string& spelling);

}  // namespace bi::cli
