#include "command_specs.hpp"

#include "core/error.hpp"
#include "exit_codes.hpp"

namespace bi::cli {

namespace {

// A command that ends in a verdict: 0 promotable, 3 not, 2 usage, 1 error, or interrupted.
const std::vector<int> kVerdictExits{kExitPromotable, kExitNotPromotable, kExitUsage,  kExitError,
                                     kExitSighup,     kExitSigint,        kExitSigterm};

// The guards of a command that launches servers.
const OptionGroupSpec kGuards{"Guards",
                              {"port", "reserved-port", "untouchable-pid", "max-footprint-gb"}};

// What every arm of a cell sends.
const OptionGroupSpec kRequests{
    "Requests",
    {"endpoint", "logprobs", "seed", "stagger-ms", "arrivals", "req-timeout", "arm-deadline",
     "stop-on-red", "determinism", "cache-arm", "max-response-bytes"}};

// The plugins, the scorer and the work rows of a cell.
const OptionGroupSpec kScoring{
    "Scoring and work-set",
    {"plugin", "plugin-dir", "scorer", "scorer-config", "workset", "generator", "generator-param",
     "logit-drift-eps", "plugin-timeout"}};

// The live server of a command that launches one.
const OptionGroupSpec kServer{
    "Server",
    {"server-bin", "model", "server-flag", "server-kind", "server-kind-dir", "profile",
     "models-toml", "models-dir", "ready-timeout", "shutdown-grace", "dry-run"}};

// The live server of a cell command: how it is launched for every arm alike.
const OptionGroupSpec kCellServer{
    "Server",
    {"server-bin", "model", "server-flag", "prefill-chunk", "server-kind", "server-kind-dir",
     "profile", "models-toml", "models-dir", "ready-timeout", "shutdown-grace", "dry-run"}};

// A stored baseline that arm A is also checked against.
const OptionGroupSpec kBaseline{"Baseline", {"baseline", "trusted-key"}};

// What a live cell command prints and writes.
const OptionGroupSpec kLiveOutput{"Output", {"report-html", "sign-key", "quiet", "json", "help"}};

// What a cell command prints and signs.
const OptionGroupSpec kCellOutput{"Output", {"sign-key", "quiet", "json", "help"}};

// The cells of a sweep or plan: lists of ctx and N.
const OptionGroupSpec kCellLists{
    "Cell",
    {"out-dir", "model-alias", "ctx@sweep", "parallel@sweep", "passes", "target-rate", "confidence",
     "max-passes", "reps", "n-predict", "kv-label"}};

// The groups --help shows for run-live and sweep, in order.
const std::vector<std::string> kLiveHelpGroups{
    "Cell",        "Server",   "Guards", "Requests", "Scoring and work-set",
    "Mock server", "Baseline", "Output"};

}  // namespace

const std::vector<CommandSpec>& command_specs() {
    static const std::vector<CommandSpec> kSpecs = {
        {"run-live",
         "verify one cell (model, ctx, N) against a live server (any --server-kind)",
         "Verifies one cell (model, ctx, N) against a real server: arm A (--parallel 1,\n"
         "serial), A' (its repeat), then on a --parallel N server arm B (serial) and T passes\n"
         "of arm C (N requests at once). Writes one cert; a GREEN is promotable only from a\n"
         "live server.\n"
         "\n"
         "Exit status: 0 promotable GREEN, 3 a verdict that is not promotable, 2 usage error\n"
         "or refused launch (no cert), 1 error before a verdict (no cert), 129/130/143\n"
         "interrupted.",
         {kBaseline,
          {"Cell",
           {"out-dir", "model-alias", "ctx", "parallel", "passes", "target-rate", "confidence",
            "max-passes", "reps", "n-predict", "kv-label"}},
          kGuards,
          kLiveOutput,
          kRequests,
          kScoring,
          kCellServer},
         kLiveHelpGroups,
         "",
         "",
         kVerdictExits,
         true},
        {"sweep",
         "run-live over several ctx and N values, one cert per cell",
         "Runs run-live over every (ctx, N) of --ctx 4096,8192 --parallel 2,4,8: one cert per\n"
         "cell, one run of arm A per ctx shared by all N at that ctx, a summary table at the\n"
         "end. With --plan (see bi-run plan) it runs its shard of a planned sweep into a\n"
         "shared directory, skipping cells certified before with the same configuration.\n"
         "\n"
         "Exit status: 0 when every cell is a promotable GREEN, 3 otherwise, 2 usage error\n"
         "or refused launch, 1 an error before a cell's verdict (cells already done keep\n"
         "their certs), 129/130/143 interrupted (SIGHUP/SIGINT/SIGTERM).",
         {kBaseline,
          kCellLists,
          kGuards,
          kLiveOutput,
          {"Plan", {"plan", "shard", "shard-count", "stale-lock-after"}},
          kRequests,
          kScoring,
          kCellServer},
         kLiveHelpGroups,
         "",
         "",
         kVerdictExits,
         true},
        {"plan",
         "write a sweep's cells as a plan file for sharded runs (Slurm, k8s, CI)",
         "Writes a sweep's cells as a plan file for sharded runs: one group per (model, ctx)\n"
         "holding its N values, sorted, with the options every cell runs with and a plan id.\n"
         "Takes sweep's options; --profile may list several models.toml aliases (a,b,c) or\n"
         "--all-profiles takes every one. Run it with bi-run sweep --plan FILE --shard K/M.\n"
         "\n"
         "Exit status: 0 written, 2 usage error.",
         {kCellLists,
          {"Guards", {"reserved-port", "untouchable-pid", "max-footprint-gb"}},
          kCellOutput,
          {"Plan", {"all-profiles", "output"}},
          kRequests,
          kScoring,
          {"Server",
           {"server-bin", "model", "server-flag", "prefill-chunk", "server-kind", "server-kind-dir",
            "profile", "models-toml", "models-dir", "ready-timeout", "shutdown-grace"}}},
         {},
         "",
         "",
         {kExitPromotable, kExitUsage}},
        {"run-mock",
         "verify one cell against the built-in continuous-batching mock server",
         "Runs one cell (A, A', B and T passes of C) against the built-in continuous-batching "
         "mock\n"
         "server and writes its cert with source \"mock\" - never promotable. With no divergence\n"
         "the verdict is green; --divergence=score shows a RED. Without --out-dir the cert goes\n"
         "to a new temporary directory, named on stderr.\n"
         "\n"
         "Exit status: 0 when the mock cell is green, 3 for any other verdict, 2 usage error,\n"
         "1 error before a verdict, 129/130/143 interrupted.",
         {{"Cell",
           {"out-dir", "model-alias@run-mock", "ctx", "parallel", "passes", "target-rate",
            "confidence", "max-passes", "reps", "n-predict", "kv-label"}},
          {"Mock server",
           {"divergence", "divergence-p", "tick-ms", "realistic-pacing", "empty", "crash-after",
            "hang", "loading-seconds", "prefill-chunk"}},
          kCellOutput,
          kRequests,
          {"Scoring and work-set",
           {"plugin", "plugin-dir", "scorer", "scorer-config", "workset", "generator",
            "generator-param", "logit-drift-eps", "plugin-timeout", "profile@run-mock"}}},
         {"Cell", "Server", "Guards", "Requests", "Scoring and work-set", "Mock server", "Output"},
         "",
         "",
         kVerdictExits,
         true},
        {"selftest",
         "prove the harness and the gate on your server with a tiny synthetic model",
         "Writes a tiny random-weight GGUF model, runs one small cell against your server binary\n"
         "(32 prompts x 64 tokens, /completion with logprobs, exact-match scoring) and reports\n"
         "whether serial runs reproduce themselves, whether arm B matches A, how many prompts\n"
         "changed tokens or logprobs under co-batching, and the verdict.\n"
         "\n"
         "Exit status as run-live: 0 promotable GREEN, 3 any other verdict, 2 usage error or\n"
         "refused launch, 1 error before a verdict, 129/130/143 interrupted.",
         {{"",
           {"server-bin", "parallel@selftest", "server-kind@selftest", "server-kind-dir",
            "server-flag@selftest", "passes@selftest", "n-predict@selftest", "ctx@selftest",
            "dtype", "out-dir@selftest", "ready-timeout@selftest", "keep", "plugin-timeout",
            "max-response-bytes"}},
          kGuards,
          {"Output", {"quiet", "json", "help"}}},
         {"", "Guards", "Output"},
         "",
         "",
         kVerdictExits},
        {"plan-n",
         "print the projected server footprint for N = 1..max",
         "Prints the projected footprint (model + KV cache + overhead) of a --parallel N server\n"
         "for N = 1..--max-n at --ctx tokens per slot, against MemAvailable and\n"
         "--max-footprint-gb. Without the model file, --gguf-gb and the KV shape (--n-layer,\n"
         "--n-head-kv, --head-dim) stand for it.\n"
         "\n"
         "Exit status: 0 at least one N fits, 3 no N fits, 2 usage error.",
         {{"Model",
           {"model", "profile@plan-n", "models-toml", "models-dir@plan-n", "gguf-gb", "n-layer",
            "n-head-kv", "head-dim", "model-alias@plan-n", "server-bin@plan-n",
            "server-flag@plan-n"}},
          {"", {"help"}},
          {"Plan", {"ctx@plan-n", "max-n", "kv-label@plan-n", "max-footprint-gb@plan-n"}}},
         {"", "Model", "Plan"},
         "",
         "",
         {kExitPromotable, kExitNotPromotable, kExitUsage}},
        {"report",
         "summarise many certs (or directories of them) in one table",
         "Summarises certs (files, or directories of *.json): a text table by default, or CSV,\n"
         "JSON or Markdown on stdout; --html, --junit and --prometheus write files as well.\n"
         "\n"
         "Every file is judged as verify-cert judges it; with --trusted-key a cert signed by\n"
         "another key is not promotable. Attestations (bi-run attest) are noted and skipped.\n"
         "\n"
         "Exit status: 0 when every file was a readable cert that agrees with its digest,\n"
         "itself and its signature (or an upstream v0.1 cert, shown as such), 1 otherwise,\n"
         "2 usage error.",
         {{"",
           {"json@report", "csv", "markdown", "html", "junit", "prometheus", "plan@report",
            "trusted-key", "help"}},
          {"Positional", {"paths"}}},
         {""},
         "paths",
         "CERT.json|DIR... (with --plan: default the plan's directory)",
         {kExitPromotable, kExitError, kExitUsage}},
        {"verify-cert",
         "re-check cert files and explain why any is not promotable",
         "Re-check certs: prints each verdict, its source and gates, and every reason a cert is "
         "not promotable. Also reads attest's in-toto envelopes and the upstream tool's v0.1 certs "
         "(never promotable).\n"
         "\n"
         "Exit status: 0 when every cert is promotable, 3 when any is not, 1 when any file is "
         "missing, unreadable, not JSON, not a cert, fails its digest or signature check, or "
         "disagrees with itself (its status, source or gates are not what its own evidence gives), "
         "2 usage error.",
         {{"", {"trusted-key", "require-signature", "expect", "expect-deployment", "help"}},
          {"Positional", {"certs"}}},
         {""},
         "certs",
         "CERT.json...",
         {kExitPromotable, kExitNotPromotable, kExitError, kExitUsage}},
        {"keygen",
         "write an Ed25519 key pair for signing certs",
         "Writes a new Ed25519 key pair: KEY (the private key, PEM, mode 0600) and KEY.pub (the\n"
         "public key to hand to readers: verify-cert --trusted-key KEY.pub). Never overwrites.\n"
         "\n"
         "Exit status: 0 written, 2 usage error or a file that exists.",
         {{"", {"out", "help"}}},
         {},
         "",
         "",
         {kExitPromotable, kExitUsage}},
        {"attest",
         "export a cert as an in-toto attestation (DSSE envelope)",
         "Writes CERT as an in-toto attestation: a Statement v1 whose subjects are the cert file\n"
         "(the sha256 of its bytes; its internal digest as an annotation) and the model, server\n"
         "binary, work-set and plugin files it names (sha256), with\n"
         "the test-result predicate (PASSED for a promotable GREEN, FAILED for RED, WARNED\n"
         "otherwise), in a DSSE envelope; verify-cert reads the envelope back. An upstream v0.1\n"
         "cert (no digest) is attested by its file's sha256 and is never PASSED.\n"
         "\n"
         "A cert signed by a key that is not a --trusted-key (when any is given) is not "
         "promotable.\n"
         "\n"
         "Exit status: 0 written, 1 a file that is not a cert a reader can rely on (unreadable,\n"
         "edited, disagreeing with itself, badly signed), 2 usage error.",
         {{"", {"out@attest", "sign-key@attest", "trusted-key", "help", "cert"}}},
         {},
         "cert",
         "CERT.json",
         {kExitPromotable, kExitError, kExitUsage}},
        {"plugins",
         "list the loaded plugins, their versions, scorers and generators",
         "List the plugins bi-run would use: the bundled ones (found beside bi-run or in its "
         "installed plugin directory) and each --plugin file, with their versions, ABI, where each "
         "came from, scorers and generators. A plugin that fails to load is reported in one line.\n"
         "\n"
         "Exit status: 0 all loaded, 2 a plugin could not be loaded or bad arguments, 1 a plugin "
         "crashed or hung while loading.",
         {{"", {"plugin", "plugin-dir", "plugin-timeout", "help"}}, {"Internal", {"describe"}}},
         {""},
         "",
         "",
         {kExitPromotable, kExitUsage, kExitError},
         true},
        {"workset",
         "write a generator plugin's work-set to a JSON file",
         "Run a work-set generator plugin and write its rows as a work-set JSON file (or to "
         "stdout). The same arguments give byte-identical output. No server is running here, so "
         "the generator estimates token counts, unless --tokenize names a running server whose "
         "/tokenize it asks, as run-live does: then the rows are those a live run on that model "
         "generates, and their file's sha256 is the cert's provenance.rows_sha256.\n"
         "\n"
         "Exit status: 0 written, 2 bad arguments or a plugin that cannot be loaded, 1 the "
         "generator failed, crashed or hung, or the file could not be written.",
         {{"",
           {"generator@workset", "model-id", "ctx@workset", "seed@workset", "generator-param",
            "out@workset", "tokenize", "plugin", "plugin-dir", "plugin-timeout", "help"}}},
         {""},
         "",
         "",
         {kExitPromotable, kExitUsage, kExitError},
         true},
        {"synth-model",
         "write a random-weight llama GGUF model for testing a server",
         "Write a random-weight llama-architecture GGUF model that llama.cpp's llama-server loads: "
         "a SentencePiece-style vocabulary (special, byte, printable and common-word tokens), an "
         "im_start/im_end chat template, weights with std 1/sqrt(fan_in) and an output layer that "
         "only ever picks printable tokens. The same arguments give a byte-identical file; it is "
         "written atomically.\n"
         "\n"
         "Exit status: 0 written, 2 bad arguments (nothing written), 1 the file could not be "
         "written.",
         {{"",
           {"help", "out@synth-model", "embd", "layers", "heads", "kv-heads", "ff",
            "ctx@synth-model", "vocab-words", "dtype@synth-model", "seed@synth-model"}}},
         {},
         "",
         "",
         {kExitPromotable, kExitUsage, kExitError}},
        {"baseline record",
         "run arm A and A' and keep them as a signed baseline for later builds and hosts",
         "Runs arm A (--parallel 1, serial) and its repeat A' against a server and keeps them as\n"
         "a baseline file: the work rows, every answer (invariant fields, text and its sha256,\n"
         "token ids and top logprobs where the server returns them), what A' showed, and the\n"
         "model, server binary, version and host that answered. `bi-run baseline check` (or\n"
         "run-live --baseline) later compares another build, backend or host with it.\n"
         "\n"
         "Exit status: 0 the baseline can stand as a reference, 3 written but it cannot (A'\n"
         "moved, too few answers, not greedy), 2 usage error or refused launch (an existing\n"
         "--out without --replace), 1 an error before the baseline was complete (nothing\n"
         "written), 129/130/143 interrupted.",
         {{"Baseline", {"out@baseline-record", "replace"}},
          {"Cell",
           {"model-alias@baseline-record", "ctx@baseline-record", "reps", "n-predict",
            "kv-label@baseline-record"}},
          kGuards,
          {"Output", {"sign-key@baseline-record", "quiet", "json", "help"}},
          {"Requests",
           {"endpoint", "logprobs@baseline-record", "seed@baseline-record", "req-timeout",
            "arm-deadline@baseline-record", "max-response-bytes"}},
          {"Scoring and work-set",
           {"plugin", "plugin-dir", "plugin-timeout", "scorer", "scorer-config", "workset",
            "generator", "generator-param", "logit-drift-eps@baseline-record"}},
          kServer},
         {"Baseline", "Cell", "Server", "Guards", "Requests", "Scoring and work-set", "Output"},
         "",
         "",
         kVerdictExits,
         true},
        {"baseline check",
         "compare the server given now with a stored baseline: same, changed, drift only",
         "Runs arm A and A' of a stored baseline (its work rows, model name, ctx, n_predict,\n"
         "endpoint, logprobs, scorer and KV label) against the server given now and compares\n"
         "them item by item with the stored answers, as a cell compares A with C: SAME (every\n"
         "invariant field and everything generated equal), CHANGED (an invariant field moved:\n"
         "which ids, first divergent token, near-tie or decisive), DRIFT ONLY (text, tokens or\n"
         "logprobs moved, scores held) or NOT COMPARABLE (another model file, scorer or\n"
         "request, or a side that does not reproduce itself). Writes a check report with both\n"
         "sides' provenance.\n"
         "\n"
         "Exit status: 0 SAME, 3 CHANGED, DRIFT ONLY or NOT COMPARABLE, 2 usage error or\n"
         "refused launch, 1 an error before a result (a baseline that is edited, malformed or\n"
         "not signed by a --trusted-key; a server that died; nothing written), 129/130/143\n"
         "interrupted.",
         {{"Baseline", {"baseline@baseline-check", "out@baseline-check", "trusted-key"}},
          {"Cell", {"kv-label@baseline-check"}},
          kGuards,
          {"Output", {"sign-key@baseline-check", "quiet", "json", "help"}},
          {"Requests", {"req-timeout", "arm-deadline@baseline-record", "max-response-bytes"}},
          {"Scoring and work-set", {"plugin", "plugin-dir", "plugin-timeout"}},
          {"Server",
           {"server-bin", "model", "server-flag", "server-kind", "server-kind-dir",
            "profile@baseline-check", "models-toml", "models-dir", "ready-timeout",
            "shutdown-grace", "dry-run"}}},
         {"Baseline", "Cell", "Server", "Guards", "Requests", "Scoring and work-set", "Output"},
         "",
         "",
         kVerdictExits,
         true},
        {"completion",
         "print a bash, zsh or fish completion script for bi-run",
         "Prints a completion script for bi-run: its commands, every option of each (from the\n"
         "same tables as --help), and the server kinds, scorers and generators this bi-run\n"
         "knows (the bundled plugins and each --plugin). Installed packages ship the scripts;\n"
         "for a build of your own:\n"
         "\n"
         "  bash: bi-run completion bash > ~/.local/share/bash-completion/completions/bi-run\n"
         "  zsh:  bi-run completion zsh > ~/.zfunc/_bi-run   (with ~/.zfunc in $fpath)\n"
         "  fish: bi-run completion fish > ~/.config/fish/completions/bi-run.fish\n"
         "\n"
         "Exit status: 0 printed, 2 usage error.",
         {{"", {"plugin", "plugin-dir", "plugin-timeout", "help"}}, {"Positional", {"shell"}}},
         {""},
         "shell",
         "bash|zsh|fish",
         {kExitPromotable, kExitUsage},
         true},
    };
    return kSpecs;
}

const std::vector<CommandGroup>& command_groups() {
    static const std::vector<CommandGroup> kGroups = {
        {"baseline", "record a serial baseline, or check another build or host against one"},
    };
    return kGroups;
}

const CommandGroup* find_group(std::string_view name) {
    for (const auto& group : command_groups())
        if (name == group.name) return &group;
    return nullptr;
}

std::vector<std::string> group_commands(std::string_view group) {
    std::vector<std::string> words;
    for (const auto& spec : command_specs()) {
        const std::string_view name = spec.name;
        const auto space = name.find(' ');
        if (space != std::string_view::npos && name.substr(0, space) == group)
            words.emplace_back(name.substr(space + 1));
    }
    return words;
}

std::string one_word(const CommandSpec& command) {
    std::string word(command.name);
    for (char& c : word)
        if (c == ' ') c = '-';
    return word;
}

const CommandSpec* find_command_spec(std::string_view name) {
    for (const auto& spec : command_specs())
        if (spec.name == name) return &spec;
    return nullptr;
}

const CommandSpec& command_spec(std::string_view name) {
    for (const auto& spec : command_specs())
        if (spec.name == name) return spec;
    throw Error(ErrorCategory::Internal, "bi: no command spec for " + std::string(name));
}

}  // namespace bi::cli
