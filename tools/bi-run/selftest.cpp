// bi-run selftest: proves the harness and the gate on the user's own server binary in about a
// minute, with a tiny random-weight model written on the spot - no download, no GPU needed.
#include <unistd.h>

#include <cxxopts.hpp>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "driver/builtin_workset.hpp"
#include "driver/interrupt.hpp"
#include "driver/run_plan.hpp"
#include "exit_codes.hpp"
#include "gguf/synth_model.hpp"
#include "guard_options.hpp"
#include "io/json_text.hpp"
#include "option_aliases.hpp"
#include "option_tokens.hpp"
#include "plugin_args.hpp"
#include "plugin_host/plugin_set.hpp"
#include "provenance.hpp"
#include "report/verdict_headline.hpp"
#include "run_setup.hpp"
#include "server/argv.hpp"
#include "server/guards.hpp"

namespace bi::cli {

namespace {

[[noreturn]] void usage(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

std::string make_temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "bi-selftest-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw Error(ErrorCategory::Io, "cannot create a temp directory");
    return pattern;
}

// What a selftest leaves behind. The synthetic model always goes (the cert keeps its facts); a
// temp directory bi-run made goes too unless the run produced a cert or --keep was given, so a
// failed selftest leaves nothing in /tmp. A --out-dir the user named is theirs: only the model
// file is removed from it.
class SelftestFiles {
public:
    SelftestFiles(std::string dir, bool made_here, bool keep)
        : dir_(std::move(dir)), made_here_(made_here), keep_(keep) {}
    ~SelftestFiles() {
        std::error_code ignored;
        if (!model_.empty()) std::filesystem::remove(model_, ignored);
        if (made_here_ && !keep_ && !produced_cert_) std::filesystem::remove_all(dir_, ignored);
    }
    SelftestFiles(const SelftestFiles&) = delete;
    SelftestFiles& operator=(const SelftestFiles&) = delete;

    void set_model(std::string path) { model_ = std::move(path); }
    void keep_for_cert() { produced_cert_ = true; }

private:
    std::string dir_;
    std::string model_;
    bool made_here_;
    bool keep_;
    bool produced_cert_ = false;
};

// Prompts whose generated tokens (or, failing token ids, text) moved in a pass, and prompts
// whose chosen-token logprobs moved.
struct PassChange {
    std::size_t tokens = 0;
    std::size_t logprobs = 0;
};

PassChange changes_in(const core::PairReport& pass) {
    PassChange c;
    c.tokens = pass.first_divergent_token.size();
    c.logprobs = c.tokens + pass.logprob_drift_ids.size();
    return c;
}

std::string interpretation(const core::Verdict& v, int parallel) {
    const std::string n = std::to_string(parallel);
    if (v.divergence_class == core::DivergenceClass::SerialNondeterminism)
        return "This server does not reproduce itself even serially, so batching cannot be judged; "
               "check its flags (sampling, caching) before anything else.";
    if (v.status == core::Status::Failed)
        return "Batching changes this server's answers: with these flags, --parallel " + n +
               " is not safe where outputs must match a serial run.";
    if (v.anomaly == core::Anomaly::AcAgreeBDisagrees)
        return "Slot allocation alone moved some answers while batching did not; the cell is not "
               "clean.";
    if (v.status == core::Status::GreenWithCaveat)
        return "Scores held, but co-batching moved the numbers underneath (" +
               std::string(v.anomaly ? core::name(*v.anomaly) : "") +
               "): the batched kernels reduce in another order, so longer or other prompts may "
               "change.";
    if (v.status == core::Status::GreenUnverified)
        return "The run could not prove that requests shared a batch (or too few completed), so "
               "it certifies nothing; see the reasons above.";
    return "No difference was detected in this cell with this tiny model - a per-cell 'not "
           "detected', not a proof for your real model.";
}

// The plain-language report (or one JSON line) of a finished selftest.
void report_selftest(const driver::CellOutcome& outcome, const std::string& binary, int parallel,
                     std::size_t n_prompts, int n_predict, bool json) {
    const auto& v = outcome.verdict;
    core::Json per_pass = core::Json::array();
    for (const auto& pass : v.ac.per_pass) {
        const auto c = changes_in(pass);
        per_pass.push_back(
            core::Json::Object{{"tokens_changed", c.tokens}, {"logprobs_changed", c.logprobs}});
    }
    if (json) {
        core::Json summary =
            core::Json::Object{{"cert", outcome.cert_path},
                               {"status", std::string(core::name(v.status))},
                               {"source", std::string(core::name(outcome.cert.source))},
                               {"serial_reproducible", v.serial_check && v.serial_check->clean()},
                               {"b_matches_a", v.ab && v.ab->clean()},
                               {"per_pass", per_pass},
                               {"n_prompts", n_prompts},
                               {"interpretation", interpretation(v, parallel)}};
        std::cout << io::to_json_text(summary) << std::endl;
        return;
    }
    std::cout << "selftest of " << binary << " at N=" << parallel << " (" << n_prompts
              << " prompts x " << n_predict << " tokens, " << v.ac.per_pass.size()
              << " concurrent passes)\n"
              << "  serial runs reproduce themselves: "
              << (v.serial_check && v.serial_check->clean() ? "yes" : "NO") << "\n"
              << "  arm B (N slots, serial) matches A: " << (v.ab && v.ab->clean() ? "yes" : "NO")
              << "\n";
    for (std::size_t t = 0; t < v.ac.per_pass.size(); ++t) {
        const auto c = changes_in(v.ac.per_pass[t]);
        std::cout << "  concurrent pass " << t + 1 << ": " << c.tokens << " of " << n_prompts
                  << " prompts changed tokens, " << c.logprobs << " changed logprobs\n";
    }
    std::cout << "  verdict: "
              << report::verdict_headline(v.status, v.divergence_class, v.anomaly,
                                          outcome.promotable)
              << " [source " << core::name(outcome.cert.source) << "]\n"
              << "  " << interpretation(v, parallel) << "\n"
              << "cert: " << outcome.cert_path << std::endl;
}

}  // namespace

int selftest_main(int raw_argc, char** raw_argv) {
    auto aliases = guard_option_aliases();
    aliases.push_back({"--gate-passes", "--passes"});
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, aliases));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    cxxopts::Options options(
        "bi-run selftest",
        "Writes a tiny random-weight GGUF model, runs one small cell against your server binary\n"
        "(32 prompts x 64 tokens, /completion with logprobs, exact-match scoring) and reports\n"
        "whether serial runs reproduce themselves, whether arm B matches A, how many prompts\n"
        "changed tokens or logprobs under co-batching, and the verdict.\n\n"
        "Exit status as run-live: 0 promotable GREEN, 3 any other verdict, 2 usage error or\n"
        "refused launch, 1 error before a verdict, 129/130/143 interrupted.");
    options.add_options()("server-bin", "The llama-server (or work-alike) binary",
                          cxxopts::value<std::string>())("parallel", "N",
                                                         cxxopts::value<int>()->default_value("4"))(
        "server-flag", "One extra server argv token, commas kept (repeatable)",
        cxxopts::value<std::vector<std::string>>())("passes", "Concurrent passes",
                                                    cxxopts::value<int>()->default_value("3"))(
        "n-predict", "Tokens per request", cxxopts::value<int>()->default_value("64"))(
        "ctx", "Context per slot (small: the synthetic model is tiny)",
        cxxopts::value<std::int64_t>()->default_value("1024"))(
        "dtype", "Model matrices: f32 or f16", cxxopts::value<std::string>()->default_value("f32"))(
        "out-dir", "Where the cert and server log go (default: a new temp directory)",
        cxxopts::value<std::string>())("ready-timeout", "Seconds the server may take to load",
                                       cxxopts::value<double>()->default_value("120"))(
        "keep", "Keep the temp directory (server log) even when the selftest fails");
    add_plugin_timeout_option(options);
    auto limits = options.add_options();
    add_max_response_bytes_option(limits);
    add_guard_options(options);
    options.add_options("Output")("quiet", "No progress on stderr")(
        "json", "Print a one-line JSON summary on stdout")("h,help", "Show this help");
    const auto args = parse_command_line(options, argc, argv);
    if (args.count("help")) {
        std::cout << options.help({"", "Guards", "Output"}) << "\n";
        return kExitPromotable;
    }
    if (!args.count("server-bin")) usage("--server-bin is required");
    const std::string binary = args["server-bin"].as<std::string>();
    const int parallel = args["parallel"].as<int>();
    if (parallel < 2) usage("--parallel must be at least 2 (a selftest needs co-batching)");
    const std::vector<std::string> flags = option_tokens(args, "server-flag");
    server::check_binary(binary);  // before the model is written; plan_live checks the rest
    server::check_user_flags(flags);
    const auto dtype = args["dtype"].as<std::string>();
    if (dtype != "f32" && dtype != "f16") usage("--dtype must be f32 or f16");
    const auto guard_limits_given = guard_limits(args);  // checked before the model is written
    const auto port = chosen_port(args);
    if (port) server::check_port(*port, guard_limits_given);

    driver::RunPlan plan;
    driver::RunOptions& o = plan.options;
    o.model_alias = std::string("bi-selftest-") + dtype;
    o.passes = args["passes"].as<int>();
    o.request.endpoint = http::EndpointKind::Completion;
    o.request.n_predict = args["n-predict"].as<int>();
    o.request.logprobs = 1;
    o.request.max_response_bytes = max_response_bytes_option(args);
    if (o.passes < 1) usage("--passes must be at least 1");
    if (o.request.n_predict < 1) usage("--n-predict must be at least 1");
    const auto ctx = args["ctx"].as<std::int64_t>();
    if (ctx < 256) usage("--ctx must be at least 256");
    if (parallel > 64) usage("--parallel must be at most 64 for a selftest");
    if (ctx > 1 << 20) usage("--ctx must be at most 1048576 for a selftest");
    const bool dir_given = args.count("out-dir") > 0;
    o.out_dir = dir_given ? args["out-dir"].as<std::string>() : make_temp_dir();
    std::filesystem::create_directories(o.out_dir);
    SelftestFiles files(o.out_dir, !dir_given, args.count("keep") > 0);

    const std::string model = o.out_dir + "/" + o.model_alias + ".gguf";
    files.set_model(model);
    gguf::ModelSpec spec;
    spec.dtype = dtype == "f16" ? gguf::TensorType::F16 : gguf::TensorType::F32;
    spec.ctx = ctx * parallel;
    const auto synth = gguf::write_synth_model(model, spec);
    o.model_file = core::ModelFileRecord{};
    o.model_file->path = model;
    o.model_file->size = static_cast<std::int64_t>(synth.file.bytes);
    o.model_file->synthesized = synth.name;
    o.run_labels.scorer = "exact";
    o.run_labels.workset = "(built-in)";
    o.run_labels.server_flags = flags;
    o.run_labels.selftest = true;

    plugin_host::PluginSet plugins;
    configure_plugin_calls(plugins, args);
    plugins.load_bundled();
    auto scorer = plugins.create_scorer("", "");
    o.provenance = provenance_record(plugins);
    const bool quiet = args.count("quiet") > 0;
    driver::install_interrupt_handlers();
    driver::Progress progress(driver::Progress::detect(quiet), std::cerr);
    if (!quiet)
        progress.note("selftest model " + model + " (" + synth.name + "), cert and log in " +
                      o.out_dir);

    driver::LivePlan live;
    live.target = {binary, model, o.model_alias, "f16", flags};
    live.ready_timeout = seconds_option(args, "ready-timeout");
    live.limits = guard_limits_given;
    live.port = port;
    plan.ctxs = {ctx};
    plan.parallels = {parallel};
    plan.log_file = "selftest.server.log";
    const auto selftest_model = o.model_file;
    driver::plan_live(plan, std::move(live), true, std::string("f16"));
    o.model_file = selftest_model;  // the synthetic model's own record
    const auto results = driver::run_plan(
        plan, *scorer,
        [](const plugin_host::TokenCounter&, const std::string&, std::int64_t) {
            return driver::builtin_work_rows();
        },
        progress);
    const auto& outcome = results.front().outcome;
    const std::size_t n_prompts = outcome.cert.run && outcome.cert.run->n_items
                                      ? static_cast<std::size_t>(*outcome.cert.run->n_items)
                                      : 0;
    files.keep_for_cert();

    report_selftest(outcome, binary, parallel, n_prompts, o.request.n_predict,
                    args.count("json") > 0);
    return outcome.promotable ? kExitPromotable : kExitNotPromotable;
}

}  // namespace bi::cli
