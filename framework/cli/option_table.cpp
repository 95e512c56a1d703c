#include "option_table.hpp"

#include <algorithm>
#include <charconv>
#include <type_traits>

#include "core/error.hpp"
#include "core/run_request.hpp"
#include "driver/cell_runner.hpp"
#include "driver/selftest.hpp"
#include "gguf/synth_model.hpp"
#include "http/response_limit.hpp"
#include "mock/mock_config.hpp"
#include "plugin_host/plugin_set.hpp"

namespace bi::cli {

namespace {

using F = core::RequestField;
using K = ValueKind;
using T = ValueType;

// A default as --help shows it: the shortest text that reads back as the value ("0.95", "600").
template <typename Number>
std::string text(Number value) {
    char buffer[32];
    const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
    return std::string(buffer, end);
}

// The request a command line that sets nothing asks for: the run options' defaults.
const core::RunRequest kRequest{};
const driver::SelftestRequest kSelftest{};
const gguf::ModelSpec kModel{};  // synth-model's

OptionSpec spec(std::string_view id, ValueType type, ValueKind kind, std::string help,
                std::optional<std::string> default_value = {}, std::string_view value_name = {},
                char short_name = 0) {
    return {id,         type, kind, std::move(default_value), value_name, std::move(help),
            short_name, {},   {}};
}

// The words of an enumeration, from its own names.
template <typename Enum, std::size_t Count, typename Name>
std::vector<std::string> words_of(const Enum (&values)[Count], Name name) {
    std::vector<std::string> words;
    for (const auto value : values) words.emplace_back(name(value));
    return words;
}

}  // namespace

std::string OptionSpec::long_name() const {
    return std::string(id.substr(0, id.find('@')));
}

OptionSpec OptionSpec::sets(core::RequestField request_field) && {
    field = request_field;
    return std::move(*this);
}

OptionSpec OptionSpec::one_of(std::vector<std::string> words) && {
    choices = std::move(words);
    return std::move(*this);
}

std::string OptionSpec::cxxopts_names() const {
    return short_name ? std::string{short_name, ','} + long_name() : long_name();
}

// Grouped by name; an id with @COMMAND is the same name's meaning in that command (and those that
// share it).
const std::vector<OptionSpec>& option_specs() {
    static const std::vector<OptionSpec> kSpecs = {
        spec("baseline", T::Text, K::File,
             "Also check arm A against this stored baseline (bi-run baseline record): the check "
             "report goes beside the certs and each cert records its result, never changing its "
             "verdict. The run's settings must be the baseline's; with no work-set of its own the "
             "run sends the baseline's rows",
             {}, "FILE")
            .sets(F::Baseline),
        spec("baseline@baseline-check", T::Text, K::File,
             "The baseline file (bi-run baseline record)", {}, "FILE")
            .sets(F::Baseline),
        spec("trusted-key", T::Texts, K::File,
             "A public key file (or a directory of *.pub / *.pem) whose signatures are trusted "
             "(repeatable)")
            .sets(F::BaselineKeys),
        spec("out-dir", T::Text, K::Directory,
             "Directory the cert is written to (created when missing)")
            .sets(F::OutDir),
        spec("out-dir@selftest", T::Text, K::Directory,
             "Where the cert and server log go (default: a new temp directory)")
            .sets(F::OutDir),
        spec("model-alias", T::Text, K::Text,
             "The cert's model name (default: the models.toml alias, else the model's whole name: "
             "a GGUF file's without .gguf, a directory's, a store name)")
            .sets(F::ModelAlias),
        spec("model-alias@run-mock", T::Text, K::Text, "The cert's model name", "bi-mock")
            .sets(F::ModelAlias),
        spec("model-alias@plan-n", T::Text, K::Text,
             "The model's name in the table (default: the model file)")
            .sets(F::ModelAlias),
        spec("model-alias@baseline-record", T::Text, K::Text,
             "The model's name in the test ids (default: the models.toml alias, else the model's "
             "whole name: a GGUF file's without .gguf, a directory's, a store name)")
            .sets(F::ModelAlias),
        spec("ctx", T::Text, K::Text, "Context per slot, in tokens", text(kRequest.ctxs.front()))
            .sets(F::Ctxs),
        spec("ctx@sweep", T::Text, K::Text,
             "Contexts per slot, in tokens: a comma-separated list, e.g. 4096,8192",
             text(kRequest.ctxs.front()))
            .sets(F::Ctxs),
        spec("ctx@selftest", T::Int64, K::Integer,
             "Context per slot (small: the synthetic model is tiny)", text(kSelftest.ctx))
            .sets(F::Ctx),
        spec("ctx@plan-n", T::Int64, K::Integer, "Context per slot, in tokens", "2048")
            .sets(F::Ctx),
        spec("ctx@workset", T::Int64, K::Integer,
             "Context size per slot, in tokens (the same default as run-live)",
             text(kRequest.ctxs.front())),
        spec("ctx@synth-model", T::Int64, K::Integer,
             "Training context length recorded in the model", text(kModel.ctx)),
        spec("ctx@baseline-record", T::Int64, K::Integer,
             "Context of the one-slot server, in tokens", "2048")
            .sets(F::Ctxs),
        spec("parallel", T::Text, K::Text,
             "N: slots of the batched server and requests sent at once",
             text(kRequest.parallels.front()))
            .sets(F::Parallels),
        spec("parallel@sweep", T::Text, K::Text,
             "Values of N (slots of the batched server, requests sent at once): a comma-separated "
             "list, e.g. 2,4,8",
             text(kRequest.parallels.front()))
            .sets(F::Parallels),
        spec("parallel@selftest", T::Int, K::Integer, "N", text(kSelftest.parallel))
            .sets(F::Parallel),
        spec("passes", T::Int, K::Integer, "Concurrent passes of arm C (T; also --gate-passes)",
             "4")
            .sets(F::Passes),
        spec("passes@selftest", T::Int, K::Integer, "Concurrent passes", text(kSelftest.passes))
            .sets(F::Passes),
        spec("target-rate", T::Number, K::Number,
             "Planned passes: run C passes until a zero-divergence bound at --confidence rules out "
             "this flip rate per trial (0 < P < 1; not with --passes)")
            .sets(F::TargetRate),
        spec("confidence", T::Number, K::Number,
             "Confidence of the sensitivity bounds and of --target-rate (0 < C < 1)",
             text(kRequest.confidence))
            .sets(F::Confidence),
        spec("max-passes", T::Int, K::Integer, "Cap on the planned passes of --target-rate",
             text(driver::kDefaultMaxPasses))
            .sets(F::MaxPasses),
        spec("reps", T::Int, K::Integer, "Repetitions of every work-set row", text(kRequest.reps))
            .sets(F::Reps),
        spec("n-predict", T::Int, K::Integer, "Tokens to generate per request",
             text(kRequest.n_predict))
            .sets(F::NPredict),
        spec("n-predict@selftest", T::Int, K::Integer, "Tokens per request",
             text(kSelftest.n_predict))
            .sets(F::NPredict),
        spec("kv-label", T::Text, K::Text,
             "KV cache type recorded in the cert and used by the footprint guard; a kind that is "
             "not "
             "llama.cpp's takes its KV flag's value, else server-default (also --kv)",
             std::string(core::kDefaultKvLabel))
            .sets(F::KvLabel),
        spec("kv-label@plan-n", T::Text, K::Text,
             "KV cache type (f16, q8_0, q4_0 ...; default: the profile's, else f16; also --kv)")
            .sets(F::KvLabel),
        spec("kv-label@baseline-record", T::Text, K::Text,
             "KV cache type (f16, q8_0, ...; also --kv)")
            .sets(F::KvLabel),
        spec("kv-label@baseline-check", T::Text, K::Text,
             "KV cache type (default: the baseline's, unless the server flags set the cache type)")
            .sets(F::KvLabel),
        spec("port", T::Int, K::Integer,
             "Experiment port (default: a free loopback port per launch; also --experiment-port)")
            .sets(F::Port),
        spec("reserved-port", T::Ints, K::Integer,
             "A port never bound or addressed (repeatable; also --untouchable-port, "
             "--baseline-port)")
            .sets(F::ReservedPorts),
        spec("untouchable-pid", T::Ints, K::Integer, "A PID never signalled (repeatable)")
            .sets(F::UntouchablePids),
        spec("max-footprint-gb", T::Number, K::Number,
             "Refuse when the projected footprint (RAM, and the GPU part when layers are "
             "offloaded) exceeds this many GiB (0 = no cap; MemAvailable and the GPUs' free memory "
             "are checked all the same)")
            .sets(F::MaxFootprintGb),
        spec("max-footprint-gb@plan-n", T::Number, K::Number,
             "Cap in GiB to compare against (0 = none; MemAvailable still applies)")
            .sets(F::MaxFootprintGb),
        spec("report-html", T::Text, K::File,
             "At the end, write the HTML report of this run's certs to FILE", {}, "FILE"),
        spec("sign-key", T::Text, K::File,
             "Ed25519 private key (bi-run keygen) that signs every cert (default: $BI_SIGN_KEY)")
            .sets(F::SignKey),
        spec("sign-key@attest", T::Text, K::File,
             "Ed25519 private key that signs the envelope (default: $BI_SIGN_KEY)"),
        spec("sign-key@baseline-record", T::Text, K::File,
             "Ed25519 private key (bi-run keygen) that signs the baseline (default: $BI_SIGN_KEY)")
            .sets(F::SignKey),
        spec("sign-key@baseline-check", T::Text, K::File,
             "Ed25519 private key (bi-run keygen) that signs the check report (default: "
             "$BI_SIGN_KEY)")
            .sets(F::SignKey),
        spec("quiet", T::Switch, K::Switch, "No progress on stderr"),
        spec("json", T::Switch, K::Switch, "Print a one-line JSON summary on stdout"),
        spec("json@report", T::Switch, K::Switch, "One JSON array on stdout"),
        spec("help", T::Switch, K::Switch, "Show this help", {}, {}, 'h'),
        spec("endpoint", T::Text, K::Text,
             "chat (/v1/chat/completions) or completion (/completion, token ids)",
             std::string(core::endpoint_name(kRequest.endpoint)))
            .sets(F::Endpoint)
            .one_of(words_of({core::EndpointKind::Chat, core::EndpointKind::Completion},
                             core::endpoint_name)),
        spec("logprobs", T::Int, K::Integer,
             "Ask for top logprobs per token: max(K, 2), for the forensics (0 = off; also "
             "--n-probs)",
             text(kRequest.logprobs))
            .sets(F::Logprobs),
        spec("logprobs@baseline-record", T::Int, K::Integer,
             "Ask for top logprobs per token: max(K, 2) (0 = off; also --n-probs)", "0")
            .sets(F::Logprobs),
        spec("seed", T::Count, K::Count,
             "Seeds the C pass permutations and the work-set generator (recorded in the cert)",
             text(kRequest.seed))
            .sets(F::Seed),
        spec("seed@workset", T::Count, K::Count,
             "Seeds the generator (the same default as run-live, so --profile runs this set)",
             text(kRequest.seed)),
        spec("seed@synth-model", T::Count, K::Count, "Weight seed", text(kModel.seed)),
        spec("seed@baseline-record", T::Count, K::Count, "Seeds the work-set generator", "42")
            .sets(F::Seed),
        spec("stagger-ms", T::Int, K::Integer, "Delay between the first requests of the N workers",
             text(kRequest.stagger_ms))
            .sets(F::StaggerMs),
        spec("arrivals", T::Text, K::Text,
             "How each C pass's requests arrive: together, staggered (each sent once the one "
             "before it decodes, so prefills share steps with decodes) or mixed (passes "
             "alternate, from the seed)",
             std::string(core::arrivals_name(kRequest.arrivals)))
            .sets(F::Arrivals)
            .one_of(words_of(
                {core::Arrivals::Together, core::Arrivals::Staggered, core::Arrivals::Mixed},
                core::arrivals_name)),
        spec("req-timeout", T::Number, K::Number,
             "Seconds one request may take in all (connect to last byte)",
             text(kRequest.req_timeout.count()))
            .sets(F::ReqTimeout),
        spec("arm-deadline", T::Number, K::Number,
             "Seconds one arm or pass may take (0 = no limit)", text(kRequest.arm_deadline.count()))
            .sets(F::ArmDeadline),
        spec("arm-deadline@baseline-record", T::Number, K::Number,
             "Seconds one arm may take (0 = no limit)", "0")
            .sets(F::ArmDeadline),
        spec("stop-on-red", T::Switch, K::Switch,
             "Stop the C passes at the first invariant divergence")
            .sets(F::StopOnRed),
        spec("determinism", T::Text, K::Text,
             "The server's determinism mode: off, on (the kind's switch, checked where the "
             "server reports it) or both (one cert per side) (default: off)")
            .sets(F::Determinism)
            .one_of({"off", "on", "both"}),
        spec("cache-arm", T::Switch, K::Switch,
             "Also run the cache arm: each prompt primed and served again from the prompt "
             "cache (and A's answers resumed from it), compared with A; a CHANGED check exits 3")
            .sets(F::CacheArm),
        spec("max-response-bytes", T::Text, K::Text,
             "Most bytes one server answer may have, headers included",
             text(http::kDefaultMaxResponseBytes))
            .sets(F::MaxResponseBytes),
        spec("plugin", T::Texts, K::File,
             "Plugin .so to load besides the bundled ones (repeatable; a bare name is searched "
             "for)")
            .sets(F::Plugins),
        spec("plugin-dir", T::Texts, K::Directory,
             "Directory searched first for a bare --plugin name (repeatable)")
            .sets(F::PluginDirs),
        spec("scorer", T::Text, K::Word, "Scorer id (default: exact)").sets(F::Scorer),
        spec("scorer-config", T::Text, K::File, "JSON text handed to the scorer (default: {})")
            .sets(F::ScorerConfig),
        spec("workset", T::Text, K::File, "Work-set JSON file (or - for standard input, or a FIFO)")
            .sets(F::Workset),
        spec("generator", T::Text, K::Word, "Work-set generator id (from a plugin)")
            .sets(F::Generator),
        spec("generator@workset", T::Text, K::Word, "Generator id (see bi-run plugins)"),
        spec("generator-param", T::Texts, K::Text, "KEY=VALUE for the generator (repeatable)")
            .sets(F::GeneratorParams),
        spec("logit-drift-eps", T::Number, K::Number,
             "Logprob-only drift smaller than this is not counted as drift (0 = exact; recorded in "
             "the cert)",
             text(kRequest.scoring.logit_drift_eps))
            .sets(F::LogitDriftEps),
        spec("logit-drift-eps@baseline-record", T::Number, K::Number,
             "Logprob-only drift smaller than this is not counted as drift (0 = exact; recorded, "
             "and used by every check against this baseline)",
             "0")
            .sets(F::LogitDriftEps),
        spec("plugin-timeout", T::Number, K::Number,
             "Seconds one plugin call (load, create, score, generate) may take before its plugin "
             "host is killed",
             text(plugin_host::kDefaultPluginTimeout.count()))
            .sets(F::PluginTimeout),
        spec("server-bin", T::Text, K::File,
             "The server binary (llama-server, vllm, ...; its kind: --server-kind)")
            .sets(F::ServerBin),
        spec("server-bin@plan-n", T::Text, K::File,
             "Ignored here (accepted for symmetry with run-live)")
            .sets(F::ServerBin),
        spec("model", T::Text, K::File,
             "The model, as the server kind takes it: a GGUF file (llama-server), a model "
             "directory (vllm, sglang, tgi, trtllm-serve) or a store name (ollama)")
            .sets(F::Model),
        spec("server-flag", T::Texts, K::Text,
             "One extra server argv token, commas kept (repeatable; --server-flag=-t for dash "
             "values)")
            .sets(F::ServerFlags),
        spec("server-flag@selftest", T::Texts, K::Text,
             "One extra server argv token, commas kept (repeatable)")
            .sets(F::ServerFlags),
        spec("prefill-chunk", T::Int, K::Integer,
             "Prompt tokens the server prefills in one step, so longer prompts are prefilled in "
             "chunks: set through the server kind's flags (llama-server -b and -ub) in every "
             "launch (default: the server's own)")
            .sets(F::PrefillChunk),
        spec("server-flag@plan-n", T::Texts, K::Text, "Ignored here (accepted for symmetry)")
            .sets(F::ServerFlags),
        spec("server-kind", T::Text, K::Word,
             "The server's kind: a name (llama-server, ik_llama.cpp, vllm, sglang, tgi, "
             "trtllm-serve, ollama, openai-generic, or a NAME.toml in --server-kind-dir or "
             "$BI_SERVER_KIND_PATH) or a kind file (default: the profile's, else the kind the "
             "binary's name and probes say, else llama-server)")
            .sets(F::ServerKind),
        spec("server-kind@selftest", T::Text, K::Word,
             "The server's kind, a name or a kind file (default: the kind the binary's name and "
             "probes say, else llama-server)")
            .sets(F::ServerKind),
        spec("server-kind-dir", T::Texts, K::Directory,
             "Directory searched first for a --server-kind name (repeatable)")
            .sets(F::ServerKindDirs),
        spec("profile", T::Text, K::Text,
             "A models.toml alias (sets binary, model, flags, KV label), or a measurement profile: "
             "a plugin generator + scorer of that id, e.g. spark, whose model is then "
             "--model-alias's models.toml entry or --server-bin and --model (the models file wins "
             "when the name is both)")
            .sets(F::Profile),
        spec("profile@run-mock", T::Text, K::Text,
             "A measurement profile: the plugin generator and scorer of that id (e.g. spark)")
            .sets(F::Profile),
        spec("profile@plan-n", T::Text, K::Text, "A model alias from models.toml").sets(F::Profile),
        spec("profile@baseline-check", T::Text, K::Text,
             "A models.toml alias (sets binary, model, flags, KV label); the work rows and "
             "scorer are the baseline's, so a measurement profile has nothing to set here")
            .sets(F::Profile),
        spec("models-toml", T::Text, K::File,
             "The models file (default: $BI_MODELS_TOML, else ./models.toml)")
            .sets(F::ModelsToml),
        spec("models-dir", T::Text, K::Directory,
             "Replaces {MODELS_DIR} in models.toml (default: $MODELS_DIR)")
            .sets(F::ModelsDir),
        spec("models-dir@plan-n", T::Text, K::Directory, "Replaces {MODELS_DIR} in models.toml")
            .sets(F::ModelsDir),
        spec("ready-timeout", T::Number, K::Number, "Seconds a server may take to answer /health",
             text(kRequest.target.ready_timeout.count()))
            .sets(F::ReadyTimeout),
        spec("ready-timeout@selftest", T::Number, K::Number, "Seconds the server may take to load",
             "120")
            .sets(F::ReadyTimeout),
        spec("shutdown-grace", T::Number, K::Number,
             "Seconds between SIGTERM and SIGKILL at teardown, on every path (a second interrupt: "
             "SIGKILL at once)",
             text(kRequest.target.shutdown_grace.count()))
            .sets(F::ShutdownGrace),
        spec("dry-run", T::Switch, K::Switch, "Print the plan and launch nothing").sets(F::DryRun),
        spec("plan", T::Text, K::File, "Run the groups of this plan file (see bi-run plan)")
            .sets(F::Plan),
        spec("plan@report", T::Text, K::File,
             "Also state this plan's id and list its cells that have no cert yet", {}, "PLAN"),
        spec("shard", T::Text, K::Text,
             "K/M: run groups i with i mod M == K (default: from the scheduler)")
            .sets(F::Shard),
        spec("shard-count", T::Int, K::Integer,
             "M, the number of shards, where the scheduler gives only an index (Kubernetes "
             "JOB_COMPLETION_INDEX)")
            .sets(F::ShardCount),
        spec("stale-lock-after", T::Number, K::Number,
             "Seconds after which a cell's lock whose holder cannot be checked (another host) is "
             "taken over",
             "86400"),
        spec("all-profiles", T::Switch, K::Switch, "One set of groups per models.toml alias")
            .sets(F::AllProfiles),
        spec("output", T::Text, K::File, "Write the plan here (default: stdout)"),
        spec("divergence", T::Text, K::Text,
             "How co-batched requests change: none, score, token, logprob, stochastic, "
             "contamination (--batch-divergence: score); or not-greedy (chosen tokens are "
             "sometimes not the top-1)",
             "none")
            .one_of(
                words_of({mock::Divergence::None, mock::Divergence::Score, mock::Divergence::Token,
                          mock::Divergence::Logprob, mock::Divergence::Stochastic,
                          mock::Divergence::Contamination, mock::Divergence::NotGreedy},
                         mock::divergence_name)),
        spec("divergence-p", T::Number, K::Number, "Probability for --divergence=stochastic",
             "0.5"),
        spec("tick-ms", T::Number, K::Number, "Milliseconds per decode step",
             text(mock::kDemoTickMs)),
        spec("realistic-pacing", T::Switch, K::Switch,
             "Pace every decode step at 1 ms, even a request alone in the batch (slower; by "
             "default a lone request runs on flat out after a few steps)"),
        spec("empty", T::Switch, K::Switch, "Every completion comes back empty"),
        spec("crash-after", T::Int64, K::Integer, "Die after this many completions"),
        spec("hang", T::Switch, K::Switch,
             "Never answer completion requests (use with --req-timeout)"),
        spec("loading-seconds", T::Number, K::Number,
             "Answer 503 'Loading model' this long after start", "0"),
        spec("dtype", T::Text, K::Text, "Model matrices: f32 or f16", kSelftest.dtype)
            .sets(F::Dtype)
            .one_of({"f32", "f16"}),
        spec("dtype@synth-model", T::Text, K::Text,
             "Matrix type: f32 or f16 (norm weights stay f32)", "f32")
            .one_of({"f32", "f16"}),
        spec("keep", T::Switch, K::Switch,
             "Keep the temp directory (server log) even when the selftest fails"),
        spec("gguf-gb", T::Number, K::Number,
             "Size of the model file in GiB, when the file is not at hand")
            .sets(F::ShapeFileGib),
        spec("n-layer", T::Int64, K::Integer, "Layers (block_count), with --gguf-gb")
            .sets(F::ShapeNLayer),
        spec("n-head-kv", T::Int64, K::Integer,
             "KV heads (attention.head_count_kv), with --gguf-gb")
            .sets(F::ShapeNHeadKv),
        spec("head-dim", T::Int64, K::Integer, "Width of one K or V head, with --gguf-gb")
            .sets(F::ShapeHeadDim),
        spec("max-n", T::Int, K::Integer, "Largest N (also --parallel)", "8").sets(F::MaxN),
        spec("csv", T::Switch, K::Switch,
             "CSV on stdout, one row per cell, the text table's columns"),
        spec("markdown", T::Switch, K::Switch,
             "The matrix and the cells that are not green, as Markdown on stdout"),
        spec("html", T::Text, K::File, "Write one self-contained HTML page to FILE", {}, "FILE"),
        spec("junit", T::Text, K::File, "Write JUnit XML to FILE (one testcase per cell)", {},
             "FILE"),
        spec("prometheus", T::Text, K::File,
             "Write Prometheus gauges to FILE, atomically (node_exporter textfile format)", {},
             "FILE"),
        spec("paths", T::Texts, K::File, "Certs or directories"),
        spec("require-signature", T::Switch, K::Switch,
             "A cert not signed by a trusted key is not promotable"),
        spec("expect", T::Texts, K::Text,
             "KEY=VALUE the cert must have been made for (repeatable): binary_sha256, "
             "model_sha256, model, server_flag, server_flags, ctx, n, kv_label, plugin_sha256, "
             "workset_sha256, scorer, source, configuration_id, determinism"),
        spec("expect-deployment", T::Text, K::File,
             "A JSON object of the same keys (lists for repeatable ones)"),
        spec("certs", T::Texts, K::File, "Cert files"),
        spec("out", T::Text, K::File, "Private key file to create"),
        spec("out@attest", T::Text, K::File, "The envelope file to write (e.g. cell.intoto.json)"),
        spec("out@workset", T::Text, K::File, "File to write atomically (default: stdout)"),
        spec("out@synth-model", T::Text, K::File, "Model file to write (its directory must exist)"),
        spec("out@baseline-record", T::Text, K::File,
             "The baseline file to write (default: baselines/MODEL__ctxCTX.baseline.json; its "
             "directory is created)",
             {}, "FILE")
            .sets(F::Out),
        spec("out@baseline-check", T::Text, K::File,
             "The check report to write (default: beside the baseline, "
             "MODEL__ctxCTX.baseline-check.json; replaced when a check completes)",
             {}, "FILE")
            .sets(F::Out),
        spec("cert", T::Texts, K::File, "The cert"),
        spec("describe", T::Switch, K::Switch, "Describe the --plugin files only"),
        spec("model-id", T::Text, K::Text,
             "Model name handed to the generator (run-live hands it the cert's model name)",
             "model"),
        spec("tokenize", T::Text, K::Text,
             "HOST:PORT of a running llama-server whose /tokenize counts the tokens"),
        spec("embd", T::Int64, K::Integer, "Embedding width", text(kModel.embd)),
        spec("layers", T::Int64, K::Integer, "Transformer blocks", text(kModel.layers)),
        spec("heads", T::Int64, K::Integer, "Attention heads (must divide --embd)",
             text(kModel.heads)),
        spec("kv-heads", T::Int64, K::Integer, "Key/value heads (must divide --heads)",
             text(kModel.kv_heads)),
        spec("ff", T::Int64, K::Integer, "Feed-forward width", text(kModel.ff)),
        spec("vocab-words", T::Int64, K::Integer,
             "Words from the built-in list to include (-1: all)", text(kModel.vocab_words)),
        spec("replace", T::Switch, K::Switch, "Record over an existing --out").sets(F::Replace),
        spec("shell", T::Text, K::Text, "bash, zsh or fish").one_of({"bash", "zsh", "fish"}),
    };
    return kSpecs;
}

const OptionSpec& option_spec(std::string_view id) {
    for (const auto& spec : option_specs())
        if (spec.id == id) return spec;
    throw Error(ErrorCategory::Internal,
                "bi: option " + std::string(id) + " is not in the option table");
}

std::vector<core::RequestField> fields_without_option(const std::vector<OptionSpec>& specs) {
    std::vector<core::RequestField> missing;
    for (const auto field : core::request_fields()) {
        const bool set = std::any_of(specs.begin(), specs.end(),
                                     [field](const OptionSpec& s) { return s.field == field; });
        if (!set) missing.push_back(field);
    }
    return missing;
}

const char* expected_value(ValueKind kind) {
    if (kind == ValueKind::Integer) return "an integer";
    if (kind == ValueKind::Number) return "a number";
    // A count, and (as the messages have always read) a switch given "=VALUE" it cannot read.
    return "a whole number (0 or more)";
}

}  // namespace bi::cli
