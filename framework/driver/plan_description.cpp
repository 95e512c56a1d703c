#include "plan_description.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/request_field.hpp"
#include "core/sample_size.hpp"
#include "core/text.hpp"
#include "server/argv.hpp"
#include "server/gpu_memory.hpp"
#include "server/guards.hpp"
#include "server/model_facts.hpp"

namespace bi::driver {

using core::field_ref;
using F = core::RequestField;

namespace {

std::string describe_footprint(const server::Footprint& f) {
    return "model " + server::format_gib(f.model_bytes) + " + KV " +
           server::format_gib(f.kv_bytes) +
           (f.kv_estimated_from_shape ? "" : " (estimated without the model's shape)") +
           " + overhead " + server::format_gib(f.overhead_bytes) + " = " +
           server::format_gib(f.total());
}

}  // namespace

// The C passes a cell will run, and a rough wall time: nothing has run yet, so a request is
// assumed to take kAssumedTokenSeconds per generated token, serially and batched alike.
std::string describe_passes(const RunPlan& plan, std::optional<std::size_t> n_items) {
    std::ostringstream out;
    constexpr double kAssumedTokenSeconds = 0.02;
    const auto& o = plan.options;
    int passes = o.passes;
    out << "  C passes       ";
    if (o.target_rate) {
        if (!n_items) {
            out << field_ref(F::TargetRate) << ": "
                << core::trials_needed(*o.target_rate, o.confidence)
                << " counted trials needed, at most " << o.max_passes
                << " passes (work-set size unknown before launch)\n";
            return out.str();
        }
        const auto e = core::estimate_passes(*o.target_rate, o.confidence, *n_items, o.max_passes);
        passes = std::min(e.min_passes, o.max_passes);
        out << field_ref(F::TargetRate) << " " << *o.target_rate << " at " << o.confidence * 100
            << "%: " << e.trials_needed << " counted trials needed; " << *n_items
            << " items give at least " << e.min_passes << " pass(es), capped at " << o.max_passes
            << (e.within_cap ? "" : " (the cap comes first: the target cannot be reached)")
            << "; fewer counted trials per pass need more passes\n";
    } else {
        out << passes << " fixed\n";
    }
    if (!n_items) return out.str();
    const double request_s = kAssumedTokenSeconds * o.request.n_predict;
    for (int n : plan.parallels) {
        const auto rounds_of_n = (*n_items + n - 1) / n;  // whole rounds of N concurrent requests
        const auto rounds = static_cast<double>(rounds_of_n);
        const double seconds = request_s * (3.0 * static_cast<double>(*n_items) + passes * rounds);
        out << "  wall time N=" << n << "  ~" << std::llround(seconds) << " s for A, A', B and "
            << passes << " pass(es) of C (" << *n_items << " items, assuming "
            << kAssumedTokenSeconds * 1000 << " ms per generated token; launches not included)\n";
    }
    return out.str();
}

namespace {

// The KV label and where it comes from.
std::string describe_kv(const RunOptions& o, const LivePlan& live) {
    if (o.kv_label == core::kServerDefaultKvLabel)
        return o.kv_label + " (as the server defaults: no flag sets its KV cache type)";
    std::string text = o.kv_label;
    if (live.kv_types != o.kv_label) text += " (K/V " + live.kv_types + ")";
    if (server::kv_cache_from_flags(live.kind.flags, live.target.flags) ||
        server::kv_cache_type_from_flag(live.kind.flags, live.target.flags))
        text += " (the server's cache-type flags)";
    return text;
}

}  // namespace

std::string describe_live_plan(const RunPlan& plan) {
    std::ostringstream out;
    const auto& o = plan.options;
    const auto& live = *plan.live;
    const auto mem = server::mem_available_bytes();
    const server::ServerCommand command{
        live.target.server_bin,        live.target.model,          live.target.flags, live.kind,
        o.determinism.value_or(false), o.prefill_chunk.value_or(0)};
    out << "plan (" << field_ref(F::DryRun) << ": nothing is launched)\n"
        << "  server binary  " << live.target.server_bin << "\n"
        << "  server kind    " << live.kind.name << " (" << live.kind.source
        << (live.kind_how.empty() ? "" : ", " + live.kind_how) << ")\n"
        << "  model          " << live.target.model << " ("
        << server::format_gib(live.facts.file_bytes) << ", "
        << (live.facts.architecture.empty() ? "not GGUF" : live.facts.architecture) << ")\n"
        << "  KV cache       " << describe_kv(o, live) << "\n"
        << "  port           "
        << (live.port ? std::to_string(*live.port) : "a free loopback port per launch") << "\n";
    if (!live.limits.reserved_ports.empty()) {
        out << "  reserved ports";
        for (auto p : live.limits.reserved_ports) out << " " << p;
        out << "\n";
    }
    out << "  MemAvailable   " << (mem ? server::format_gib(*mem) : "unknown") << "\n";
    if (o.prefill_chunk)
        out << "  prefill chunk  " << *o.prefill_chunk << " tokens a step ("
            << core::join(core::flag_names(live.kind.launch.prefill_chunk), " and ")
            << " in every launch)\n";
    if (plan.options.run_labels.gpu_memory_fraction)
        out << "  GPU memory     " << live.kind.launch.memory_fraction_flag << " "
            << core::format_fixed(*plan.options.run_labels.gpu_memory_fraction, 2)
            << " of each GPU, preallocated at start\n";
    const auto layers = server::offloaded_layers(live.kind.flags, live.target.flags);
    if (layers)
        out << "  GPU memory     "
            << (live.gpu ? server::format_gib(live.gpu->free_bytes) + " free (nvidia-smi, " +
                               std::to_string(live.gpu->gpus) + " GPU(s)" +
                               (live.gpu_selection.empty() ? "" : "; " + live.gpu_selection) + ")"
                         : std::string("unknown (no nvidia-smi): GPU part not checked"))
            << "\n";
    // The kind's environment first, as a shell would show it.
    const auto launch_line = [&](int n, std::int64_t ctx_total) {
        const auto port = live.port.value_or(0);
        const auto env = server::build_env(command, n, ctx_total, port);
        return (env.empty() ? "" : server::quote_argv(env) + " ") +
               server::quote_argv(server::build_argv(command, n, ctx_total, port));
    };
    const bool gguf = live.kind.launch.model_form == core::ModelForm::Gguf;
    for (auto ctx : plan.ctxs) {
        out << "  ctx " << ctx << ":\n"
            << "    arm A, A'    " << launch_line(1, ctx) << "\n";
        for (int n : plan.parallels) {
            out << "    N=" << n << " arms B, C " << launch_line(n, ctx * n) << "\n      footprint "
                << (gguf ? describe_footprint(plan.footprint(ctx, n))
                         : "not projected (the model is a " +
                               std::string(core::model_form_name(live.kind.launch.model_form)) +
                               ": the server sizes its own memory)")
                << "\n"
                << (layers ? "      GPU part  " +
                                 server::format_gib(server::gpu_part(plan.footprint(ctx, n),
                                                                     live.facts, *layers)) +
                                 "\n"
                           : std::string())
                << "      cert      " << plan.cert_path(ctx, n) << "\n";
        }
    }
    const std::string passes = o.target_rate ? "T (planned)" : std::to_string(o.passes);
    out << "  arms           A and A' serial; per N: B serial, then " << passes
        << " concurrent passes of C\n"
        << "  requests       (3 + " << passes << ") x work-set items x " << o.reps
        << " reps per cell (A and A' once per ctx)\n"
        << "  (port 0 above stands for the port picked at launch)\n";
    return out.str();
}

FootprintTable footprint_table(const server::ModelFacts& facts, const std::string& model_name,
                               std::int64_t ctx, int max_n, const std::string& kv,
                               std::optional<double> cap_gib) {
    const auto mem = server::mem_available_bytes();
    FootprintTable table;
    std::ostringstream out;
    out << model_name << ": " << server::format_gib(facts.file_bytes) << ", "
        << (facts.has_shape() ? std::to_string(*facts.n_layer) + " layers" : "shape unknown")
        << ", KV " << kv << ", ctx " << ctx << " per slot; MemAvailable "
        << (mem ? server::format_gib(*mem) : "unknown") << "\n";
    char row[160];
    std::snprintf(row, sizeof row, "%4s %10s %12s %12s %12s %12s  %s\n", "N", "ctx_total", "model",
                  "kv", "overhead", "total", "fits");
    out << row;
    for (int n = 1; n <= max_n; ++n) {
        const auto f = server::project_footprint(facts, ctx * n, kv);
        const double gib = static_cast<double>(f.total()) / (1024.0 * 1024.0 * 1024.0);
        const bool fits = (!mem || f.total() <= *mem) && (!cap_gib || gib <= *cap_gib);
        if (fits) table.largest_fit = n;
        std::snprintf(row, sizeof row, "%4d %10lld %12s %12s %12s %12s  %s\n", n,
                      static_cast<long long>(ctx) * n, server::format_gib(f.model_bytes).c_str(),
                      server::format_gib(f.kv_bytes).c_str(),
                      server::format_gib(f.overhead_bytes).c_str(),
                      server::format_gib(f.total()).c_str(), fits ? "yes" : "no");
        out << row;
    }
    if (table.largest_fit == 0)
        out << "no N from 1 to " << max_n << " fits"
            << (cap_gib ? " under " + field_ref(F::MaxFootprintGb) : std::string())
            << (mem ? " and MemAvailable" : "") << "\n";
    else
        out << "largest N that fits: " << table.largest_fit << "\n";
    table.text = out.str();
    return table;
}

FootprintTable plan_footprints(const FootprintRequest& request) {
    const LiveTarget target = resolve_target(request.run);
    const auto facts = model_facts(target.model, request.shape);
    if (request.ctx < 16) usage_error(field_ref(F::Ctx) + " must be at least 16");
    if (request.max_n < 1 || request.max_n > 1024)
        usage_error(field_ref(F::MaxN) + " must be between 1 and 1024");
    const std::string kv = request.kv_label.value_or(target.kv);
    if (!server::kv_bytes_per_element(kv))
        usage_error(field_ref(F::KvLabel) + " " + kv + ": unknown cache type");
    std::optional<double> cap;
    if (request.max_footprint_gb) cap = footprint_cap(*request.max_footprint_gb);
    const std::string name = request.model_name     ? *request.model_name
                             : target.model.empty() ? facts.path
                                                    : target.model;
    return footprint_table(facts, name, request.ctx, request.max_n, kv, cap);
}

}  // namespace bi::driver
