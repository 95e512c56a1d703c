// Shared by the fuzz targets: the fuzzer's bytes as a file, for readers that take a path (so a
// target runs exactly what bi-run runs), and the rule every target keeps: a bi::Error is an
// answer, any other exception escaping the library is a finding.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>

#include "core/error.hpp"

namespace bi::fuzz {

// One file per process in $TMPDIR (else /tmp), rewritten for every input, removed at exit.
class InputFile {
public:
    InputFile() {
        const char* dir = std::getenv("TMPDIR");
        path_ = std::string(dir && *dir ? dir : "/tmp") + "/bi-fuzz-" + std::to_string(getpid()) +
                ".input";
    }
    ~InputFile() { unlink(path_.c_str()); }
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    // Replaces the file's content with `bytes`; aborts (a harness failure, not a finding) when
    // the file cannot be written.
    const std::string& write(std::string_view bytes) {
        const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        std::size_t done = 0;
        while (fd >= 0 && done < bytes.size()) {
            const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
            if (n <= 0) break;
            done += static_cast<std::size_t>(n);
        }
        if (fd < 0 || done != bytes.size() || close(fd) != 0) {
            std::perror(path_.c_str());
            std::abort();
        }
        return path_;
    }

private:
    std::string path_;
};

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// Runs `call`; bi::Error is the library refusing the input, which is fine. Any other exception
// is reported with its type and message and aborts, so libFuzzer records the input.
template <typename Call>
void refusals_allowed(Call&& call) {
    try {
        call();
    } catch (const Error&) {
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz: unexpected %s: %s\n", typeid(e).name(), e.what());
        std::abort();
    } catch (...) {
        std::fprintf(stderr, "fuzz: unexpected non-standard exception\n");
        std::abort();
    }
}

}  // namespace bi::fuzz
