// A stand-in for llama-server that misbehaves on purpose, for run-live lifecycle tests:
//   --stand-in=exit    prints a line and exits 3 at once (a server that fails to start)
//   --stand-in=hang    never listens, never answers (a server that hangs before ready)
// --pid-file=PATH records its PID so a test can check that it is gone afterwards.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
    std::string mode, pid_file;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--stand-in=", 0) == 0) mode = arg.substr(11);
        if (arg.rfind("--pid-file=", 0) == 0) pid_file = arg.substr(11);
    }
    if (!pid_file.empty())
        if (FILE* f = std::fopen(pid_file.c_str(), "w")) {
            std::fprintf(f, "%d\n", static_cast<int>(::getpid()));
            std::fclose(f);
        }
    if (mode == "exit") {
        std::fprintf(stderr, "stand-in: failed to load model (on purpose)\n");
        return 3;
    }
    if (mode == "hang") {
        std::fprintf(stderr, "stand-in: hanging before ready (on purpose)\n");
        std::fflush(stderr);
        for (;;) ::pause();
    }
    std::fprintf(stderr, "stand-in: unknown mode '%s'\n", mode.c_str());
    return 2;
}
