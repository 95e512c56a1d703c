// bi-plugin-host: runs bi-run's plugins in a process of their own (plugin_host/host_process.hpp).
// Spawned by PluginSet with its socket on fd 3 and `--parent PID`; it dies with its parent.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "plugin_host/host_channel.hpp"
#include "plugin_host/host_server.hpp"

int main(int argc, char** argv) {
    if (argc != 3 || std::strcmp(argv[1], "--parent") != 0) {
        std::cerr
            << "bi-plugin-host: started by bi-run only (usage: bi-plugin-host --parent PID)\n";
        return 2;
    }
    // If bi-run goes (even by SIGKILL), so do we; and if it went before this line, leave now.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (std::to_string(::getppid()) != argv[2]) return 2;
    try {
        return bi::plugin_host::serve_plugin_host(bi::plugin_host::kHostChannelFd);
    } catch (const std::exception& e) {
        std::cerr << "bi-plugin-host: " << e.what() << "\n";
        return 1;
    }
}
