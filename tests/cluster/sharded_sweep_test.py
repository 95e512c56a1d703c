#!/usr/bin/env python3
"""Mock end to end: a 3-model x 2-ctx x 2-N plan run as one sweep, and split 4 ways as 4
concurrent processes into one directory, gives the same certs and verdicts; a shard killed
mid-run (SIGKILL, by PID) and run again completes the set without redoing finished cells."""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from fleet_common import (cert_essence, certs_in, fingerprints, wait_until,  # noqa: E402
                          write_models_toml)
from process_marks import marked_pids  # noqa: E402

ALIASES = ["alpha", "beta", "gamma"]
CTXS = "256,512"
PARALLELS = "2,4"
N_CELLS = 3 * 2 * 2


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, **kwargs)


def servers_of(pid):
    """The live processes marked as a server tree of the bi-run with this PID."""
    return marked_pids(f"BI_RUN_SERVER_TREE={pid}.".encode())


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def check_same_cert(left_dir, right_dir, name, what):
    left = cert_essence(os.path.join(left_dir, name))
    right = cert_essence(os.path.join(right_dir, name))
    differs = {key: (left[key], right.get(key)) for key in left if left[key] != right.get(key)}
    if differs:
        reasons = []
        for directory in (left_dir, right_dir):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                reasons.append(json.load(f).get("decision_reasons"))
        check(False, f"{name} {what}: {differs}; the reasons: {reasons[0]} vs {reasons[1]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bi-run", required=True)
    parser.add_argument("--mock-server", required=True)
    parser.add_argument("--workset", required=True)
    a = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bi-shards-") as tmp:
        models = write_models_toml(tmp, a.mock_server, ALIASES)
        # Sent together: the mock runs a request alone in its batch flat out after one step
        # (fleet_common), so a staggered pass's first request would end before the next joined.
        common = ["--models-toml", models, "--models-dir", tmp, "--workset", a.workset,
                  "--n-predict", "8", "--passes", "1", "--ctx", CTXS, "--parallel", PARALLELS,
                  "--arrivals", "together"]

        def plan_for(out_dir, name):
            path = os.path.join(tmp, name)
            r = run([a.bi_run, "plan", "--all-profiles", *common, "--out-dir", out_dir,
                     "--output", path])
            check(r.returncode == 0, f"bi-run plan failed: {r.stderr}")
            check(f"6 group(s), {N_CELLS} cell(s)" in r.stderr, r.stderr)
            return path

        # One process, the whole plan.
        whole_dir = os.path.join(tmp, "whole")
        whole_plan = plan_for(whole_dir, "whole.json")

        # Refusals, each one line and exit 2, before anything runs.
        refusals = [
            (["sweep", "--plan", whole_plan, "--ctx", "4096"], "--ctx: with --plan"),
            (["sweep", "--plan", whole_plan, "--shard", "4/4"], "--shard 4/4: expected K/M"),
            (["sweep", "--plan", whole_plan, "--shard-count", "3"], "needs an index"),
            (["sweep", "--shard", "0/2", "--profile", "alpha", *common, "--out-dir", whole_dir],
             "give --plan too"),
            (["plan", "--all-profiles", "--model-alias", "x", *common, "--out-dir", whole_dir],
             "--model-alias names one model"),
            (["plan", "--all-profiles", "--port", "8080", *common, "--out-dir", whole_dir],
             "each picks its own free port"),
        ]
        for argv, message in refusals:
            r = run([a.bi_run, *argv])
            check(r.returncode == 2 and message in r.stderr and r.stderr.count("\n") == 1,
                  f"{argv}: exit {r.returncode}: {r.stderr}")
        with open(whole_plan) as f:
            text = f.read()
        check('"passes": 1' in text, "the plan stores passes as a typed field")
        check('"options"' not in text, "the plan stores no command-line words")
        edited = text.replace('"passes": 1', '"passes": 2')
        edited_plan = os.path.join(tmp, "edited.json")
        with open(edited_plan, "w") as f:
            f.write(edited)
        r = run([a.bi_run, "sweep", "--plan", edited_plan])
        check(r.returncode == 2 and "does not match the plan's content" in r.stderr, r.stderr)
        check(not os.path.exists(whole_dir), "a refused sweep wrote its directory")
        env = dict(os.environ, SLURM_ARRAY_TASK_ID="9", SLURM_ARRAY_TASK_COUNT="4",
                   SLURM_ARRAY_TASK_MIN="1")
        r = run([a.bi_run, "sweep", "--plan", whole_plan], env=env)
        check(r.returncode == 2 and "SLURM_ARRAY_TASK_ID gives shard 8, outside 0..3" in r.stderr,
              r.stderr)
        r = run([a.bi_run, "sweep", "--plan", whole_plan, "--quiet"])
        check(r.returncode == 3, f"the whole sweep: exit {r.returncode}: {r.stderr}")
        check("the whole plan" in r.stderr, r.stderr)
        check(len(certs_in(whole_dir)) == N_CELLS, f"whole: {certs_in(whole_dir)}")

        # The plain sweep of one model gives the same certs as its groups of the plan.
        plain_dir = os.path.join(tmp, "plain")
        r = run([a.bi_run, "sweep", "--profile", "beta", *common, "--out-dir", plain_dir,
                 "--quiet"])
        check(r.returncode == 3, f"plain sweep: {r.stderr}")
        for name in certs_in(plain_dir):
            check_same_cert(plain_dir, whole_dir, name, "differs in the plain sweep")
        check(len(certs_in(plain_dir)) == N_CELLS // 3, certs_in(plain_dir))

        # Four shards at once into one directory.
        shard_dir = os.path.join(tmp, "sharded")
        shard_plan = plan_for(shard_dir, "sharded.json")
        shards = [subprocess.Popen([a.bi_run, "sweep", "--plan", shard_plan, "--shard",
                                    f"{k}/4", "--quiet"], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True) for k in range(4)]
        outputs = [p.communicate(timeout=120) for p in shards]
        for k, p in enumerate(shards):
            check(p.returncode == 3, f"shard {k}/4: exit {p.returncode}: {outputs[k][1]}")
            check(f"shard {k}/4 (--shard {k}/4)" in outputs[k][1], outputs[k][1])
        check(certs_in(shard_dir) == certs_in(whole_dir),
              f"sharded {certs_in(shard_dir)} vs whole {certs_in(whole_dir)}")
        for name in certs_in(whole_dir):
            check_same_cert(shard_dir, whole_dir, name, "differs when sharded")
        check(not [n for n in os.listdir(shard_dir) if n.endswith(".lock")], "locks left")

        # Kill shard 0 (groups 0 and 4) after its first cert, by PID; the others finish.
        kill_dir = os.path.join(tmp, "killed")
        kill_plan = plan_for(kill_dir, "killed.json")
        procs = [subprocess.Popen([a.bi_run, "sweep", "--plan", kill_plan, "--shard", f"{k}/4",
                                   "--quiet"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for k in range(4)]
        first = os.path.join(kill_dir, "alpha__ctx256__N2.json")
        wait_until(lambda: os.path.exists(first), 60, first)
        os.kill(procs[0].pid, signal.SIGKILL)
        procs[0].wait(timeout=30)
        check(procs[0].returncode == -signal.SIGKILL, f"shard 0 exit {procs[0].returncode}")
        # SIGKILL leaves bi-run no moment to stop the server it launched: end it here, found by
        # the mark bi-run gives every server it starts, so nothing of this test outlives it.
        for pid in servers_of(procs[0].pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_until(lambda: not servers_of(procs[0].pid), 10, "the killed shard's server to go")
        for k in (1, 2, 3):
            procs[k].communicate(timeout=120)
            check(procs[k].returncode == 3, f"shard {k}/4 exit {procs[k].returncode}")
        before = fingerprints(kill_dir)
        check(len(before) < N_CELLS, "shard 0 finished before it was killed")
        report = run([a.bi_run, "report", "--plan", kill_plan])
        check(report.returncode == 0, report.stderr)
        check("\nplan plan-" in report.stdout, report.stdout)
        check(f"{len(before)} of {N_CELLS} cell(s) certified" in report.stdout, report.stdout)
        # Shard 0 died in group 0 holding its remaining cells; group 4 never started.
        check("  stale lock  alpha__ctx256__N4.json  (pid " in report.stdout and
              "is not running" in report.stdout, report.stdout)
        check("  missing  gamma__ctx256__N2.json\n" in report.stdout, report.stdout)

        r = run([a.bi_run, "sweep", "--plan", kill_plan, "--shard", "0/4", "--quiet"])
        check(r.returncode == 3, f"rerun of shard 0: exit {r.returncode}: {r.stderr}")
        after = fingerprints(kill_dir)
        check(sorted(after) == certs_in(whole_dir), f"after the rerun: {sorted(after)}")
        for name, fingerprint in before.items():
            check(after[name] == fingerprint, f"{name} was redone by the rerun")
        kept = [n for n in before if n.startswith(("alpha__ctx256__", "gamma__ctx256__"))]
        check(f"{len(kept)} certified before" in r.stderr, r.stderr)
        check("skipping alpha__ctx256__N2.json: done, same configuration cfg-" in r.stderr,
              r.stderr)
        check("took over the stale lock" in r.stderr, r.stderr)
        redone = N_CELLS - len(before)
        check(f"{redone} cell(s) run" in r.stderr, r.stderr)
        for name in certs_in(whole_dir):
            check_same_cert(kill_dir, whole_dir, name, "differs after the resume")
        report = run([a.bi_run, "report", "--plan", kill_plan])
        check(f"{N_CELLS} of {N_CELLS} cell(s) certified" in report.stdout, report.stdout)
        print(f"ok: {N_CELLS} cells, 4 shards agree with one sweep; the killed shard's rerun "
              f"kept {len(before)} certs and ran {redone} cells")


if __name__ == "__main__":
    main()
