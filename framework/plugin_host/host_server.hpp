// The plugin host's side of the channel: a LocalPluginSet driven by requests, one at a time.
// Only bi-plugin-host runs it; whatever a plugin does to this process stays in this process.
#pragma once

namespace bi::plugin_host {

// Serves requests on `fd` until the peer closes it; returns the process exit status (0).
int serve_plugin_host(int fd);

}  // namespace bi::plugin_host
