#include "gpu_memory.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"

extern char** environ;

namespace bi::server {

namespace {

// The standard output of argv (searched on PATH), or nullopt when it cannot run or fails.
std::optional<std::string> output_of(const std::vector<std::string>& argv) {
    int fds[2];
    if (::pipe(fds) != 0) return std::nullopt;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    std::string out;
    if (spawned == 0) {
        char buffer[4096];
        for (;;) {
            const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
            if (n > 0 && out.size() < (1u << 20)) out.append(buffer, static_cast<std::size_t>(n));
            if (n == 0 || (n < 0 && errno != EINTR)) break;
        }
    }
    ::close(fds[0]);
    if (spawned != 0) return std::nullopt;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
    return out;
}

}  // namespace

std::optional<std::int64_t> offloaded_layers(const std::vector<std::string>& flags) {
    std::optional<std::string> value;
    for (std::size_t i = 0; i < flags.size(); ++i)
        for (const std::string name : {"-ngl", "--n-gpu-layers", "--gpu-layers"}) {
            if (flags[i] == name && i + 1 < flags.size()) value = flags[i + 1];
            if (flags[i].rfind(name + "=", 0) == 0) value = flags[i].substr(name.size() + 1);
        }
    if (!value) return std::nullopt;
    char* end = nullptr;
    const long long layers = std::strtoll(value->c_str(), &end, 10);
    if (value->empty() || *end != '\0') return std::int64_t{1} << 30;  // "all", "auto": every one
    if (layers <= 0) return std::nullopt;
    return layers;
}

std::uint64_t gpu_part(const Footprint& footprint, const ModelFacts& model, std::int64_t layers) {
    double share = 1.0;
    if (model.n_layer && *model.n_layer > 0)
        share = static_cast<double>(std::min(layers, *model.n_layer)) /
                static_cast<double>(*model.n_layer);
    return static_cast<std::uint64_t>(
               share * static_cast<double>(footprint.model_bytes + footprint.kv_bytes)) +
           footprint.overhead_bytes;
}

std::optional<GpuMemory> gpu_free_memory() {
    const auto text =
        output_of({"nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits"});
    if (!text) return std::nullopt;
    GpuMemory memory;
    std::istringstream lines(*text);
    std::string line;
    while (std::getline(lines, line)) {
        line.erase(
            std::remove_if(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\r'; }),
            line.end());
        if (line.empty()) continue;
        char* end = nullptr;
        const double mib = std::strtod(line.c_str(), &end);
        if (*end != '\0' || !(mib >= 0)) return std::nullopt;
        memory.free_bytes += static_cast<std::uint64_t>(mib * 1024.0 * 1024.0);
        ++memory.gpus;
    }
    if (memory.gpus == 0) return std::nullopt;
    return memory;
}

void check_gpu_footprint(std::uint64_t gpu_bytes, std::int64_t layers, const GpuMemory& free) {
    if (gpu_bytes <= free.free_bytes) return;
    const std::string offload =
        layers >= (std::int64_t{1} << 30) ? "all layers" : std::to_string(layers) + " layers";
    throw Error(ErrorCategory::Guard, "projected GPU part " + format_gib(gpu_bytes) + " (" +
                                          offload + " offloaded) exceeds free GPU memory " +
                                          format_gib(free.free_bytes) + " (nvidia-smi, " +
                                          std::to_string(free.gpus) + " GPU" +
                                          (free.gpus == 1 ? "" : "s") + ")");
}

}  // namespace bi::server
