// The bi-run subcommands. Each takes the arguments after its name (argv[0] is the name).
#pragma once

namespace bi::cli {

int verify_cert_main(int argc, char** argv);

}  // namespace bi::cli
