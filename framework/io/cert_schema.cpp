#include "cert_schema.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "cert_tables.hpp"
#include "field_table.hpp"
#include "json_text.hpp"
#include "kind_evidence_fields.hpp"

namespace bi::io {

namespace schema {

using namespace core;

constexpr auto kNull = WhenEmpty::WriteNull;

template <>
const Table<CellIdentity>& table() {
    static const Table<CellIdentity> rows{
        required("model", &CellIdentity::model),
        required("ctx", &CellIdentity::ctx),
        required("dispatch_n", &CellIdentity::dispatch_n),
        required("kv_label", &CellIdentity::kv_label),
        required("reps", &CellIdentity::reps),
    };
    return rows;
}

template <>
const Table<ServerOverlapEvidence>& table() {
    using E = ServerOverlapEvidence;
    static const Table<E> rows{
        required("peak_busy_slots", &E::peak_busy_slots),
        required("peak_requests_processing", &E::peak_requests_processing),
        optional("mean_busy_slots_per_decode", &E::mean_busy_slots_per_decode, kNull),
        required("n_samples", &E::n_samples),
        optional("mean_busy_slots", &E::mean_busy_slots, kNull),
        required("slots_available", &E::slots_available),
        required("metrics_available", &E::metrics_available),
        unless_default("slot_busy_field_absent", &E::slot_busy_field_absent),
    };
    return rows;
}

template <>
const Table<OverlapGate>& table() {
    // "ok" is read from the top-level overlap_ok (see Cert); here it is written alongside.
    static const Table<OverlapGate> rows{
        derived<OverlapGate>("ok", [](const OverlapGate& g) { return Json(g.ok); }),
        required("client_max_depth", &OverlapGate::client_max_depth),
        required("per_pass_client_depth", &OverlapGate::per_pass_client_depth),
        inline_members(&OverlapGate::server),
        optional("total_slots", &OverlapGate::total_slots, kNull),
        required("per_pass", &OverlapGate::per_pass),
        required("problems", &OverlapGate::problems),
        // The upstream contract's names (bi-cert/2), so its readers see real values.
        derived<OverlapGate>("overlap_ok", [](const OverlapGate& g) { return Json(g.ok); }),
        derived<OverlapGate>("client_max_overlap_depth",
                             [](const OverlapGate& g) { return Json(g.client_max_depth); }),
        derived<OverlapGate>("server_peak_busy_slots",
                             [](const OverlapGate& g) { return Json(g.server.peak_busy_slots); }),
    };
    return rows;
}

template <>
const Table<PassOverlap>& table() {
    using P = PassOverlap;
    static const Table<P> rows{
        required("pass", &P::pass),
        required("client_depth", &P::client_depth),
        inline_members(&P::server),
        required("problems", &P::problems),
        derived<P>("ok", [](const P& p) { return Json(p.ok()); }),
    };
    return rows;
}

template <>
const Table<IdLockstep>& table() {
    using I = IdLockstep;
    static const Table<I> rows{
        required("id", &I::id),           required("first_ms", &I::first_ms),
        required("last_ms", &I::last_ms), required("steps", &I::steps),
        required("shared", &I::shared),
    };
    return rows;
}

// The id lists (co-batched or not) are not written: each id's steps and shared steps say it.
template <>
const Table<LockstepEvidence>& table() {
    using L = LockstepEvidence;
    static const Table<L> rows{
        required("n", &L::n),
        required("ids", &L::ids),
        required("too_short_ids", &L::too_short_ids),
        required("multi_steps", &L::multi_steps),
        required("lockstep_multi_steps", &L::lockstep_multi_steps),
        derived<L>("batched", [](const L& l) { return Json(l.batched()); }),
        derived<L>("batched_margin", [](const L& l) { return Json(l.batched_margin()); }),
        required("full_steps", &L::full_steps),
        required("lockstep_full_steps", &L::lockstep_full_steps),
        derived<L>("lockstep_at_n", [](const L& l) { return Json(l.lockstep_at_n()); }),
        derived<L>("margin", [](const L& l) { return Json(l.margin()); }),
        required("peak", &L::peak),
        required("phase", &L::phase),
    };
    return rows;
}

template <>
const Table<PassLockstep>& table() {
    using P = PassLockstep;
    static const Table<P> rows{
        required("pass", &P::pass),
        // Absent in certs from before arrivals were chosen (every pass was sent together); with
        // it, the prefills inside another request's decode and whether the schedule's claim
        // held, both recounted from the ids' windows.
        custom<P>(
            "schedule",
            [](const P& p, Json& o) {
                if (!p.schedule) return;
                o.set("schedule", std::string(arrivals_name(*p.schedule)));
                o.set("prefills_in_decode", p.streams.prefills_in_decode());
                o.set("arrivals_achieved", p.arrivals_achieved());
            },
            [](const Json& o, P& p, const std::string& path) {
                const Json* word = o.find("schedule");
                if (!word) return;
                const auto schedule =
                    parse_arrivals(Codec<std::string>::from_json(*word, child(path, "schedule")));
                if (!schedule || *schedule == Arrivals::Mixed)
                    shape_error(child(path, "schedule"), "not together or staggered");
                p.schedule = *schedule;
            }),
        inline_members(&P::streams),
        required("problems", &P::problems),
        derived<P>("ok", [](const P& p) { return Json(p.ok()); }),
    };
    return rows;
}

template <>
const Table<LockstepGate>& table() {
    using G = LockstepGate;
    static const Table<G> rows{
        required("ok", &G::ok),
        required("decided_by", &G::decided_by),
        required("per_pass", &G::per_pass),
        required("problems", &G::problems),
    };
    return rows;
}

template <>
const Table<MissingEvidence>& table() {
    using M = MissingEvidence;
    static const Table<M> rows{
        required("test_id", &M::test_id),
        required("arm", &M::arm),
        required("field", &M::field),
    };
    return rows;
}

template <>
const Table<GreedyViolation>& table() {
    using G = GreedyViolation;
    static const Table<G> rows{
        required("arm", &G::arm),
        required("test_id", &G::test_id),
        required("position", &G::position),
        required("chosen_logprob", &G::chosen_logprob),
        required("top_logprob", &G::top_logprob),
    };
    return rows;
}

template <>
const Table<GreedyCheck>& table() {
    using G = GreedyCheck;
    static const Table<G> rows{
        required("checked", &G::checked),
        derived<G>("ok", [](const G& g) { return Json(!g.first_violation.has_value()); }),
        required("n_not_greedy", &G::n_not_greedy),
        optional("first_violation", &G::first_violation, kNull),
    };
    return rows;
}

template <>
const Table<FirstDivergence>& table() {
    using F = FirstDivergence;
    static const Table<F> rows{
        required("basis", &F::basis),
        required("index", &F::index),
        required("common_prefix", &F::common_prefix),
    };
    return rows;
}

template <>
const Table<Contamination>& table() {
    static const Table<Contamination> rows{
        required("neighbour", &Contamination::neighbour),
        required("ngram", &Contamination::ngram),
    };
    return rows;
}

template <>
const Table<TextExcerpt>& table() {
    static const Table<TextExcerpt> rows{
        required("offset", &TextExcerpt::offset),
        required("a", &TextExcerpt::a),
        required("c", &TextExcerpt::c),
        required("truncated", &TextExcerpt::truncated),
    };
    return rows;
}

template <>
const Table<IdForensics>& table() {
    using F = IdForensics;
    static const Table<F> rows{
        required("pass", &F::pass),
        inline_members(&F::at),
        optional("a_logprob", &F::a_logprob, kNull),
        optional("c_logprob", &F::c_logprob, kNull),
        optional("a_margin", &F::a_margin, kNull),
        required("class", &F::kind),
        optional("max_prefix_logprob_delta", &F::max_prefix_logprob_delta, kNull),
        optional("contamination", &F::contamination),
        optional("excerpt", &F::excerpt),
    };
    return rows;
}

template <>
const Table<CensusFailure>& table() {
    using F = CensusFailure;
    static const Table<F> rows{
        required("test_id", &F::test_id),
        required("failure_mode", &F::failure_mode),
        required("error", &F::error),
    };
    return rows;
}

template <>
const Table<CompletionCensus>& table() {
    using C = CompletionCensus;
    static const Table<C> rows{
        required("n", &C::n),
        required("n_ok", &C::n_ok),
        derived<C>("ratio", [](const C& c) { return Json(c.ratio()); }),
        required("by_mode", &C::by_mode),
        derived<C>("ok", [](const C& c) { return Json(c.meets(kCompletionFloor)); }),
        unless_default("failures", &C::failures),
    };
    return rows;
}

template <>
const Table<GivenUpArm>& table() {
    using G = GivenUpArm;
    static const Table<G> rows{
        required("arm", &G::arm),
        required("reason", &G::reason),
        custom<G>(
            "census",
            [](const G& g, Json& o) {
                o.set("census", Codec<CompletionCensus>::to_json(g.census));
            },
            [](const Json& o, G& g, const std::string& path) {
                const Json* census = o.find("census");
                if (!census) shape_error(child(path, "census"), "missing");
                g.census = Codec<CompletionCensus>::from_json(*census, child(path, "census"));
                g.census.arm = g.arm;
            }),
    };
    return rows;
}

namespace {

// The upstream contract's n_ok of one arm ("A", "B", or the fewest of the C passes); null when
// the cert has no census for it.
Json upstream_n_ok(const CompletionFloorGate& g, char arm) {
    if (arm == 'B') return g.arm_b ? Json(g.arm_b->n_ok) : Json();
    std::optional<std::size_t> n_ok;
    for (const auto& census : g.arms)
        if (!census.arm.empty() && census.arm.front() == arm)
            n_ok = n_ok ? std::min(*n_ok, census.n_ok) : census.n_ok;
    return n_ok ? Json(*n_ok) : Json();
}

Json upstream_min_ok_fraction(const CompletionFloorGate& g) {
    std::optional<double> fraction;
    for (const auto& census : g.arms)
        fraction = fraction ? std::min(*fraction, census.ratio()) : census.ratio();
    return fraction ? Json(*fraction) : Json();
}

Json upstream_coverage_fraction(const CoverageGate& g) {
    std::optional<double> fraction;
    for (const auto& pass : g.per_pass) {
        const double f = pass.n_ids == 0 ? 0.0 : static_cast<double>(pass.n_cobatched) / pass.n_ids;
        fraction = fraction ? std::min(*fraction, f) : f;
    }
    return fraction ? Json(*fraction) : Json();
}

}  // namespace

template <>
const Table<CompletionFloorGate>& table() {
    using G = CompletionFloorGate;
    static const Table<G> rows{
        derived<G>("completion_floor_ok", [](const G& g) { return Json(g.ok); }),
        derived<G>("n_ok_a", [](const G& g) { return upstream_n_ok(g, 'A'); }),
        derived<G>("n_ok_b", [](const G& g) { return upstream_n_ok(g, 'B'); }),
        derived<G>("n_ok_c", [](const G& g) { return upstream_n_ok(g, 'C'); }),
        derived<G>("min_ok_fraction", upstream_min_ok_fraction),
        required("ok", &G::ok),
        required("threshold", &G::threshold),
        custom<G>(
            "arms",
            [](const G& g, Json& o) {
                Json arms = Json::object();
                for (const auto& census : g.arms)
                    arms.set(census.arm, Codec<CompletionCensus>::to_json(census));
                o.set("arms", arms);
            },
            [](const Json& o, G& g, const std::string& path) {
                const Json* arms = o.find("arms");
                if (!arms) shape_error(child(path, "arms"), "missing");
                for (auto& [arm, census] :
                     Codec<std::map<std::string, CompletionCensus>>::from_json(
                         *arms, child(path, "arms"))) {
                    census.arm = arm;
                    g.arms.push_back(std::move(census));
                }
            }),
        custom<G>(
            "arm_b",
            [](const G& g, Json& o) {
                if (g.arm_b) o.set("arm_b", Codec<CompletionCensus>::to_json(*g.arm_b));
            },
            [](const Json& o, G& g, const std::string& path) {
                if (const Json* b = o.find("arm_b")) {
                    g.arm_b = Codec<CompletionCensus>::from_json(*b, child(path, "arm_b"));
                    g.arm_b->arm = "B";
                }
            }),
        optional("given_up", &G::given_up),
    };
    return rows;
}

template <>
const Table<PassCoverage>& table() {
    using P = PassCoverage;
    static const Table<P> rows{
        required("pass", &P::pass),
        required("n_ids", &P::n_ids),
        required("n_cobatched", &P::n_cobatched),
        required("required", &P::required),
        required("client_depth", &P::client_depth),
        required("attribution_certain", &P::attribution_certain),
        required("missing_interval_ids", &P::missing_interval_ids),
        required("not_cobatched_ids", &P::not_cobatched_ids),
        unless_default("n_judged_by_streams", &P::n_judged_by_streams),
        unless_default("n_stream_cobatched", &P::n_stream_cobatched),
        required("ok", &P::ok),
    };
    return rows;
}

template <>
const Table<CoverageGate>& table() {
    static const Table<CoverageGate> rows{
        required("ok", &CoverageGate::ok),
        required("checked", &CoverageGate::checked),
        required("per_pass", &CoverageGate::per_pass),
        derived<CoverageGate>("cobatch_coverage_ok",
                              [](const CoverageGate& g) { return Json(g.ok); }),
        derived<CoverageGate>("coverage_fraction", upstream_coverage_fraction),
        derived<CoverageGate>("n_ids",
                              [](const CoverageGate& g) {
                                  std::size_t n = 0;
                                  for (const auto& pass : g.per_pass) n = std::max(n, pass.n_ids);
                                  return Json(n);
                              }),
    };
    return rows;
}

template <>
const Table<ArmBCheck>& table() {
    static const Table<ArmBCheck> rows{
        required("ran", &ArmBCheck::ran),
        optional("ab_passed", &ArmBCheck::ab_passed, kNull),
        optional("bc_passed", &ArmBCheck::bc_passed, kNull),
        required("serial", &ArmBCheck::serial),
        optional("server", &ArmBCheck::server),
        unless_default("unpinned", &ArmBCheck::unpinned),
        unless_default("pins_ignored", &ArmBCheck::pins_ignored),
    };
    return rows;
}

template <>
const Table<ModeReport>& table() {
    using M = ModeReport;
    static const Table<M> rows{
        required("server", &M::server),
        optional("on", &M::on, kNull),
        required("detail", &M::detail),
    };
    return rows;
}

template <>
const Table<DeterminismGate>& table() {
    using G = DeterminismGate;
    static const Table<G> rows{
        derived<G>("ok", [](const G& g) { return Json(g.ok()); }),
        derived<G>("confirmed", [](const G& g) { return Json(g.confirmed()); }),
        required("on", &G::on),
        required("how", &G::how),
        required("status", &G::status),
        required("reports", &G::reports),
    };
    return rows;
}

template <>
const Table<CacheHit>& table() {
    static const Table<CacheHit> rows{
        required("id", &CacheHit::test_id),
        required("arm", &CacheHit::arm),
        required("cached_tokens", &CacheHit::cached),
    };
    return rows;
}

// The witness is written null when the kind declares none: the cert then says a cold cache was
// assumed.
template <>
const Table<ColdCacheGate>& table() {
    using G = ColdCacheGate;
    static const Table<G> rows{
        derived<G>("ok", [](const G& g) { return Json(g.ok()); }),
        custom<G>(
            "witness",
            [](const G& g, Json& o) {
                o.set("witness", g.witness.empty() ? Json() : Json(g.witness));
            },
            [](const Json& o, G& g, const std::string& path) {
                const Json* witness = o.find("witness");
                if (!witness) shape_error(child(path, "witness"), "missing");
                g.witness = witness->is_null()
                                ? std::string()
                                : Codec<std::string>::from_json(*witness, child(path, "witness"));
            }),
        required("witnessed", &G::witnessed),
        required("unwitnessed", &G::unwitnessed),
        required("hits", &G::hits),
    };
    return rows;
}

template <>
const Table<ArmDrafting>& table() {
    static const Table<ArmDrafting> rows{
        required("arm", &ArmDrafting::arm),
        required("answers", &ArmDrafting::answers),
        required("drafting", &ArmDrafting::drafting),
        required("drafted_tokens", &ArmDrafting::drafted_tokens),
    };
    return rows;
}

template <>
const Table<DraftMismatch>& table() {
    static const Table<DraftMismatch> rows{
        required("id", &DraftMismatch::test_id),
        required("arm", &DraftMismatch::arm),
        required("drafted_tokens", &DraftMismatch::drafted),
        required("drafted_tokens_a", &DraftMismatch::drafted_a),
    };
    return rows;
}

// A text written null when empty: the kind declares no draft fields, or no draft-model flag was
// given.
template <typename G>
Field<G> text_or_null(const char* key, std::string G::*member) {
    return custom<G>(
        key,
        [key, member](const G& g, Json& o) {
            o.set(key, (g.*member).empty() ? Json() : Json(g.*member));
        },
        [key, member](const Json& o, G& g, const std::string& path) {
            const Json* value = o.find(key);
            if (!value) shape_error(child(path, key), "missing");
            g.*member = value->is_null() ? std::string()
                                         : Codec<std::string>::from_json(*value, child(path, key));
        });
}

template <>
const Table<DraftingGate>& table() {
    using G = DraftingGate;
    static const Table<G> rows{
        derived<G>("ok", [](const G& g) { return Json(g.ok()); }),
        derived<G>("drafted", [](const G& g) { return Json(g.drafted()); }),
        text_or_null("fields", &G::fields),
        text_or_null("launch_flag", &G::launch_flag),
        required("arms", &G::arms),
        required("mismatches", &G::mismatches),
    };
    return rows;
}

template <>
const Table<SerialSelfCheck>& table() {
    using S = SerialSelfCheck;
    static const Table<S> rows{
        required("ran", &S::ran),
        optional("passed", &S::passed),
        optional("n_compared", &S::n_compared),
        optional("divergent_ids", &S::divergent_ids),
    };
    return rows;
}

template <>
const Table<CertGates>& table() {
    // The upstream contract keeps overlap_ok at the top level; overlap.ok repeats it.
    static const Table<CertGates> rows{
        // Absent in certs from before the gate: read unchecked, as they were judged.
        optional("cold_cache", &CertGates::cold_cache),
        optional("drafting", &CertGates::drafting),
        optional("determinism", &CertGates::determinism),
        required("incomplete_ids", &CertGates::incomplete_ids),
        required("missing_evidence", &CertGates::missing_evidence),
        custom<CertGates>(
            "overlap_ok", [](const CertGates& g, Json& o) { o.set("overlap_ok", g.overlap.ok); },
            [](const Json& o, CertGates& g, const std::string& path) {
                const Json* ok = o.find("overlap_ok");
                if (!ok) shape_error(child(path, "overlap_ok"), "missing");
                g.overlap.ok = Codec<bool>::from_json(*ok, child(path, "overlap_ok"));
            }),
        custom<CertGates>(
            "overlap",
            [](const CertGates& g, Json& o) {
                o.set("overlap", Codec<OverlapGate>::to_json(g.overlap));
            },
            [](const Json& o, CertGates& g, const std::string& path) {
                const Json* overlap = o.find("overlap");
                if (!overlap) shape_error(child(path, "overlap"), "missing");
                expect_type(*overlap, Json::Type::Object, child(path, "overlap"));
                read_rows(*overlap, g.overlap, child(path, "overlap"));
            }),
        // Written only when checked (the arms streamed); absent reads unchecked, as certs from
        // before streaming were judged.
        custom<CertGates>(
            "lockstep",
            [](const CertGates& g, Json& o) {
                if (g.lockstep.checked) o.set("lockstep", Codec<LockstepGate>::to_json(g.lockstep));
            },
            [](const Json& o, CertGates& g, const std::string& path) {
                const Json* lockstep = o.find("lockstep");
                g.lockstep =
                    lockstep ? Codec<LockstepGate>::from_json(*lockstep, child(path, "lockstep"))
                             : LockstepGate{};
                g.lockstep.checked = lockstep != nullptr;
            }),
        required("completion_floor", &CertGates::completion_floor),
        required("cobatch_coverage", &CertGates::cobatch_coverage),
        required("arm_b", &CertGates::arm_b),
        required("serial_self_check", &CertGates::serial_self_check),
        // Written only when checked (some trial listed top alternatives); absent reads unchecked.
        custom<CertGates>(
            "greedy_check",
            [](const CertGates& g, Json& o) {
                if (g.greedy.checked) o.set("greedy_check", Codec<GreedyCheck>::to_json(g.greedy));
            },
            [](const Json& o, CertGates& g, const std::string& path) {
                const Json* check = o.find("greedy_check");
                g.greedy = check
                               ? Codec<GreedyCheck>::from_json(*check, child(path, "greedy_check"))
                               : GreedyCheck{};
            }),
    };
    return rows;
}

template <>
const Table<FiredRule>& table() {
    static const Table<FiredRule> rows{
        required("name", &FiredRule::name),
        required("first_reason", &FiredRule::first_reason),
    };
    return rows;
}

template <>
const Table<CertVerdict>& table() {
    using V = CertVerdict;
    static const Table<V> rows{
        required("status", &V::status),
        optional("divergence_class", &V::divergence_class, kNull),
        optional("anomaly", &V::anomaly, kNull),
        required("decision_reasons", &V::decision_reasons),
        optional("rule", &V::rule),
    };
    return rows;
}

template <>
const Table<FieldMismatch>& table() {
    using F = FieldMismatch;
    static const Table<F> rows{
        required("test_id", &F::test_id),
        required("field", &F::field),
        required("left", &F::left),
        required("right", &F::right),
        required("left_content_sha", &F::left_sha),
        required("right_content_sha", &F::right_sha),
        required("token_identical", &F::token_identical),
    };
    return rows;
}

template <>
const Table<GroupCount>& table() {
    static const Table<GroupCount> rows{
        required("n_compared", &GroupCount::n_compared),
        required("n_divergent", &GroupCount::n_divergent),
    };
    return rows;
}

template <>
const Table<PairReport>& table() {
    using R = PairReport;
    static const Table<R> rows{
        required("left", &R::left_arm),
        required("right", &R::right_arm),
        required("n_compared", &R::n_compared),
        required("n_scored_both", &R::n_scored_both),
        derived<R>("n_divergent", [](const R& r) { return Json(r.divergent_ids.size()); }),
        required("divergent_ids", &R::divergent_ids),
        required("only_in_left", &R::only_left),
        required("only_in_right", &R::only_right),
        required("rows", &R::rows),
        custom<R>(
            "rows_truncated",
            [](const R& r, Json& o) {
                if (r.rows_truncated > 0) o.set("rows_truncated", r.rows_truncated);
            },
            [](const Json& o, R& r, const std::string& path) {
                if (const Json* n = o.find("rows_truncated"))
                    r.rows_truncated =
                        Codec<std::size_t>::from_json(*n, child(path, "rows_truncated"));
            }),
        required("token_only_ids", &R::token_only_ids),
        required("logprob_drift_ids", &R::logprob_drift_ids),
        required("max_logprob_delta", &R::max_logprob_delta),
        required("first_divergent_token", &R::first_divergent_token),
        unless_default("forensics", &R::forensics),
        unless_default("forensics_truncated", &R::forensics_truncated),
        unless_default("logprob_deltas", &R::logprob_deltas),
        required("by_family", &R::by_family),
        required("by_fill", &R::by_fill),
    };
    return rows;
}

template <>
const Table<UnionReport>& table() {
    using U = UnionReport;
    static const Table<U> rows{
        derived<U>("n_passes", [](const U& u) { return Json(u.per_pass.size()); }),
        required("n_comparisons", &U::n_comparisons),
        required("n_scored_comparisons", &U::n_scored_comparisons),
        derived<U>("n_divergent", [](const U& u) { return Json(u.divergent_ids.size()); }),
        required("divergent_ids", &U::divergent_ids),
        required("token_only_ids", &U::token_only_ids),
        required("logprob_drift_ids", &U::logprob_drift_ids),
        required("per_pass_divergent", &U::per_pass_divergent),
        required("per_pass_token_only", &U::per_pass_token_only),
        required("max_logprob_delta", &U::max_logprob_delta),
        required("first_divergent_token", &U::first_divergent_token),
        unless_default("forensics", &U::forensics),
        unless_default("forensics_truncated", &U::forensics_truncated),
        unless_default("logprob_deltas", &U::logprob_deltas),
        required("per_pass", &U::per_pass),
    };
    return rows;
}

template <>
const Table<DivergenceReports>& table() {
    using D = DivergenceReports;
    static const Table<D> rows{
        required("failed_under_concurrency", &D::failed_under_concurrency),
        required("AC", &D::ac),
        optional("AB", &D::ab, kNull),
        optional("BC", &D::bc, kNull),
        optional("AA_prime", &D::aa_prime),
    };
    return rows;
}

template <>
const Table<RateBound>& table() {
    using B = RateBound;
    static const Table<B> rows{
        required("n", &B::n),
        required("divergent", &B::divergent),
        optional("clopper_pearson_upper", &B::clopper_pearson_upper),
        optional("rule_of_three_upper", &B::rule_of_three_upper),
        optional("observed_rate", &B::observed_rate),
        optional("interval_lower", &B::interval_lower),
        optional("interval_upper", &B::interval_upper),
    };
    return rows;
}

template <>
const Table<PassRate>& table() {
    static const Table<PassRate> rows{
        required("pass", &PassRate::pass),
        inline_members(&PassRate::bound),
    };
    return rows;
}

template <>
const Table<Sensitivity>& table() {
    using S = Sensitivity;
    static const Table<S> rows{
        required("n_hot_trials", &S::n_hot_trials),
        required("divergences_seen", &S::divergences_seen),
        optional("rule_of_three_upper", &S::rule_of_three_upper, kNull),
        optional("clopper_pearson_upper_95", &S::clopper_pearson_upper_95, kNull),
        required("confidence", &S::confidence),
        required("per_trial", &S::per_trial),
        required("per_prompt", &S::per_prompt),
        required("per_pass", &S::per_pass),
        required("distinct_compositions", &S::distinct_compositions),
        derived<S>("rate_upper_bound_95",
                   [](const S& s) {
                       return s.clopper_pearson_upper_95 ? Json(*s.clopper_pearson_upper_95)
                                                         : Json();
                   }),
        derived<S>("n_ac_divergent", [](const S& s) { return Json(s.divergences_seen); }),
    };
    return rows;
}

template <>
const Table<LengthScope>& table() {
    using L = LengthScope;
    static const Table<L> rows{
        optional("n_predict", &L::n_predict, kNull),
        required("n_trials", &L::n_trials),
        optional("generated_min", &L::generated_min, kNull),
        optional("generated_median", &L::generated_median, kNull),
        optional("generated_max", &L::generated_max, kNull),
        required("n_hit_limit", &L::n_hit_limit),
    };
    return rows;
}

template <>
const Table<PassPlanRecord>& table() {
    using P = PassPlanRecord;
    static const Table<P> rows{
        required("target_rate", &P::target_rate),
        required("confidence", &P::confidence),
        required("trials_needed", &P::trials_needed),
        required("max_passes", &P::max_passes),
        required("passes_used", &P::passes_used),
        required("trials_counted", &P::trials_counted),
        required("reached", &P::reached),
        required("ended", &P::ended),
    };
    return rows;
}

template <>
const Table<PromotionScope>& table() {
    using P = PromotionScope;
    static const Table<P> rows{
        custom<P>(
            "valid_for",
            [](const P& p, Json& o) {
                Json valid_for = Json::Object{{"model", p.valid_for.model},
                                              {"ctx", p.valid_for.ctx},
                                              {"dispatch_n", p.valid_for.dispatch_n},
                                              {"kv_label", p.valid_for.kv_label}};
                if (p.server_flags)
                    valid_for.set("server_flags",
                                  Codec<std::vector<std::string>>::to_json(*p.server_flags));
                o.set("valid_for", valid_for);
            },
            [](const Json& o, P& p, const std::string& path) {
                const std::string at = child(path, "valid_for");
                const Json* v = o.find("valid_for");
                if (!v) shape_error(at, "missing");
                expect_type(*v, Json::Type::Object, at);
                CellIdentity cell;
                cell.reps = 0;  // not part of the scope
                for (const auto& row : table<CellIdentity>())
                    if (row.key != "reps") row.read(*v, cell, at);
                p.valid_for = cell;
                if (const Json* flags = v->find("server_flags"))
                    p.server_flags = Codec<std::vector<std::string>>::from_json(
                        *flags, child(at, "server_flags"));
            }),
        required("generalizes", &P::generalizes),
        optional("moe_hint", &P::moe_hint, kNull),
        optional("length", &P::length),
    };
    return rows;
}

template <>
const Table<ServerLaunch>& table() {
    using L = ServerLaunch;
    static const Table<L> rows{
        required("binary", &L::binary),
        optional("binary_sha256", &L::binary_sha256),
        optional("argv", &L::argv),
        optional("env", &L::env),
        optional("pid", &L::pid),
        optional("port", &L::port),
        optional("log", &L::log),
        optional("parent_death_signal", &L::parent_death_signal),
        optional("slots", &L::slots),
        optional("n_ctx_per_slot", &L::n_ctx_per_slot),
        optional("divergence", &L::divergence),
        optional("tick_ms", &L::tick_ms),
        optional("version_text", &L::version_text),
    };
    return rows;
}

template <>
const Table<KindEvidence>& table() {
    // The kind's evidence rows, as its kind file's reader walks them.
    static const Table<KindEvidence> rows = [] {
        Table<KindEvidence> out;
        for (const auto& field : evidence_fields())
            out.push_back(!field.text           ? required(field.key, &KindEvidence::metrics_format)
                          : field.cert_when_set ? unless_default(field.key, field.text)
                                                : required(field.key, field.text));
        return out;
    }();
    return rows;
}

template <>
const Table<ServerKindRecord>& table() {
    using K = ServerKindRecord;
    static const Table<K> rows{
        required("name", &K::name),
        required("source", &K::source),
        required("sha256", &K::sha256),
        required("evidence", &K::evidence),
        required("slot_pinning", &K::slot_pinning),
    };
    return rows;
}

template <>
const Table<ServerRecord>& table() {
    using S = ServerRecord;
    static const Table<S> rows{
        required("A", &S::a),
        required("N", &S::n),
        required("props", &S::props),
        required("props_N", &S::props_n),
        required("build_info", &S::build_info),
        optional("kind", &S::kind),
    };
    return rows;
}

template <>
const Table<ModelFileRecord>& table() {
    using M = ModelFileRecord;
    static const Table<M> rows{
        required("path", &M::path),
        required("size", &M::size),
        optional("sha256", &M::sha256),
        optional("sha256_head", &M::sha256_head),
        optional("architecture", &M::architecture),
        optional("synthesized", &M::synthesized),
        optional("store_digest", &M::store_digest),
    };
    return rows;
}

template <>
const Table<HostRecord>& table() {
    using H = HostRecord;
    static const Table<H> rows{
        optional("hostname", &H::hostname),
        required("cpu", &H::cpu),
        required("n_cpus", &H::n_cpus),
        required("gpus", &H::gpus),
        optional("os", &H::os),
        optional("gpu_driver", &H::gpu_driver),
        optional("gpu_source", &H::gpu_source),
        optional("cuda_visible_devices", &H::cuda_visible_devices),
    };
    return rows;
}

template <>
const Table<RunRecord>& table() {
    using R = RunRecord;
    static const Table<R> rows{
        optional("scorer", &R::scorer),
        optional("profile", &R::profile),
        optional("generator", &R::generator),
        optional("generator_params", &R::generator_params),
        optional("workset", &R::workset),
        optional("server_flags", &R::server_flags),
        optional("selftest", &R::selftest),
        optional("seed", &R::seed),
        optional("n_predict", &R::n_predict),
        optional("endpoint", &R::endpoint),
        optional("logprobs", &R::logprobs),
        optional("passes", &R::passes),
        optional("reps", &R::reps),
        optional("n_items", &R::n_items),
        optional("order", &R::order),
        optional("stagger_ms", &R::stagger_ms),
        optional("arrivals", &R::arrivals),
        optional("warmup_requests", &R::warmup_requests),
        optional("determinism", &R::determinism),
        optional("prefill_chunk", &R::prefill_chunk),  // absent: the server's own chunking
        optional("request_timeout_s", &R::request_timeout_s),
        optional("stop_on_red", &R::stop_on_red),
        optional("logit_drift_eps", &R::logit_drift_eps),
        optional("gpu_memory_fraction", &R::gpu_memory_fraction),
    };
    return rows;
}

template <>
const Table<Timings>& table() {
    using T = Timings;
    static const Table<T> rows{
        optional("launch_A_s", &T::launch_a_s),     optional("workset_s", &T::workset_s),
        optional("arm_A_s", &T::arm_a_s),           optional("arm_A_prime_s", &T::arm_a_prime_s),
        optional("teardown_A_s", &T::teardown_a_s), optional("launch_N_s", &T::launch_n_s),
        optional("arm_B_s", &T::arm_b_s),           optional("arm_C_s", &T::arm_c_s),
        optional("teardown_N_s", &T::teardown_n_s), optional("total_s", &T::total_s),
    };
    return rows;
}

namespace {

Json number_or_null(const std::optional<double>& value) {
    return value ? Json(*value) : Json();
}

}  // namespace

template <>
const Table<ArmThroughput>& table() {
    using A = ArmThroughput;
    static const Table<A> rows{
        required("arm", &A::arm),
        required("tokens", &A::tokens),
        required("seconds", &A::seconds),
        derived<A>("tokens_per_s", [](const A& a) { return number_or_null(a.tokens_per_s()); }),
        optional("itl_ms_median", &A::itl_ms_median, kNull),
        optional("itl_ms_p95", &A::itl_ms_p95, kNull),
    };
    return rows;
}

template <>
const Table<Throughput>& table() {
    static const Table<Throughput> rows{
        required("arms", &Throughput::arms),
        derived<Throughput>("speedup",
                            [](const Throughput& t) { return number_or_null(t.speedup()); }),
    };
    return rows;
}

template <>
const Table<PluginRecord>& table() {
    using P = PluginRecord;
    static const Table<P> rows{
        required("id", &P::id),
        required("version", &P::version),
        required("path", &P::path),
        optional("sha256", &P::sha256, kNull),
    };
    return rows;
}

template <>
const Table<ProvenanceRecord>& table() {
    using P = ProvenanceRecord;
    static const Table<P> rows{
        required("tool", &P::tool),
        required("version", &P::version),
        optional("commit", &P::commit, kNull),
        required("argv", &P::argv),
        required("plugins", &P::plugins),
        optional("workset_sha256", &P::workset_sha256),
        optional("rows_sha256", &P::rows_sha256),
        optional("generator_params", &P::generator_params),
        optional("generator_seed", &P::generator_seed),
    };
    return rows;
}

template <>
const Table<PreviousCert>& table() {
    using P = PreviousCert;
    static const Table<P> rows{
        required("status", &P::status),
        required("ts_utc", &P::ts_utc),
        optional("digest", &P::digest, kNull),
        optional("configuration_id", &P::configuration_id, kNull),
        required("file", &P::file),
    };
    return rows;
}

template <>
const Table<BaselineCheckSummary>& table() {
    using B = BaselineCheckSummary;
    static const Table<B> rows{
        required("status", &B::status),
        required("reasons", &B::reasons),
        required("baseline_digest", &B::baseline_digest),
        required("check_file", &B::check_file),
        required("n_changed", &B::n_changed),
        required("changed_ids", &B::changed_ids),
    };
    return rows;
}

template <>
const Table<CacheChange>& table() {
    using C = CacheChange;
    static const Table<C> rows{
        required("id", &C::test_id),
        required("probe", &C::probe),
        unless_default("cut_at", &C::cut_at),
        required("cached_tokens", &C::cached),
        required("invariant", &C::invariant),
        optional("first_divergent_token", &C::first_token, kNull),
        unless_default("divergence", &C::divergence),
    };
    return rows;
}

template <>
const Table<CacheCheck>& table() {
    using C = CacheCheck;
    static const Table<C> rows{
        required("status", &C::status),
        required("reasons", &C::reasons),
        required("witness", &C::witness),
        required("n_ids", &C::n_ids),
        required("n_served", &C::n_served),
        required("n_cuts", &C::n_cuts),
        required("not_exercised", &C::not_exercised),
        required("changed_ids", &C::changed_ids),
        required("drift_ids", &C::drift_ids),
        required("changes", &C::changes),
        unless_default("cuts_note", &C::cuts_note),
    };
    return rows;
}

template <>
const Table<CertSignature>& table() {
    using S = CertSignature;
    static const Table<S> rows{
        required("alg", &S::alg),
        required("key_id", &S::key_id),
        required("value", &S::value),
    };
    return rows;
}

template <>
const Table<Cert>& table() {
    // The AC lists at the top level are the upstream contract's names for divergence_report.AC.
    const auto ac = [](const Cert& c) -> const UnionReport& { return c.divergence.ac; };
    static const Table<Cert> rows{
        required("schema", &Cert::schema),
        inline_members(&Cert::cell),
        required("source", &Cert::source),
        required("gate", &Cert::gate),
        required("ts_utc", &Cert::ts_utc),
        derived<Cert>("n_passes", [](const Cert& c) { return Json(c.n_passes()); }),
        required("stopped_early", &Cert::stopped_early),
        required("invariant_fields", &Cert::invariant_fields),
        inline_members(&Cert::verdict),
        inline_members(&Cert::gates),
        derived<Cert>("mismatch",
                      [ac](const Cert& c) {
                          return Codec<std::vector<std::string>>::to_json(ac(c).divergent_ids);
                      }),
        derived<Cert>("token_divergence_ids",
                      [ac](const Cert& c) {
                          return Codec<std::vector<std::string>>::to_json(ac(c).token_only_ids);
                      }),
        derived<Cert>("per_pass_ac_divergent",
                      [ac](const Cert& c) {
                          return Codec<std::vector<std::size_t>>::to_json(ac(c).per_pass_divergent);
                      }),
        derived<Cert>("per_pass_ac_token_only",
                      [ac](const Cert& c) {
                          return Codec<std::vector<std::size_t>>::to_json(
                              ac(c).per_pass_token_only);
                      }),
        derived<Cert>("first_divergent_token",
                      [ac](const Cert& c) {
                          return Codec<std::map<std::string, std::size_t>>::to_json(
                              ac(c).first_divergent_token);
                      }),
        required("divergence_report", &Cert::divergence),
        required("sensitivity", &Cert::sensitivity),
        required("promotion_scope", &Cert::promotion_scope),
        optional("plan", &Cert::plan),
        optional("server", &Cert::server),
        optional("model_file", &Cert::model_file),
        optional("host", &Cert::host),
        optional("run", &Cert::run),
        optional("timings", &Cert::timings),
        optional("throughput", &Cert::throughput),
        optional("provenance", &Cert::provenance),
        optional("previous", &Cert::previous),
        optional("baseline_check", &Cert::baseline_check),
        optional("cache_check", &Cert::cache_check),
        optional("digest", &Cert::digest),
        optional("signature", &Cert::signature),
    };
    return rows;
}

}  // namespace schema

core::Json cert_to_json(const core::Cert& cert) {
    return schema::Codec<core::Cert>::to_json(cert);
}

namespace {

// A bi-cert/1 document predates the upstream names that bi-cert/2 repeats; they are left out of
// its re-rendering so that it still reads exactly as written.
core::Json rendered_as(const core::Cert& cert) {
    core::Json out = cert_to_json(cert);
    if (cert.schema != core::kCertSchemaV1) return out;
    const std::pair<const char*, std::vector<const char*>> v2_only[] = {
        {"overlap", {"overlap_ok", "client_max_overlap_depth", "server_peak_busy_slots"}},
        {"completion_floor",
         {"completion_floor_ok", "n_ok_a", "n_ok_b", "n_ok_c", "min_ok_fraction"}},
        {"cobatch_coverage", {"cobatch_coverage_ok", "coverage_fraction", "n_ids"}},
        {"sensitivity", {"rate_upper_bound_95", "n_ac_divergent"}},
    };
    for (const auto& [object, keys] : v2_only)
        for (const char* key : keys) out[object].erase(key);
    return out;
}

}  // namespace

ParsedCert cert_from_json(const core::Json& document) {
    ParsedCert parsed;
    try {
        core::Cert cert = schema::Codec<core::Cert>::from_json(document, "$");
        if (!cert.digest) schema::shape_error("$.digest", "missing");
        const auto at = schema::first_difference(document, rendered_as(cert), "$");
        if (!at.empty())
            schema::shape_error(at,
                                "does not agree with the rest of the cert (an edited derived "
                                "field, or a key that is not part of " +
                                    std::string(core::kCertSchema) + ")");
        parsed.cert = std::move(cert);
    } catch (const schema::ShapeError& e) {
        parsed.problem = e.what();
    }
    return parsed;
}

core::Promotion check_promotable(const core::Json& document, bool digest_intact) {
    auto parsed = cert_from_json(document);
    if (!parsed.cert) return {false, {"not a well-formed cert: " + parsed.problem}};
    return core::check_promotable(*parsed.cert, digest_intact);
}

std::string validate_cert_shape(const core::Json& document) {
    return cert_from_json(document).problem;
}

}  // namespace bi::io
