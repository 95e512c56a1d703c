// posix_spawn with the three standard streams redirected to files in a scratch dir: files, not
// pipes, so a chatty child can never block on a full pipe while the test waits for it.
#include "run_command.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <stdexcept>

#include "scratch_dir.hpp"

extern char** environ;

namespace bi::testing {

CommandResult run_command(const std::vector<std::string>& argv, const std::string& stdin_text) {
    if (argv.empty()) throw std::runtime_error("run_command: empty argv");
    const ScratchDir capture;
    const std::string in_path = capture.write("stdin", stdin_text);
    const std::string out_path = capture.file("stdout");
    const std::string err_path = capture.file("stderr");

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int spawned = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) throw std::runtime_error("cannot start " + argv[0]);

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) throw std::runtime_error("waitpid failed for " + argv[0]);
    CommandResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out = read_text(out_path);
    result.err = read_text(err_path);
    return result;
}

}  // namespace bi::testing
