// The comparisons are checked against their own rows and passes, each gate against its own
// evidence, and the status by replaying verdict_rules() over that evidence: no rule is restated.
// The cache check (core::check_cache) carries no answers to replay; what always holds of its
// counts, lists and status is checked instead.
#include "cert_consistency.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "text.hpp"

namespace bi::core {

namespace {

using Lines = std::vector<std::string>;
using Ids = std::vector<std::string>;

std::string count(std::size_t n) {
    return std::to_string(n);
}

std::string word(bool value) {
    return value ? "true" : "false";
}

std::string word(const std::optional<bool>& value) {
    return value ? word(*value) : "null";
}

template <typename Enum>
std::string word(const std::optional<Enum>& value) {
    return value ? "'" + std::string(name(*value)) + "'" : "null";
}

std::string percent(double ratio) {
    return format_fixed(ratio * 100.0, 1) + "%";
}

// The first of `ids` that is (or is not, per `wanted`) in `among`; nullptr when there is none.
const std::string* first_with(const Ids& ids, const Ids& among, bool wanted) {
    for (const auto& id : ids)
        if ((std::find(among.begin(), among.end(), id) != among.end()) == wanted) return &id;
    return nullptr;
}

// ---- the comparisons: every list and count must be what its own rows and passes give ----

void check_pair(const PairReport& r, const std::string& label, Lines& out) {
    for (const Ids* side : {&r.only_left, &r.only_right})
        if (const auto* id = first_with(*side, r.divergent_ids, false))
            out.push_back(label + ": id " + *id + " is missing on one side but not divergent");
    for (const auto& row : r.rows)
        if (std::find(r.divergent_ids.begin(), r.divergent_ids.end(), row.test_id) ==
            r.divergent_ids.end()) {
            out.push_back(label + ": id " + row.test_id + " has a mismatched " + row.field +
                          " but is not divergent");
            break;
        }
    for (const Ids* drift : {&r.token_only_ids, &r.logprob_drift_ids})
        if (const auto* id = first_with(*drift, r.divergent_ids, true))
            out.push_back(label + ": id " + *id + " is listed both as divergent and as drift");
    const auto listed = [](const std::string& id, const Ids& ids) {
        return std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    for (const auto& entry : r.forensics)
        if (!listed(entry.first, r.divergent_ids) && !listed(entry.first, r.token_only_ids)) {
            out.push_back(label + ": id " + entry.first +
                          " has forensics but neither diverged nor drifted");
            break;
        }
    std::size_t by_family = 0;
    for (const auto& [family, group] : r.by_family) by_family += group.n_divergent;
    const std::size_t one_sided = r.only_left.size() + r.only_right.size();
    const std::size_t both_sides =
        r.divergent_ids.size() > one_sided ? r.divergent_ids.size() - one_sided : 0;
    if (by_family != both_sides)
        out.push_back(label + ": the family counts give " + count(by_family) +
                      " divergent id(s) but " + count(both_sides) + " are listed");
}

void check_counts(const std::vector<std::size_t>& recorded, const std::vector<std::size_t>& passes,
                  const std::string& label, const std::string& what, Lines& out) {
    if (recorded.size() != passes.size()) {
        out.push_back(label + " has " + count(recorded.size()) + " per-pass " + what +
                      " count(s) for " + count(passes.size()) + " pass(es)");
        return;
    }
    for (std::size_t t = 0; t < passes.size(); ++t)
        if (recorded[t] != passes[t])
            out.push_back(label + " pass " + count(t + 1) + " counts " + count(recorded[t]) + " " +
                          what + " id(s) but lists " + count(passes[t]));
}

// union_over_passes' aggregation, redone from the stored passes.
void check_union(const UnionReport& u, const std::string& label, Lines& out) {
    std::set<std::string> divergent, token_only, logprob_drift;
    std::vector<std::size_t> per_pass_divergent, per_pass_token_only;
    std::size_t n_comparisons = 0, n_scored = 0;
    for (std::size_t t = 0; t < u.per_pass.size(); ++t) {
        const PairReport& pass = u.per_pass[t];
        check_pair(pass, label + " pass " + count(t + 1), out);
        divergent.insert(pass.divergent_ids.begin(), pass.divergent_ids.end());
        token_only.insert(pass.token_only_ids.begin(), pass.token_only_ids.end());
        logprob_drift.insert(pass.logprob_drift_ids.begin(), pass.logprob_drift_ids.end());
        per_pass_divergent.push_back(pass.divergent_ids.size());
        per_pass_token_only.push_back(pass.token_only_ids.size());
        n_comparisons += pass.n_compared;
        n_scored += pass.n_scored_both;
    }
    const Ids divergent_ids(divergent.begin(), divergent.end());
    if (u.divergent_ids != divergent_ids)
        out.push_back(label + " lists " + count(u.divergent_ids.size()) +
                      " divergent id(s) but its passes list " + count(divergent_ids.size()));
    check_counts(u.per_pass_divergent, per_pass_divergent, label, "divergent", out);
    check_counts(u.per_pass_token_only, per_pass_token_only, label, "token-only", out);
    const auto drift_only = [&divergent](const std::set<std::string>& ids) {
        Ids kept;
        for (const auto& id : ids)
            if (!divergent.count(id)) kept.push_back(id);
        return kept;
    };
    if (u.token_only_ids != drift_only(token_only))
        out.push_back(label + " lists " + count(u.token_only_ids.size()) +
                      " token-only id(s) but its passes give " +
                      count(drift_only(token_only).size()));
    if (u.logprob_drift_ids != drift_only(logprob_drift))
        out.push_back(label + " lists " + count(u.logprob_drift_ids.size()) +
                      " logprob-drift id(s) but its passes give " +
                      count(drift_only(logprob_drift).size()));
    if (u.n_comparisons != n_comparisons || u.n_scored_comparisons != n_scored)
        out.push_back(label + " counts " + count(u.n_comparisons) + " comparisons (" +
                      count(u.n_scored_comparisons) + " scored) but its passes give " +
                      count(n_comparisons) + " (" + count(n_scored) + ")");
}

void check_comparisons(const Cert& c, Lines& out) {
    const DivergenceReports& d = c.divergence;
    check_union(d.ac, "A vs C", out);
    if (d.bc) check_union(*d.bc, "B vs C", out);
    if (d.ab) check_pair(*d.ab, "A vs B", out);
    if (d.aa_prime) check_pair(*d.aa_prime, "A vs A'", out);
}

// ---- the gates, each settled from its own evidence by decide_verdict's own functions ----

// Each recorded pass's server window; null for a pass the overlap gate records none for.
std::vector<const ServerOverlapEvidence*> pass_servers(const OverlapGate& g) {
    std::vector<const ServerOverlapEvidence*> servers;
    for (std::size_t t = 0; t < g.per_pass_client_depth.size(); ++t)
        servers.push_back(t < g.per_pass.size() ? &g.per_pass[t].server : nullptr);
    return servers;
}

// The verdict's gathered inputs as the cert carries them, every gate settled again, so that the
// precedence can be replayed without the trials.
Verdict gathered_from(const Cert& c) {
    Verdict v;
    v.gates = c.gates;
    v.serial_check = c.divergence.aa_prime;
    v.ac = c.divergence.ac;
    v.ab = c.divergence.ab;
    v.bc = c.divergence.bc;
    record_pair_checks(v.gates, v.serial_check, v.ab, v.bc);
    v.dispatch_n = c.cell.dispatch_n;
    v.kind_signals = evidence_of_kind(c.server);
    if (c.server && c.model_file)
        v.identity_problems =
            model_identity_problems(v.kind_signals, c.server->props, c.server->props_n,
                                    c.cell.dispatch_n, c.model_file->path);
    settle_overlap(v.gates, c.cell.dispatch_n, pass_servers(c.gates.overlap), v.kind_signals);
    settle_lockstep(v.gates.lockstep, c.cell.dispatch_n, v.gates.overlap, v.kind_signals);
    v.concurrency_failures = c.divergence.failed_under_concurrency;
    for (const auto& [mode, n] : v.concurrency_failures) v.n_failed_under_concurrency += n;
    const bool any_pass = c.n_passes() > 0;
    settle_completion_floor(v.gates.completion_floor, any_pass);
    settle_coverage(v.gates.cobatch_coverage, any_pass);
    v.sensitivity = c.sensitivity;
    return v;
}

// A gate's recorded ok and problems against what its evidence settles to; `source` says what
// settled them, with its verb ("its evidence gives").
void check_settled(const std::string& ok_name, const std::string& problems_name,
                   const std::string& source, bool ok, const Lines& problems, bool settled_ok,
                   const Lines& settled_problems, Lines& out) {
    if (ok != settled_ok)
        out.push_back(
            ok_name + " is " + word(ok) + " but " + source + " " +
            (settled_ok ? std::string("no problem") : "\"" + settled_problems.front() + "\""));
    if (problems != settled_problems) out.push_back(problems_name + " are not what " + source);
}

void check_overlap(const Cert& c, const Verdict& v, Lines& out) {
    const OverlapGate& g = c.gates.overlap;
    const auto& coverage = c.gates.cobatch_coverage.per_pass;
    if (g.per_pass_client_depth.size() != c.n_passes())
        out.push_back("overlap lists " + count(g.per_pass_client_depth.size()) +
                      " client depth(s) for " + count(c.n_passes()) + " pass(es)");
    for (std::size_t t = 0; t < g.per_pass_client_depth.size() && t < coverage.size(); ++t)
        if (g.per_pass_client_depth[t] != coverage[t].client_depth)
            out.push_back("overlap gives pass " + count(t + 1) + " client depth " +
                          count(g.per_pass_client_depth[t]) + " but its coverage says " +
                          count(coverage[t].client_depth));
    if (g.client_max_depth != v.gates.overlap.client_max_depth)
        out.push_back("overlap.client_max_depth is " + count(g.client_max_depth) +
                      " but the deepest pass reached " + count(v.gates.overlap.client_max_depth));
    if (g.per_pass.size() != c.n_passes())
        out.push_back("overlap lists server evidence for " + count(g.per_pass.size()) +
                      " pass(es) of " + count(c.n_passes()));
    check_settled("overlap_ok", "overlap.problems", "its evidence gives", g.ok, g.problems,
                  v.gates.overlap.ok, v.gates.overlap.problems, out);
    for (std::size_t t = 0; t < g.per_pass.size() && t < v.gates.overlap.per_pass.size(); ++t)
        if (g.per_pass[t].problems != v.gates.overlap.per_pass[t].problems ||
            g.per_pass[t].client_depth != v.gates.overlap.per_pass[t].client_depth)
            out.push_back("overlap.per_pass[" + count(t) + "] is not what its evidence gives");
}

void check_completion_floor(const Cert& c, const Verdict& v, Lines& out) {
    const CompletionFloorGate& g = c.gates.completion_floor;
    if (g.threshold != kCompletionFloor)
        out.push_back("completion_floor.threshold is " + format_fixed(g.threshold, 3) +
                      " but the verdict's floor is " + format_fixed(kCompletionFloor, 3));
    Ids arms, expected{"A"};
    for (const auto& census : g.arms) arms.push_back(census.arm);
    for (std::size_t t = 1; t <= c.n_passes(); ++t) expected.push_back("C" + count(t));
    std::sort(arms.begin(), arms.end());
    std::sort(expected.begin(), expected.end());
    if (arms != expected)
        out.push_back("completion_floor lists " + count(arms.size()) +
                      " arm(s) but the cert has A" + " and " + count(c.n_passes()) +
                      " pass(es) of C");
    for (const auto& census : g.arms)
        if (census.n_ok > census.n)
            out.push_back("completion_floor arm " + census.arm + " has " + count(census.n_ok) +
                          " ok of only " + count(census.n) + " trials");
    if (g.given_up && (c.n_passes() > 0 || (g.given_up->arm != "A" && g.given_up->arm != "A'")))
        out.push_back("completion_floor.given_up names arm '" + g.given_up->arm +
                      "' but only a serial arm given up ends a cell, and this cert has " +
                      count(c.n_passes()) + " pass(es) of C");
    if (g.ok == v.gates.completion_floor.ok) return;
    std::string why = "A and every C pass meet the floor of " + percent(kCompletionFloor);
    if (c.n_passes() == 0) why = "no concurrent pass ran";
    for (const auto& census : v.gates.completion_floor.arms)
        if (!census.meets(kCompletionFloor)) {
            why = census.arm + " has " + count(census.n_ok) + "/" + count(census.n) + " ok (need " +
                  percent(kCompletionFloor) + ")";
            break;
        }
    out.push_back("completion_floor.ok is " + word(g.ok) + " but " + why);
}

void check_coverage(const Cert& c, const Verdict& v, Lines& out) {
    const CoverageGate& g = c.gates.cobatch_coverage;
    if (g.per_pass.size() != c.n_passes())
        out.push_back("cobatch_coverage lists " + count(g.per_pass.size()) + " pass(es) but the " +
                      "cert has " + count(c.n_passes()));
    for (std::size_t t = 0; t < g.per_pass.size(); ++t) {
        const PassCoverage& got = g.per_pass[t];
        const PassCoverage& expect = v.gates.cobatch_coverage.per_pass[t];
        const std::string at = "cobatch_coverage pass " + count(t + 1);
        if (got.pass != static_cast<int>(t + 1))
            out.push_back(at + " is numbered " + std::to_string(got.pass));
        if (got.n_cobatched > got.n_ids)
            out.push_back(at + ": " + count(got.n_cobatched) + " co-batched of only " +
                          count(got.n_ids) + " ids");
        if (got.required != expect.required)
            out.push_back(at + ": required is " + count(got.required) + " but max(2, ceil(0.8 x " +
                          count(got.n_ids) + ")) is " + count(expect.required));
        if (got.attribution_certain != expect.attribution_certain)
            out.push_back(at + ": attribution_certain is " + word(got.attribution_certain) +
                          " but " + count(got.missing_interval_ids.size()) + " of " +
                          count(got.n_ids) + " ids lack an interval");
        if (got.ok != expect.ok)
            out.push_back(at + ": ok is " + word(got.ok) + " but " + count(got.n_cobatched) +
                          " of " + count(got.n_ids) + " ids were co-batched (need " +
                          count(expect.required) + "), attribution " +
                          (expect.attribution_certain ? "certain" : "uncertain"));
    }
    if (g.checked != v.gates.cobatch_coverage.checked)
        out.push_back("cobatch_coverage.checked is " + word(g.checked) + " but the cert has " +
                      count(c.n_passes()) + " pass(es)");
    if (g.ok != v.gates.cobatch_coverage.ok)
        out.push_back("cobatch_coverage.ok is " + word(g.ok) + " but its passes give " +
                      word(v.gates.cobatch_coverage.ok));
}

std::optional<bool> clean(const std::optional<PairReport>& r) {
    if (!r) return std::nullopt;
    return r->clean();
}

std::optional<bool> clean(const std::optional<UnionReport>& r) {
    if (!r) return std::nullopt;
    return r->clean();
}

// One pass's stream counts against each other and against its ids' windows: what a consistent
// recount can still say of numbers edited together.
void check_pass_streams(const PassLockstep& p, const PassCoverage* coverage, std::int64_t n,
                        const std::string& at, Lines& out) {
    const LockstepEvidence& s = p.streams;
    if (s.n != n)
        out.push_back(at + ": judged at N = " + std::to_string(s.n) +
                      " in a cell of N = " + std::to_string(n));
    std::int64_t steps = 0;
    std::int64_t shared = 0;
    std::int64_t shared_decoding = 0;
    std::size_t cobatched = 0;
    std::vector<Interval> windows;
    for (const auto& id : s.ids) {
        if (id.shared < 0 || id.shared > id.steps || !(id.first_ms <= id.last_ms))
            out.push_back(at + ": id " + id.id + " has " + std::to_string(id.shared) +
                          " shared of " + std::to_string(id.steps) + " steps over [" +
                          format_general(id.first_ms) + ", " + format_general(id.last_ms) + "] ms");
        steps += id.steps;
        shared += id.shared;
        // A one-token answer's step is judged beside the others' decode steps, not among them.
        if (id.first_ms < id.last_ms) shared_decoding += id.shared;
        if (id_cobatched(id.steps, id.shared)) ++cobatched;
        // In microseconds, ends included (a request decodes at its last chunk), as the judge
        // counts them; rounding can only widen a window.
        windows.push_back({static_cast<std::int64_t>(std::floor(id.first_ms * 1000.0)),
                           static_cast<std::int64_t>(std::ceil(id.last_ms * 1000.0)) + 1});
    }
    if (s.lockstep_multi_steps < 0 || s.lockstep_multi_steps > s.multi_steps ||
        s.multi_steps > steps || (n >= 2 && s.full_steps > s.multi_steps))
        out.push_back(at + ": " + std::to_string(s.lockstep_multi_steps) + " of " +
                      std::to_string(s.multi_steps) + " shared steps in lockstep and " +
                      std::to_string(s.full_steps) + " full steps, but its ids have " +
                      std::to_string(steps) + " steps");
    // With N = 1 every step is full and none is shared: the N-wide counts say nothing there.
    if (s.lockstep_full_steps < 0 || s.lockstep_full_steps > s.full_steps || s.full_steps > steps ||
        (n >= 2 && s.lockstep_full_steps > shared))
        out.push_back(at + ": " + std::to_string(s.lockstep_full_steps) + " of " +
                      std::to_string(s.full_steps) + " full steps in lockstep, but its ids have " +
                      std::to_string(shared) + " shared of " + std::to_string(steps) + " steps");
    if (s.peak < 0 || s.peak > n || (shared_decoding > 0) != (s.peak >= 2))
        out.push_back(at + ": peak " + std::to_string(s.peak) + " with N = " + std::to_string(n) +
                      " and " + std::to_string(shared) + " shared steps");
    const std::size_t depth = max_overlap_depth(windows);
    if (depth < 2 && (s.phase >= 0 || shared > 0 || s.multi_steps > 0))
        out.push_back(at +
                      ": no two decode windows overlap, yet a phase, a shared step or a step "
                      "with two decoding is recorded");
    if (s.full_steps > 0 && depth < static_cast<std::size_t>(n))
        out.push_back(at + ": " + std::to_string(s.full_steps) +
                      " steps with N decoding, but at "
                      "most " +
                      count(depth) + " decode windows overlap");
    if (!coverage) return;
    if (coverage->n_judged_by_streams != s.ids.size() || coverage->n_stream_cobatched != cobatched)
        out.push_back(at + ": " + count(cobatched) + " of " + count(s.ids.size()) +
                      " judged ids co-batched, but its coverage counts " +
                      count(coverage->n_stream_cobatched) + " of " +
                      count(coverage->n_judged_by_streams));
    if (coverage->n_cobatched < coverage->n_stream_cobatched)
        out.push_back(at + ": its coverage counts " + count(coverage->n_cobatched) +
                      " co-batched ids, fewer than the " + count(coverage->n_stream_cobatched) +
                      " its streams show");
}

void check_lockstep(const Cert& c, const Verdict& v, Lines& out) {
    const LockstepGate& g = c.gates.lockstep;
    if (!g.checked) return;
    if (g.per_pass.size() != c.n_passes())
        out.push_back("lockstep lists " + count(g.per_pass.size()) + " pass(es) but the cert has " +
                      count(c.n_passes()));
    const auto& coverage = c.gates.cobatch_coverage.per_pass;
    for (std::size_t t = 0; t < g.per_pass.size(); ++t) {
        const PassLockstep& p = g.per_pass[t];
        const std::string at = "lockstep pass " + count(t + 1);
        if (p.pass != static_cast<int>(t + 1))
            out.push_back(at + " is numbered " + std::to_string(p.pass));
        check_pass_streams(p, t < coverage.size() ? &coverage[t] : nullptr, c.cell.dispatch_n, at,
                           out);
        if (t < v.gates.lockstep.per_pass.size() &&
            p.problems != v.gates.lockstep.per_pass[t].problems)
            out.push_back(at + ": its problems are not what its streams give");
    }
    if (g.decided_by != v.gates.lockstep.decided_by)
        out.push_back("lockstep.decided_by is \"" + std::string(name(g.decided_by)) +
                      "\" but the kind's signals give \"" +
                      std::string(name(v.gates.lockstep.decided_by)) + "\"");
    check_settled("lockstep.ok", "lockstep.problems", "its streams give", g.ok, g.problems,
                  v.gates.lockstep.ok, v.gates.lockstep.problems, out);
}

void check_arm_b(const Cert& c, const Verdict& v, Lines& out) {
    const ArmBCheck& b = c.gates.arm_b;
    const DivergenceReports& d = c.divergence;
    if (b.ran != d.ab.has_value())
        out.push_back("arm_b.ran is " + word(b.ran) + " but divergence_report.AB is " +
                      (d.ab ? "present" : "absent"));
    if (b.ab_passed != clean(d.ab))
        out.push_back("arm_b.ab_passed is " + word(b.ab_passed) + " but A vs B lists " +
                      count(d.ab ? d.ab->divergent_ids.size() : 0) + " divergent id(s)");
    if (b.bc_passed != clean(d.bc))
        out.push_back("arm_b.bc_passed is " + word(b.bc_passed) + " but B vs C lists " +
                      count(d.bc ? d.bc->divergent_ids.size() : 0) + " divergent id(s)");
    if (b.serial != v.gates.arm_b.serial)
        out.push_back(
            "arm_b.serial is " + word(b.serial) + " but arm B's server peaks are " +
            std::to_string(v.gates.arm_b.server ? v.gates.arm_b.server->peak_busy_slots : 0) +
            " busy slot(s), " +
            std::to_string(v.gates.arm_b.server ? v.gates.arm_b.server->peak_requests_processing
                                                : 0) +
            " requests_processing");
}

void check_serial_self_check(const Cert& c, Lines& out) {
    const SerialSelfCheck& s = c.gates.serial_self_check;
    const auto& aa = c.divergence.aa_prime;
    if (s.ran != aa.has_value())
        out.push_back("serial_self_check.ran is " + word(s.ran) + " but divergence_report." +
                      "AA_prime is " + (aa ? "present" : "absent"));
    if (!aa) {
        if (s.passed || s.n_compared || s.divergent_ids)
            out.push_back("serial_self_check records a result but no A vs A' comparison");
        return;
    }
    if (s.passed != aa->clean())
        out.push_back("serial_self_check.passed is " + word(s.passed) + " but A vs A' lists " +
                      count(aa->divergent_ids.size()) + " divergent id(s)");
    if (s.n_compared != aa->n_compared || s.divergent_ids != aa->divergent_ids)
        out.push_back("serial_self_check's counts and ids are not those of A vs A'");
}

bool same_figure(const std::optional<double>& a, const std::optional<double>& b) {
    if (a.has_value() != b.has_value()) return false;
    return !a || std::fabs(*a - *b) <= 1e-9;
}

bool same_bound(const RateBound& a, const RateBound& b) {
    return same_figure(a.clopper_pearson_upper, b.clopper_pearson_upper) &&
           same_figure(a.rule_of_three_upper, b.rule_of_three_upper) &&
           same_figure(a.observed_rate, b.observed_rate) &&
           same_figure(a.interval_lower, b.interval_lower) &&
           same_figure(a.interval_upper, b.interval_upper);
}

void check_sensitivity(const Cert& c, Lines& out) {
    // Hot trials are the scored comparisons whose co-batching was proven: at most the scored
    // comparisons, and at most the co-batched ids of the passes.
    const Sensitivity& got = c.sensitivity;
    std::size_t cobatched = 0;
    for (const auto& pass : c.gates.cobatch_coverage.per_pass) cobatched += pass.n_cobatched;
    const std::size_t most = std::min(c.divergence.ac.n_scored_comparisons, cobatched);
    const std::size_t divergent = c.divergence.ac.divergent_ids.size();
    if (got.n_hot_trials > most || got.divergences_seen != divergent ||
        got.per_prompt.divergent != divergent)
        out.push_back("sensitivity counts " + count(got.divergences_seen) + " divergence(s) in " +
                      count(got.n_hot_trials) + " trials but A vs C gives " + count(divergent) +
                      " in at most " + count(most));
    if (!(got.confidence > 0.0 && got.confidence < 1.0)) {
        out.push_back("sensitivity's confidence " + std::to_string(got.confidence) +
                      " is not between 0 and 1");
        return;
    }
    const Sensitivity expect = sensitivity_bounds(recorded_counts(got), got.confidence);
    bool fits = same_figure(got.rule_of_three_upper, expect.rule_of_three_upper) &&
                same_figure(got.clopper_pearson_upper_95, expect.clopper_pearson_upper_95) &&
                same_bound(got.per_trial, expect.per_trial) &&
                same_bound(got.per_prompt, expect.per_prompt) &&
                got.per_pass.size() == expect.per_pass.size();
    for (std::size_t t = 0; fits && t < got.per_pass.size(); ++t)
        fits = got.per_pass[t].pass == expect.per_pass[t].pass &&
               same_bound(got.per_pass[t].bound, expect.per_pass[t].bound);
    if (!fits)
        out.push_back("sensitivity's bounds do not fit " + count(got.divergences_seen) +
                      " divergence(s) in " + count(got.per_trial.n) + " trials");
}

// A planned run's record must fit the passes and the counted trials the cert holds.
void check_plan(const Cert& c, Lines& out) {
    if (!c.plan) return;
    const PassPlanRecord& p = *c.plan;
    if (static_cast<std::size_t>(p.passes_used) != c.n_passes())
        out.push_back("plan.passes_used is " + std::to_string(p.passes_used) +
                      " but the cert has " + count(c.n_passes()) + " pass(es)");
    if (p.trials_counted != c.sensitivity.per_trial.n)
        out.push_back("plan.trials_counted is " + count(p.trials_counted) +
                      " but sensitivity.per_trial counts " + count(c.sensitivity.per_trial.n));
    const bool reached = p.ended == PlanEnd::Reached;
    if (p.reached != reached || (reached && p.trials_counted < p.trials_needed) ||
        (p.ended == PlanEnd::Divergence) != !c.divergence.ac.clean())
        out.push_back("plan.reached is " + word(p.reached) + " but it ended by '" +
                      std::string(name(p.ended)) + "' with " + count(p.trials_counted) + " of " +
                      count(p.trials_needed) + " trials");
}

// ---- the verdict, replayed over the evidence with the one precedence table ----

Verdict replayed(Verdict v) {
    v.decision_reasons.clear();
    apply_rules(v, false);
    return v;
}

void check_verdict(const Cert& c, const Verdict& expect, Lines& out) {
    const CertVerdict& got = c.verdict;
    if (got.status != expect.status)
        out.push_back("status is " + std::string(name(got.status)) + " but the evidence gives " +
                      verdict_summary(expect) + ": " + expect.decision_reasons.front());
    else if (got.divergence_class != expect.divergence_class)
        out.push_back("divergence_class is " + word(got.divergence_class) +
                      " but the evidence gives " + word(expect.divergence_class));
    else if (got.anomaly != expect.anomaly)
        out.push_back("anomaly is " + word(got.anomaly) + " but the evidence gives " +
                      word(expect.anomaly));
    const std::string& last = expect.decision_reasons.back();
    if (got.decision_reasons.empty())
        out.push_back("decision_reasons is empty; its last line must be '" + last + "'");
    else if (got.decision_reasons.back() != last)
        out.push_back("decision_reasons end with '" + got.decision_reasons.back() + "', not '" +
                      last + "'");
    // A cert written before the rule was recorded has none; one that names a rule names the one
    // the evidence fires, and its lines are among the reasons.
    if (got.rule && got.rule->name != expect.rule.name)
        out.push_back("verdict.rule is '" + got.rule->name + "' but the evidence fires '" +
                      expect.rule.name + "'");
    else if (got.rule && got.rule->first_reason >= got.decision_reasons.size())
        out.push_back("verdict.rule.first_reason is " + count(got.rule->first_reason) +
                      " but decision_reasons has " + count(got.decision_reasons.size()) +
                      " line(s)");
}

// ---- the source: a mock's answers relabelled live ----

void check_source(const Cert& c, Lines& out) {
    if (c.source != Source::Live || !c.server) return;
    if (c.server->props.bool_or("bi_mock", false))
        out.push_back("source is live but server.props says bi_mock: the server was the mock");
    else if (c.server->props_n.bool_or("bi_mock", false))
        out.push_back("source is live but server.props_N says bi_mock: the server was the mock");
}

// ---- the cache check: its counts and lists against each other and against its status ----

// The first id `ids` holds twice; nullptr when each is there once.
const std::string* repeated(const Ids& ids) {
    std::set<std::string> seen;
    for (const auto& id : ids)
        if (!seen.insert(id).second) return &id;
    return nullptr;
}

// Its changes against its id lists: an invariant change is a changed id, any other change a
// changed or drift id, invariant ones first; and, when none was left out (fewer than
// kMaxSummaryIds), the lists are exactly the ids of the changes.
void check_cache_changes(const CacheCheck& k, Lines& out) {
    if (k.changes.size() > kMaxSummaryIds)
        out.push_back("cache_check lists " + count(k.changes.size()) + " changes, more than " +
                      count(kMaxSummaryIds));
    const auto listed = [](const std::string& id, const Ids& ids) {
        return std::find(ids.begin(), ids.end(), id) != ids.end();
    };
    std::set<std::string> invariant;
    std::set<std::string> drift;
    bool drift_seen = false;
    for (const auto& change : k.changes) {
        const std::string at =
            "cache_check's change of " + change.test_id + " (" + change.probe + ")";
        if (change.cached <= 0)
            out.push_back(at + " counts " + std::to_string(change.cached) +
                          " cached prompt tokens: the cache served nothing");
        if (change.invariant && drift_seen)
            out.push_back(at + " moved an invariant field but comes after a drift");
        drift_seen = drift_seen || !change.invariant;
        (change.invariant ? invariant : drift).insert(change.test_id);
        const bool changed = listed(change.test_id, k.changed_ids);
        if (change.invariant ? !changed : !changed && !listed(change.test_id, k.drift_ids))
            out.push_back(at + (change.invariant ? " moved an invariant field" : " drifted") +
                          " but its id is not among " +
                          (change.invariant ? "changed_ids" : "changed_ids or drift_ids"));
    }
    if (k.changes.size() >= kMaxSummaryIds) return;
    for (const auto& id : k.changed_ids) drift.erase(id);
    if (std::set<std::string>(k.changed_ids.begin(), k.changed_ids.end()) != invariant ||
        std::set<std::string>(k.drift_ids.begin(), k.drift_ids.end()) != drift)
        out.push_back("cache_check lists " + count(k.changed_ids.size()) + " changed and " +
                      count(k.drift_ids.size()) + " drift id(s) but its changes give " +
                      count(invariant.size()) + " and " + count(drift.size()));
}

void check_cache_record(const Cert& c, Lines& out) {
    if (!c.cache_check) return;
    const CacheCheck& k = *c.cache_check;
    const std::string status = "cache_check is '" + std::string(name(k.status)) + "'";
    if (k.reasons.empty()) out.push_back("cache_check gives no reason");
    const std::pair<const char*, const Ids*> lists[] = {{"not_exercised", &k.not_exercised},
                                                        {"changed_ids", &k.changed_ids},
                                                        {"drift_ids", &k.drift_ids}};
    for (const auto& [key, ids] : lists)
        if (const auto* id = repeated(*ids))
            out.push_back("cache_check." + std::string(key) + " lists " + *id + " twice");
    if (const auto* id = first_with(k.changed_ids, k.drift_ids, true))
        out.push_back("cache_check lists " + *id + " both as changed and as drift");
    const auto served = std::to_string(k.n_served) + " served";
    const auto of_ids = " of " + std::to_string(k.n_ids) + " id(s)";
    if (k.n_ids < 0 || k.n_served < 0 || k.n_cuts < 0 || k.n_served > k.n_ids)
        out.push_back("cache_check counts " + served + of_ids + " and " + std::to_string(k.n_cuts) +
                      " cut(s)");
    const auto n_listed = static_cast<std::int64_t>(k.changed_ids.size() + k.drift_ids.size());
    if (n_listed > k.n_ids)
        out.push_back("cache_check lists " + std::to_string(n_listed) + " changed or drift id(s)" +
                      of_ids);
    // Without a witness nothing is known to have been served: the check stops before counting.
    const bool anything = k.n_served > 0 || k.n_cuts > 0 || !k.not_exercised.empty() ||
                          !k.changed_ids.empty() || !k.drift_ids.empty() || !k.changes.empty();
    if (k.witness.empty() && anything)
        out.push_back(
            "cache_check names no cache witness, yet counts ids the cache served, "
            "changed or did not exercise");
    else if (!k.witness.empty() &&
             k.n_served + static_cast<std::int64_t>(k.not_exercised.size()) != k.n_ids)
        out.push_back("cache_check counts " + served + " and " + count(k.not_exercised.size()) +
                      " not exercised" + of_ids);
    check_cache_changes(k, out);
    switch (k.status) {
        case BaselineStatus::Changed:
            if (k.changed_ids.empty()) out.push_back(status + " but lists no changed id");
            return;
        case BaselineStatus::NotComparable:
            return;
        case BaselineStatus::DriftOnly:
            if (k.drift_ids.empty()) out.push_back(status + " but lists no drift id");
            break;
        case BaselineStatus::Same:
            if (!k.drift_ids.empty())
                out.push_back(status + " but lists " + count(k.drift_ids.size()) + " drift id(s)");
            break;
    }
    if (!k.changed_ids.empty())
        out.push_back(status + " but lists " + count(k.changed_ids.size()) + " changed id(s)");
    // A check under the completion floor, or with nothing served, is not comparable.
    const auto needed = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(kCompletionFloor * static_cast<double>(k.n_ids))));
    if (k.n_served < needed)
        out.push_back(status + " but the cache served only " + std::to_string(k.n_served) + of_ids +
                      ", under the completion floor");
}

}  // namespace

FiredRule deciding_rule(const Cert& cert) {
    if (cert.verdict.rule) return *cert.verdict.rule;
    const Verdict replay = replayed(gathered_from(cert));
    const std::size_t n_reasons = cert.verdict.decision_reasons.size();
    const std::size_t n_fired = std::min(replay.decision_reasons.size(), n_reasons);
    return {replay.rule.name, n_reasons - n_fired};
}

std::vector<std::string> cert_disagreements(const Cert& cert) {
    Lines out;
    check_comparisons(cert, out);
    const Verdict gathered = gathered_from(cert);
    check_overlap(cert, gathered, out);
    check_completion_floor(cert, gathered, out);
    check_coverage(cert, gathered, out);
    check_lockstep(cert, gathered, out);
    check_arm_b(cert, gathered, out);
    check_serial_self_check(cert, out);
    check_sensitivity(cert, out);
    check_plan(cert, out);
    check_verdict(cert, replayed(gathered), out);
    check_source(cert, out);
    check_cache_record(cert, out);
    return out;
}

}  // namespace bi::core
