// The bi-run subcommands. Each takes the arguments after its name (argv[0] is the name).
#pragma once

namespace bi::cli {

int verify_cert_main(int argc, char** argv);
int run_mock_main(int argc, char** argv);
int run_live_main(int argc, char** argv);
int sweep_main(int argc, char** argv);
int plan_main(int argc, char** argv);
int plan_n_main(int argc, char** argv);
int selftest_main(int argc, char** argv);
int report_main(int argc, char** argv);
int plugins_main(int argc, char** argv);
int workset_main(int argc, char** argv);
int synth_model_main(int argc, char** argv);
int keygen_main(int argc, char** argv);
int attest_main(int argc, char** argv);

}  // namespace bi::cli
