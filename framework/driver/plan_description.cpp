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
#include "io/cert_io.hpp"
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

// Seconds with the digits that mean something: "82", "5.3", "0.041".
std::string seconds_text(double seconds) {
    if (seconds >= 10.0) return std::to_string(std::llround(seconds));
    return core::format_general(seconds, 2);
}

}  // namespace

std::optional<MeasuredTimes> measured_times(const RunPlan& plan) {
    for (const auto ctx : plan.ctxs)
        for (const int n : plan.parallels) {
            const std::string path = plan.cert_path(ctx, n);
            std::error_code ec;
            if (!std::filesystem::is_regular_file(path, ec)) continue;
            try {
                const auto loaded = io::read_cert(path);
                const core::Cert& c = loaded.cert;
                if (!loaded.shape_problem.empty() || !c.timings || !c.run) continue;
                const auto& t = *c.timings;
                const auto items = c.run->n_items.value_or(0);
                const auto predict = c.run->n_predict.value_or(0);
                const auto cert_n = c.cell.dispatch_n;
                if (!t.arm_a_s || !t.arm_c_s || t.arm_c_s->empty() || items <= 0 || predict <= 0 ||
                    cert_n <= 0)
                    continue;
                double c_seconds = 0.0;
                for (const double s : *t.arm_c_s) c_seconds += s;
                const auto rounds = (items + cert_n - 1) / cert_n;
                const auto passes = static_cast<double>(t.arm_c_s->size());
                return MeasuredTimes{*t.arm_a_s / static_cast<double>(items),
                                     c_seconds / passes / static_cast<double>(rounds), predict,
                                     path};
            } catch (const Error&) {
                continue;  // unreadable: no measurement
            }
        }
    return std::nullopt;
}

// The C passes a cell will run, and a rough wall time: from an earlier cert's arm times when
// one is at hand, else a request is assumed to take kAssumedTokenSeconds per generated token,
// serially and batched alike, and the line says that it is a guess.
std::string describe_passes(const RunPlan& plan, std::optional<std::size_t> n_items,
                            const std::optional<MeasuredTimes>& measured) {
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
        const double serial = 3.0 * static_cast<double>(*n_items);
        out << "  wall time N=" << n << "  ~";
        if (measured) {
            // Times scale with the tokens asked for; launches are not in the arm times.
            const double scale =
                static_cast<double>(o.request.n_predict) / static_cast<double>(measured->n_predict);
            const double seconds = scale * (measured->serial_request_s * serial +
                                            measured->concurrent_round_s * passes * rounds);
            out << seconds_text(seconds) << " s for A, A', B and " << passes << " pass(es) of C ("
                << *n_items << " items, at the times measured in " << measured->cert << ": "
                << seconds_text(measured->serial_request_s) << " s per serial request, "
                << seconds_text(measured->concurrent_round_s)
                << " s per round of C; launches not included)\n";
        } else {
            const double seconds = request_s * (serial + passes * rounds);
            out << std::llround(seconds) << " s for A, A', B and " << passes << " pass(es) of C ("
                << *n_items << " items; a guess: no cert of this cell in the out dir has measured "
                << "times, so " << kAssumedTokenSeconds * 1000
                << " ms per generated token is assumed; launches not included)\n";
        }
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
        << server::format_size(live.facts.file_bytes) << ", "
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
