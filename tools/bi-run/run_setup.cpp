#include "run_setup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "command_line.hpp"
#include "core/cert.hpp"
#include "core/error.hpp"
#include "driver/builtin_workset.hpp"
#include "exit_codes.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "io/workset.hpp"
#include "plugin_args.hpp"
#include "plugin_host/plugin_fault.hpp"
#include "provenance.hpp"
#include "sensitivity_text.hpp"
#include "verdict_headline.hpp"

namespace bi::cli {

namespace {

[[noreturn]] void usage(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

template <typename T>
T positive(const cxxopts::ParseResult& args, const char* name, T minimum = 1) {
    const T value = args[name].as<T>();
    if (value < minimum)
        usage("--" + std::string(name) + " must be at least " + std::to_string(minimum));
    return value;
}

// Proves the directory is (or can be created) writable, so that a run never ends with a verdict
// it cannot save; it is created only when the run starts (driver::run_plan), so a refused run
// leaves nothing behind.
std::string prepare_out_dir(const std::string& dir) {
    namespace fs = std::filesystem;
    if (dir.empty()) usage("--out-dir is required (the directory the cert is written to)");
    std::error_code ec;
    fs::path existing = fs::absolute(dir, ec);
    while (!existing.empty() && !fs::exists(existing, ec) && existing != existing.parent_path())
        existing = existing.parent_path();
    if (!fs::is_directory(existing, ec))
        usage("--out-dir " + dir + ": " + existing.string() + " is not a directory");
    if (::access(existing.c_str(), W_OK) != 0)
        usage("--out-dir " + dir + ": " + existing.string() + " is not writable");
    return dir;
}

// "4096" or, for sweep, "4096,8192": whole numbers >= minimum, no repeats.
template <typename T>
std::vector<T> int_list(const std::string& text, const std::string& flag, T minimum,
                        bool allow_lists) {
    std::vector<T> values;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item =
            text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t used = 0;
        long long value = 0;
        try {
            value = std::stoll(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size())
            usage("--" + flag + " " + text + ": expected a whole number" +
                  (allow_lists ? " or a comma-separated list" : ""));
        if (value < minimum) usage("--" + flag + " must be at least " + std::to_string(minimum));
        if (std::find(values.begin(), values.end(), static_cast<T>(value)) != values.end())
            usage("--" + flag + " " + text + ": " + item + " is listed twice");
        values.push_back(static_cast<T>(value));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (values.size() > 1 && !allow_lists)
        usage("--" + flag + " takes one value here; bi-run sweep runs several cells");
    return values;
}

}  // namespace

std::chrono::milliseconds seconds_option(const cxxopts::ParseResult& args, const char* name,
                                         bool zero_allowed) {
    const double seconds = args[name].as<double>();
    const std::string flag = std::string("--") + name;
    if (!std::isfinite(seconds) || seconds > 1e6)
        usage(flag + ": expected a number of seconds up to 1000000");
    if (zero_allowed ? seconds < 0 : !(seconds > 0))
        usage(flag + (zero_allowed ? " must not be negative" : " must be positive"));
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

std::string string_option(const cxxopts::ParseResult& args, const std::string& name) {
    const auto& value = args[name];
    return value.count() || value.has_default() ? value.as<std::string>() : std::string();
}

std::size_t max_response_bytes_option(const cxxopts::ParseResult& args) {
    constexpr unsigned long long kMin = 1024;
    constexpr unsigned long long kMax = 1ULL << 30;
    const std::string text = args["max-response-bytes"].as<std::string>();
    const bool digits =
        !text.empty() && text.size() <= 19 &&
        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    const unsigned long long value = digits ? std::stoull(text) : 0;
    if (!digits || value < kMin || value > kMax)
        usage("--max-response-bytes " + text + ": expected a whole number of bytes from " +
              std::to_string(kMin) + " to " + std::to_string(kMax));
    return static_cast<std::size_t>(value);
}

void add_max_response_bytes_option(cxxopts::OptionAdder& adder) {
    adder("max-response-bytes", "Most bytes one server answer may have, headers included",
          cxxopts::value<std::string>()->default_value(
              std::to_string(http::kDefaultMaxResponseBytes)));
}

void add_run_options(cxxopts::Options& options, const std::string& default_alias, bool lists) {
    auto alias = default_alias.empty()
                     ? cxxopts::value<std::string>()
                     : cxxopts::value<std::string>()->default_value(default_alias);
    options.add_options("Cell")("out-dir",
                                "Directory the cert is written to (created when missing)",
                                cxxopts::value<std::string>())(
        "model-alias",
        default_alias.empty() ? "The cert's model name (default: the models.toml alias, else the "
                                "model file's name without .gguf)"
                              : "The cert's model name",
        alias)("ctx",
               lists ? "Contexts per slot, in tokens: a comma-separated list, e.g. 4096,8192"
                     : "Context per slot, in tokens",
               cxxopts::value<std::string>()->default_value("2048"))(
        "parallel",
        lists ? "Values of N (slots of the batched server, requests sent at once): a "
                "comma-separated list, e.g. 2,4,8"
              : "N: slots of the batched server and requests sent at once",
        cxxopts::value<std::string>()->default_value("4"))(
        "passes", "Concurrent passes of arm C (T; also --gate-passes)",
        cxxopts::value<int>()->default_value("4"))(
        "target-rate",
        "Planned passes: run C passes until a zero-divergence bound at --confidence rules out "
        "this flip rate per trial (0 < P < 1; not with --passes)",
        cxxopts::value<double>())(
        "confidence", "Confidence of the sensitivity bounds and of --target-rate (0 < C < 1)",
        cxxopts::value<double>()->default_value("0.95"))(
        "max-passes", "Cap on the planned passes of --target-rate",
        cxxopts::value<int>()->default_value(std::to_string(driver::kDefaultMaxPasses)))(
        "reps", "Repetitions of every work-set row", cxxopts::value<int>()->default_value("1"))(
        "n-predict", "Tokens to generate per request", cxxopts::value<int>()->default_value("32"))(
        "kv-label",
        "KV cache type recorded in the cert and used by the footprint guard (also --kv)",
        cxxopts::value<std::string>()->default_value("f16"));
    options.add_options("Requests")(
        "endpoint", "chat (/v1/chat/completions) or completion (/completion, token ids)",
        cxxopts::value<std::string>()->default_value("chat"))(
        "logprobs",
        "Ask for top logprobs per token: max(K, 2), for the forensics (0 = off; also --n-probs)",
        cxxopts::value<int>()->default_value("0"))(
        "seed", "Seeds the C pass permutations and the work-set generator (recorded in the cert)",
        cxxopts::value<std::uint64_t>()->default_value(std::to_string(kDefaultSeed)))(
        "stagger-ms", "Delay between the first requests of the N workers",
        cxxopts::value<int>()->default_value("0"))(
        "req-timeout", "Seconds one request may take in all (connect to last byte)",
        cxxopts::value<double>()->default_value("120"))(
        "arm-deadline", "Seconds one arm or pass may take (0 = no limit)",
        cxxopts::value<double>()->default_value("0"))(
        "stop-on-red", "Stop the C passes at the first invariant divergence");
    auto requests = options.add_options("Requests");
    add_max_response_bytes_option(requests);
    add_plugin_options(options, "Scoring and work-set");
    options.add_options("Scoring and work-set")("scorer", "Scorer id (default: exact)",
                                                cxxopts::value<std::string>())(
        "scorer-config", "JSON text handed to the scorer (default: {})",
        cxxopts::value<std::string>())("workset", "Work-set JSON file",
                                       cxxopts::value<std::string>())(
        "generator", "Work-set generator id (from a plugin)", cxxopts::value<std::string>())(
        "generator-param", "KEY=VALUE for the generator (repeatable)",
        cxxopts::value<std::vector<std::string>>())(
        "logit-drift-eps",
        "Logprob-only drift smaller than this is not counted as drift (0 = exact; recorded in "
        "the cert)",
        cxxopts::value<double>()->default_value("0"));
    add_plugin_timeout_option(options, "Scoring and work-set");
    options.add_options("Output")(
        "sign-key",
        "Ed25519 private key (bi-run keygen) that signs every cert (default: $BI_SIGN_KEY)",
        cxxopts::value<std::string>())("quiet", "No progress on stderr")(
        "json", "Print a one-line JSON summary on stdout")("h,help", "Show this help");
}

std::vector<std::string> run_help_groups() {
    return {"Cell",        "Server", "Guards", "Requests", "Scoring and work-set",
            "Mock server", "Output"};
}

std::vector<OptionAlias> run_option_aliases() {
    return {
        {"--gate-passes", "--passes"},
        {"--n-probs", "--logprobs"},
        {"--kv", "--kv-label"},
        {"--profile-corner", "--generator-param", nullptr, "corner=", true},
        {"--cert-source", "", nullptr, nullptr, false,
         "the cert's source (live, mock, selftest) is decided by bi-run from what it ran, never "
         "typed"},
    };
}

RunSetup prepare_run(const cxxopts::ParseResult& args, bool allow_lists,
                     ProfileScope profile_scope) {
    RunSetup setup;
    auto& o = setup.plan.options;
    o.out_dir = prepare_out_dir(args.count("out-dir") ? args["out-dir"].as<std::string>() : "");
    o.sign_key =
        signing_key_option(args.count("sign-key") ? args["sign-key"].as<std::string>() : "");
    o.model_alias = string_option(args, "model-alias");
    o.kv_label = args["kv-label"].as<std::string>();
    setup.plan.ctxs = int_list<std::int64_t>(args["ctx"].as<std::string>(), "ctx", 16, allow_lists);
    setup.plan.parallels =
        int_list<int>(args["parallel"].as<std::string>(), "parallel", 1, allow_lists);
    // llama-server keeps a context size in 32 bits: refuse what would wrap before any launch.
    constexpr std::int64_t kMaxContext = 2147483647;
    for (auto ctx : setup.plan.ctxs) {
        if (ctx > kMaxContext) usage("--ctx " + std::to_string(ctx) + ": at most 2147483647");
        for (int n : setup.plan.parallels) {
            if (n > 4096) usage("--parallel " + std::to_string(n) + ": at most 4096");
            if (ctx * n > kMaxContext)
                usage("--ctx " + std::to_string(ctx) + " x --parallel " + std::to_string(n) +
                      " = " + std::to_string(ctx * n) +
                      " tokens for the N-slot server: at most 2147483647");
        }
    }
    o.passes = positive<int>(args, "passes");
    o.confidence = args["confidence"].as<double>();
    if (!(o.confidence > 0.0 && o.confidence < 1.0))
        usage("--confidence must be between 0 and 1 (exclusive), e.g. 0.95");
    o.max_passes = positive<int>(args, "max-passes");
    if (args.count("target-rate")) {
        const double rate = args["target-rate"].as<double>();
        if (!(rate > 0.0 && rate < 1.0))
            usage("--target-rate must be between 0 and 1 (exclusive), e.g. 0.01");
        if (args.count("passes"))
            usage("--target-rate plans the passes itself: leave out --passes");
        o.target_rate = rate;
    } else if (args.count("max-passes")) {
        usage("--max-passes caps the planned passes of --target-rate: give --target-rate too");
    }
    o.reps = positive<int>(args, "reps");
    o.request.n_predict = positive<int>(args, "n-predict");
    o.request.logprobs = positive<int>(args, "logprobs", 0);
    if (o.request.logprobs > 20) usage("--logprobs must be at most 20");
    const auto endpoint = args["endpoint"].as<std::string>();
    const auto endpoint_kind = http::parse_endpoint(endpoint);
    if (!endpoint_kind) usage("--endpoint must be chat or completion, not '" + endpoint + "'");
    o.request.endpoint = *endpoint_kind;
    o.seed = args["seed"].as<std::uint64_t>();
    o.stagger = std::chrono::milliseconds(positive<int>(args, "stagger-ms", 0));
    o.request.timeout = seconds_option(args, "req-timeout");
    o.request.max_response_bytes = max_response_bytes_option(args);
    if (const auto deadline = seconds_option(args, "arm-deadline", true); deadline.count() > 0)
        o.arm_deadline = deadline;
    o.stop_on_red = args.count("stop-on-red") > 0;
    o.logit_drift_eps = number_option(args, "logit-drift-eps", 0, 1e6);
    setup.quiet = args.count("quiet") > 0;
    setup.json = args.count("json") > 0;

    setup.plugins = std::make_unique<plugin_host::PluginSet>();
    load_plugins(*setup.plugins, args);
    setup.plugin_profile = chosen_plugin_profile(args, *setup.plugins, profile_scope);
    const auto scorer_id =
        setup.plugin_profile.empty() ? string_option(args, "scorer") : setup.plugin_profile;
    setup.scorer = setup.plugins->create_scorer(scorer_id, string_option(args, "scorer-config"));

    o.provenance = provenance_record(*setup.plugins);
    core::RunRecord& run = o.run_labels;
    run.scorer = scorer_id.empty() ? std::string(plugin_host::kDefaultScorerId) : scorer_id;
    if (!setup.plugin_profile.empty()) run.profile = setup.plugin_profile;
    // With --workset the file replaces the profile's generator; its scorer still applies.
    const bool profile_generates = !setup.plugin_profile.empty() && !args.count("workset");
    if (args.count("workset") && args.count("generator"))
        usage("--workset and --generator cannot be used together");
    if (args.count("workset")) {
        const auto path = args["workset"].as<std::string>();
        std::vector<core::WorkRow> rows;
        std::vector<std::string> warnings;
        try {
            rows = io::load_workset_file(path, &warnings);  // fail now, before any server starts
        } catch (const Error& e) {
            usage(std::string("--workset: ") + e.what());
        }
        for (const auto& warning : warnings) std::cerr << "bi-run: warning: " << warning << "\n";
        if (rows.empty()) usage("--workset " + path + ": the work-set has no rows");
        setup.rows = [rows](const plugin_host::TokenCounter&, const std::string&, std::int64_t) {
            return rows;
        };
        run.workset = path;
        o.provenance->workset_sha256 = io::stream_file_sha256(path);
    } else if (args.count("generator") || profile_generates) {
        const auto id =
            profile_generates ? setup.plugin_profile : args["generator"].as<std::string>();
        if (!setup.plugins->has_generator(id))
            usage("--generator " + id + ": no loaded plugin offers it (see bi-run plugins)");
        plugin_host::GenerationRequest request;
        request.seed = o.seed;
        if (args.count("generator-param")) {
            request.parameters =
                parse_generator_params(args["generator-param"].as<std::vector<std::string>>());
            std::vector<std::string> recorded;
            for (const auto& [key, value] : request.parameters)
                recorded.push_back(key + "=" + value);
            run.generator_params = recorded;
        }
        // A generator refuses bad parameters when it runs, so it runs once now, before any
        // server starts, on the first cell's context and with estimated token counts.
        auto probe = request;
        probe.model_id = o.model_alias;
        probe.ctx = setup.plan.ctxs.front();
        try {
            setup.plugins->generate_rows(id, probe);
        } catch (const plugin_host::PluginFault&) {
            throw;  // the plugin failed, not its parameters: the message says so already
        } catch (const Error& e) {
            std::string_view message = e.what();
            if (message.substr(0, 4) == "bi: ") message.remove_prefix(4);
            throw Error(e.category(), "--generator " + id + ": " + std::string(message));
        }
        // The plugin set lives in the RunSetup, on the heap, for as long as the run.
        const plugin_host::Plugins* plugins = setup.plugins.get();
        setup.rows = [plugins, id, request](const plugin_host::TokenCounter& count,
                                            const std::string& model_id, std::int64_t ctx) {
            auto r = request;
            r.model_id = model_id;
            r.ctx = ctx;
            return plugins->generate_rows(id, r, count);
        };
        run.generator = id;
        std::vector<std::string> params;
        for (const auto& [key, value] : request.parameters) params.push_back(key + "=" + value);
        o.provenance->generator_params = params;
        o.provenance->generator_seed = static_cast<std::int64_t>(request.seed);
    } else {
        setup.rows = [](const plugin_host::TokenCounter&, const std::string&, std::int64_t) {
            return driver::builtin_work_rows();
        };
        run.workset = "(built-in)";
    }
    return setup;
}

int report_outcome(const driver::CellResult& result, const RunSetup& setup) {
    const driver::CellOutcome& outcome = result.outcome;
    const std::int64_t ctx = result.ctx;
    const int parallel = result.parallel;
    const core::Cert& cert = outcome.cert;
    const std::string source(core::name(cert.source));
    const int code = outcome.promotable ? kExitPromotable : kExitNotPromotable;
    if (setup.json) {
        const auto& v = cert.verdict;
        core::Json summary = core::Json::Object{
            {"cert", outcome.cert_path},
            {"model", setup.plan.options.model_alias},
            {"ctx", ctx},
            {"dispatch_n", parallel},
            {"status", std::string(core::name(v.status))},
            {"source", source},
            {"promotable", outcome.promotable},
            {"divergence_class",
             v.divergence_class ? core::Json(core::name(*v.divergence_class)) : core::Json()},
            {"anomaly", v.anomaly ? core::Json(core::name(*v.anomaly)) : core::Json()},
            {"n_passes", cert.n_passes()},
            {"n_divergent", cert.divergence.ac.divergent_ids.size()},
            {"trials_counted", cert.sensitivity.per_trial.n},
            {"target_reached", cert.plan ? core::Json(cert.plan->reached) : core::Json()},
        };
        std::cout << io::to_json_text(summary) << std::endl;
        return code;
    }
    const auto& v = outcome.verdict;
    std::cout << verdict_headline(v.status, v.divergence_class, v.anomaly, outcome.promotable)
              << "  " << setup.plan.options.model_alias << "  ctx " << ctx << "  N " << parallel
              << "  [source " << source
              << (outcome.promotable ? ", promotable" : ", not promotable") << "]\n";
    for (const auto& reason : outcome.verdict.decision_reasons)
        std::cout << "  - " << reason << "\n";
    for (const auto& line : sensitivity_lines(cert)) std::cout << "  " << line << "\n";
    if (cert.verdict.status == core::Status::Green && cert.source != core::Source::Live)
        std::cout << "  (a GREEN against the mock shows the harness works; only a live server's "
                     "GREEN is promotable)\n";
    std::cout << "cert: " << outcome.cert_path << std::endl;
    return code;
}

}  // namespace bi::cli
