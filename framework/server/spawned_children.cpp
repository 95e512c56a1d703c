#include "spawned_children.hpp"

#include <mutex>
#include <set>

namespace bi::server {

namespace {

std::mutex g_mutex;
std::set<pid_t>& spawned() {
    static std::set<pid_t> pids;
    return pids;
}

}  // namespace

void note_spawned_child(pid_t pid) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    spawned().insert(pid);
}

bool is_spawned_child(pid_t pid) {
    const std::lock_guard<std::mutex> lock(g_mutex);
    return spawned().count(pid) > 0;
}

}  // namespace bi::server
