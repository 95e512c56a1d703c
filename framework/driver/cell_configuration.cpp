#include "cell_configuration.hpp"

#include <filesystem>

#include "core/cert_consistency.hpp"
#include "core/configuration.hpp"
#include "core/error.hpp"
#include "http/completion_request.hpp"
#include "io/cert_io.hpp"

namespace bi::driver {

core::RunRecord configured_run_record(const RunOptions& options) {
    core::RunRecord run = options.run_labels;
    const auto& r = options.request;
    run.seed = static_cast<std::int64_t>(options.seed);
    if (options.logit_drift_eps > 0) run.logit_drift_eps = options.logit_drift_eps;
    run.n_predict = r.n_predict;
    run.endpoint = std::string(http::request_path(r.endpoint));
    run.logprobs = r.logprobs;
    run.passes = options.target_rate ? std::nullopt : std::optional<std::int64_t>(options.passes);
    run.reps = options.reps;
    run.order = "A, A' and B in work-set order; each C pass its own seeded permutation";
    run.stagger_ms = static_cast<std::int64_t>(options.stagger.count());
    run.arrivals = std::string(core::arrivals_name(options.arrivals));
    if (options.determinism) run.determinism = *options.determinism ? "on" : "off";
    run.warmup_requests = r.dialect.warmup;
    run.prefill_chunk = options.prefill_chunk;
    run.request_timeout_s = static_cast<double>(r.timeout.count()) / 1000.0;
    run.stop_on_red = options.stop_on_red;
    return run;
}

core::CertContext configuration_context(const RunOptions& options, std::int64_t ctx, int parallel,
                                        core::Source source,
                                        const std::optional<std::string>& binary_sha256) {
    core::CertContext context;
    context.cell = {options.model_alias, ctx, parallel, options.kv_label, options.reps};
    context.source = source;
    context.model_file = options.model_file;
    context.run = configured_run_record(options);
    context.provenance = options.provenance;
    if (binary_sha256) {
        core::ServerRecord server;
        server.a.binary_sha256 = binary_sha256;
        server.n.binary_sha256 = binary_sha256;
        context.server = server;
    }
    return context;
}

ExistingCert check_existing_cert(const std::string& path, const RunOptions& options,
                                 std::int64_t ctx, int parallel, const std::string& binary_sha256) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return {false, "no cert yet"};
    io::LoadedCert loaded;
    try {
        loaded = io::read_cert(path);
    } catch (const Error& e) {
        return {false, std::string("unreadable (") + e.what() + ")"};
    }
    if (!loaded.shape_problem.empty()) return {false, "not a cert (" + loaded.shape_problem + ")"};
    if (!loaded.digest_intact) return {false, "its digest does not match (edited)"};
    const core::Cert& existing = loaded.cert;
    if (const auto disagreements = core::cert_disagreements(existing); !disagreements.empty())
        return {false, "it disagrees with itself (" + disagreements.front() + ")"};
    if (const auto unknown = core::unknown_configuration_keys(existing); !unknown.empty())
        return {false, "it does not record its " + unknown.front()};
    const auto recorded_binary =
        existing.server ? existing.server->n.binary_sha256 : std::optional<std::string>();
    if (recorded_binary != binary_sha256) return {false, "it was made with another server binary"};
    const core::Cert prospective = core::build_cert(
        configuration_context(options, ctx, parallel, existing.source, binary_sha256),
        core::Verdict{});
    const std::string id = core::configuration_id(prospective);
    if (core::configuration_id(existing) != id)
        return {false, "another configuration (" + core::configuration_id(existing) +
                           ", this run " + id + ")"};
    return {true, "same configuration " + id + ", digest intact"};
}

}  // namespace bi::driver
