// Parses llama-server's flags plus the mock's knobs. Unknown flags never abort: a flag's value is
// the next argument when that argument does not look like another flag.
#include "server_argv.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "core/error.hpp"

namespace bi::mock {

namespace {

constexpr int kDefaultCtx = 4096;
// llama-server's logical batch (-b) and micro-batch (-ub): a step evaluates at most the smaller.
constexpr int kDefaultBatch = 2048;
constexpr int kDefaultMicroBatch = 512;
constexpr int kDefaultSlots = 4;
constexpr std::uint16_t kDefaultPort = 8080;

// llama-server flags that take a value and are not modelled: the next argument is always
// consumed, even when it starts with '-'. (-fa/--flash-attn is absent on purpose: it took no
// value in older builds and takes on|off|auto in newer ones; the look-ahead rule covers both.)
constexpr std::string_view kValueFlags =
    " -tb --threads-batch -ngl --gpu-layers --n-gpu-layers "
    "-n --predict --n-predict --keep -ctk --cache-type-k -ctv --cache-type-v -sm --split-mode "
    "-ts --tensor-split -mg --main-gpu -dev --device --chat-template --chat-template-file -to "
    "--timeout --threads-http --api-key --api-key-file --path --lora --control-vector "
    "--rope-scaling --rope-scale --rope-freq-base --rope-freq-scale --temp --top-k --top-p "
    "--min-p --repeat-penalty --repeat-last-n --override-kv --numa -C --cpu-mask -Cr "
    "--cpu-range --prio --poll --reasoning-format --reasoning-budget --slot-save-path -sps "
    "--slot-prompt-similarity -ot --override-tensor -ncmoe --n-cpu-moe --log-file -lv "
    "--log-verbosity --verbosity -dt --defrag-thold -mu --model-url -hf -hfr --hf-repo -hff "
    "--hf-file -hft --hf-token --mmproj --cache-reuse --ctx-checkpoints -cram --cache-ram "
    "--ssl-key-file --ssl-cert-file ";

[[noreturn]] void refuse(const std::string& message) {
    throw Error(ErrorCategory::Usage, "bi-mock-server: " + message);
}

bool is_number(const std::string& text) {
    if (text.empty()) return false;
    char* end = nullptr;
    errno = 0;
    std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && errno == 0;
}

bool looks_like_value(const std::string& text) {
    return text.empty() || text[0] != '-' || is_number(text);
}

long long parse_integer(const std::string& flag, const std::string& text, long long low,
                        long long high) {
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno != 0)
        refuse(flag + ": expected an integer, got '" + text + "'");
    if (value < low || value > high)
        refuse(flag + ": " + text + " is outside " + std::to_string(low) + ".." +
               std::to_string(high));
    return value;
}

double parse_number(const std::string& flag, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(value))
        refuse(flag + ": expected a number, got '" + text + "'");
    return value;
}

class ArgCursor {
public:
    explicit ArgCursor(const std::vector<std::string>& args) : args_(args) {}

    bool next() {
        if (index_ >= args_.size()) return false;
        const std::string& arg = args_[index_++];
        inline_value_.reset();
        const auto equals = arg.find('=');
        if (arg.rfind("--", 0) == 0 && equals != std::string::npos) {
            name_ = arg.substr(0, equals);
            inline_value_ = arg.substr(equals + 1);
        } else {
            name_ = arg;
        }
        return true;
    }

    const std::string& name() const { return name_; }
    bool has_inline_value() const { return inline_value_.has_value(); }

    std::string value() {
        if (inline_value_) return *inline_value_;
        if (index_ >= args_.size()) refuse(name_ + " needs a value");
        return args_[index_++];
    }

    // For flags that are not modelled: take a value only when one is plausibly there.
    std::optional<std::string> optional_value(bool always) {
        if (inline_value_) return inline_value_;
        if (index_ < args_.size() && (always || looks_like_value(args_[index_])))
            return args_[index_++];
        return std::nullopt;
    }

private:
    const std::vector<std::string>& args_;
    std::size_t index_ = 0;
    std::string name_;
    std::optional<std::string> inline_value_;
};

bool is_flag(const std::string& name, std::initializer_list<const char*> spellings) {
    return std::any_of(spellings.begin(), spellings.end(),
                       [&](const char* spelling) { return name == spelling; });
}

bool is_value_flag(const std::string& name) {
    return kValueFlags.find(" " + name + " ") != std::string_view::npos;
}

}  // namespace

ServerCommandLine parse_llama_argv(const std::vector<std::string>& args) {
    ServerCommandLine line;
    MockConfig& config = line.config;
    config.port = kDefaultPort;
    config.metrics = false;  // llama-server serves /metrics only with --metrics
    // Without --tick-ms, a shared step lasts at least half the client's turnaround: on a loaded
    // machine (or under a sanitizer) the batch's steps then stay longer than the client's timing
    // noise, as a real model's steps of milliseconds do.
    config.tick_per_turnaround = kTickPerTurnaround;
    int ctx_size = kDefaultCtx;
    std::optional<int> parallel;
    int batch = kDefaultBatch;
    int micro_batch = kDefaultMicroBatch;

    ArgCursor cursor(args);
    while (cursor.next()) {
        const std::string& name = cursor.name();
        if (is_flag(name, {"-h", "--help", "--usage"})) {
            line.help = true;
        } else if (name == "--version") {
            line.version = true;
        } else if (is_flag(name, {"-m", "--model"})) {
            config.model_path = cursor.value();
        } else if (is_flag(name, {"-a", "--alias"})) {
            config.model_alias = cursor.value();
        } else if (name == "--host") {
            config.host = cursor.value();
        } else if (name == "--port") {
            config.port = static_cast<std::uint16_t>(parse_integer(name, cursor.value(), 0, 65535));
        } else if (is_flag(name, {"-c", "--ctx-size"})) {
            ctx_size = static_cast<int>(parse_integer(name, cursor.value(), 0, 1 << 24));
            if (ctx_size == 0) ctx_size = kDefaultCtx;  // 0 means "from the model"
        } else if (is_flag(name, {"-np", "--parallel"})) {
            const auto n = parse_integer(name, cursor.value(), -1, 1024);
            if (n == 0) refuse(name + ": must be -1 (auto) or at least 1");
            if (n > 0) parallel = static_cast<int>(n);
        } else if (is_flag(name, {"-b", "--batch-size"})) {
            batch = static_cast<int>(parse_integer(name, cursor.value(), 1, 1 << 24));
        } else if (is_flag(name, {"-ub", "--ubatch-size"})) {
            micro_batch = static_cast<int>(parse_integer(name, cursor.value(), 1, 1 << 24));
        } else if (is_flag(name, {"-t", "--threads"})) {
            config.threads = static_cast<int>(parse_integer(name, cursor.value(), -1, 4096));
        } else if (name == "--metrics") {
            config.metrics = true;
        } else if (name == "--slots") {
            config.slots_endpoint = true;
        } else if (name == "--no-slots") {
            config.slots_endpoint = false;
        } else if (is_flag(name, {"-s", "--seed"})) {
            const auto seed = parse_integer(name, cursor.value(), -1, 0x7fffffffffffffffLL);
            config.seed = seed < 0 ? 0 : static_cast<std::uint64_t>(seed);
        } else if (name == "--divergence") {
            config.divergence = parse_divergence(cursor.value());
        } else if (name == "--schedule") {
            config.schedule = parse_schedule(cursor.value());
        } else if (name == "--claims-batched") {
            config.claims_batched = true;
        } else if (name == "--divergence-p") {
            config.divergence_p = parse_number(name, cursor.value());
        } else if (name == "--build-variant") {
            config.build_variant = parse_build_variant(cursor.value());
        } else if (name == "--build-variant-every") {
            config.build_variant_every =
                static_cast<int>(parse_integer(name, cursor.value(), 1, 1000));
        } else if (name == "--cache-changes") {
            config.cache_changes = true;
        } else if (name == "--cache-changes-every") {
            config.cache_changes_every =
                static_cast<int>(parse_integer(name, cursor.value(), 1, 1000));
        } else if (name == "--crash-after") {
            config.crash_after = parse_integer(name, cursor.value(), 0, 1LL << 40);
        } else if (name == "--hang") {
            config.hang = true;
        } else if (name == "--ignore-sigterm") {
            line.ignore_sigterm = true;
        } else if (name == "--empty") {
            config.empty = true;
        } else if (name == "--loading-seconds") {
            config.loading_seconds = parse_number(name, cursor.value());
        } else if (name == "--tick-ms") {
            config.tick_ms = parse_number(name, cursor.value());
            config.tick_per_turnaround = 0.0;  // a tick chosen is kept as chosen
        } else if (name == "--fast-solo-after") {
            config.fast_solo_after_ticks =
                static_cast<int>(parse_integer(name, cursor.value(), 0, 1000000));
        } else if (!name.empty() && name[0] == '-' && !is_number(name)) {
            auto value = cursor.optional_value(is_value_flag(name));
            line.ignored.push_back(value ? name + " " + *value : name);
        } else {
            refuse("unexpected argument '" + name + "'");
        }
    }

    // An explicit --parallel splits the context between slots; without it, four slots share
    // one unified cache and each may use all of it (llama-server's behaviour).
    config.prompt_tokens_per_step = std::min(batch, micro_batch);
    config.slots = parallel.value_or(kDefaultSlots);
    config.n_ctx = parallel ? ctx_size / *parallel : ctx_size;
    if (config.n_ctx < 1)
        refuse("--ctx-size " + std::to_string(ctx_size) + " leaves no context for " +
               std::to_string(config.slots) + " slots");
    return line;
}

std::string llama_argv_usage() {
    return "usage: bi-mock-server [llama-server flags] [mock knobs]\n"
           "\n"
           "A mock llama-server with continuous batching. It never loads the model.\n"
           "\n"
           "llama-server flags it models:\n"
           "  -m, --model PATH        recorded in /props (need not exist)\n"
           "  -a, --alias NAME        model name in responses\n"
           "  --host HOST             127.0.0.1 or localhost only (others are refused)\n"
           "  --port N                default 8080; 0 picks a free port\n"
           "  -c, --ctx-size N        total context, default 4096\n"
           "  -np, --parallel N       slots (context split between them); default 4 sharing it\n"
           "  --metrics               serve /metrics (501 otherwise)\n"
           "  --slots, --no-slots     serve /slots (default on)\n"
           "  -b, --batch-size N      with -ub: a step evaluates min(-b, -ub) prompt tokens of a\n"
           "  -ub, --ubatch-size N    request (default 2048 and 512), so a longer prompt is\n"
           "                          prefilled over several steps\n"
           "  -t, --threads N         recorded only\n"
           "  -s, --seed N            seeds the stochastic divergence coin\n"
           "Other flags are accepted and ignored. A flag's value is the next argument when it\n"
           "does not start with '-' or is a number; these are known to take a value and always\n"
           "consume the next argument: -tb -ngl -n -ctk -ctv -sm -ts -mg -dev -to -C -Cr\n"
           "-sps -ot -ncmoe -lv -dt -mu -hf -hfr -hff -hft -cram and their long forms, --keep,\n"
           "--chat-template(-file), --api-key(-file), --lora, --temp, --top-k, --top-p,\n"
           "--min-p, --override-kv, --reasoning-format, --mmproj, --log-file, ... ('--flag=value'\n"
           "always works).\n"
           "\n"
           "mock knobs:\n"
           "  --divergence=MODE       "
           "none|score|token|logprob|stochastic|contamination|not-greedy\n"
           "  --divergence-p=P        stochastic: probability a request diverges (default 0.5)\n"
           "  --build-variant=MODE    none|score|token|logprob: another build's serial answers\n"
           "                          for some prompts (score: other words; token: a newline\n"
           "                          starts the text, stripped alike; logprob: moved logprobs)\n"
           "  --build-variant-every=K every K-th prompt by its key is changed (default 3)\n"
           "  --cache-changes         a prompt cache that changes answers: an answer that\n"
           "                          reused cached prompt tokens (\"cache_prompt\": true) is\n"
           "                          other words from its first token, for some prompts\n"
           "  --cache-changes-every=K every K-th prompt by its key (default 2; 1: every one)\n"
           "  --schedule=S            batched|serial|round-robin: how the slots are decoded\n"
           "                          (serial: one request to its end at a time; round-robin:\n"
           "                          one token per step for one request, in turn)\n"
           "  --claims-batched        /slots and /metrics say every request in a slot computes\n"
           "                          in every step, whatever the schedule does\n"
           "  --crash-after=K         answer K completions, then exit with status 1\n"
           "  --hang                  completion requests never answer\n"
           "  --ignore-sigterm        keep running on SIGTERM (only SIGKILL/SIGINT stop it)\n"
           "  --empty                 every completion is empty\n"
           "  --loading-seconds=S     answer 503 \"Loading model\" for S seconds\n"
           "  --tick-ms=MS            wall time of one decode step, kept as given (default 1,\n"
           "                          stretched to half the client's turnaround; 0 = flat out)\n"
           "  --fast-solo-after=K     a request alone in the batch for more than K steps runs\n"
           "                          on flat out (serial arms need no pacing); default: paced\n"
           "\n"
           "SIGTERM or SIGINT stops it cleanly (exit 0).\n";
}

}  // namespace bi::mock
