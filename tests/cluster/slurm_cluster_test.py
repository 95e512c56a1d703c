#!/usr/bin/env python3
"""A real single-node Slurm cluster, started and stopped by this test: munged, slurmctld and
slurmd from Debian's munge and slurm-wlm, all state in a temp dir, ports picked free. Submits
examples/cluster/slurm-array.sbatch for a plan on bi-mock-server (no GPU needed: the node
advertises stand-in gres), waits for the array and the dependent report job, and checks the
certs against one local sweep of the same plan and the merged report. Daemons are stopped by
PID, on failure too. Exit 77 (skipped) where it cannot run: not root, or no slurm-wlm/munge."""
import argparse
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleet_common import cert_essence, certs_in, wait_until, write_models_toml  # noqa: E402

SKIP = 77
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "sinfo", "scontrol")
ALIASES = ["alpha", "beta"]


def skip(why):
    print(f"SKIPPED: {why}")
    sys.exit(SKIP)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find(program):
    for d in ("/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        path = os.path.join(d, program)
        if os.access(path, os.X_OK):
            return path
    return shutil.which(program)


class Cluster:
    """The daemons this test started, by PID; stop() ends only those."""

    def __init__(self, root):
        self.root = root
        self.procs = []
        self.host = socket.gethostname().split(".")[0]
        self.conf = os.path.join(root, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def path(self, name):
        return os.path.join(self.root, name)

    def start(self):
        for d in ("state", "spool", "munge"):
            os.makedirs(self.path(d), mode=0o700)
        key = self.path("munge/munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        sock = self.path("munge/munge.socket")
        self.spawn([find("munged"), "--foreground", "--force", f"--key-file={key}",
                    f"--socket={sock}", f"--pid-file={self.path('munge/munged.pid')}",
                    f"--log-file={self.path('munge/munged.log')}",
                    f"--seed-file={self.path('munge/munged.seed')}"], "munged")
        wait_until(lambda: os.path.exists(sock), 20, "the munge socket")

        cpus = os.cpu_count() or 1
        with open(self.conf, "w") as f:
            f.write("\n".join([
                "ClusterName=bitest",
                f"SlurmctldHost={self.host}(127.0.0.1)",
                f"SlurmctldPort={free_port()}",
                f"SlurmdPort={free_port()}",
                "SlurmUser=root",
                "SlurmdUser=root",
                "AuthType=auth/munge",
                "CredType=cred/munge",
                f"AuthInfo=socket={sock}",
                f"StateSaveLocation={self.path('state')}",
                f"SlurmdSpoolDir={self.path('spool')}",
                f"SlurmctldPidFile={self.path('slurmctld.pid')}",
                f"SlurmdPidFile={self.path('slurmd.pid')}",
                f"SlurmctldLogFile={self.path('slurmctld.log')}",
                f"SlurmdLogFile={self.path('slurmd.log')}",
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core",
                "SchedulerType=sched/builtin",
                "AccountingStorageType=accounting_storage/none",
                "JobAcctGatherType=jobacct_gather/none",
                "JobCompType=jobcomp/none",
                "MpiDefault=none",
                "ReturnToService=2",
                "MailProg=/bin/true",
                "GresTypes=gpu",
                f"NodeName={self.host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 "
                "Gres=gpu:4 State=UNKNOWN",
                f"PartitionName=test Nodes={self.host} Default=YES MaxTime=INFINITE State=UP",
                "",
            ]))
        # Stand-in GPUs: four character devices like /dev/null, so the node advertises four
        # GPUs, --gres=gpu:1 schedules as on a GPU cluster and Slurm sets CUDA_VISIBLE_DEVICES;
        # bi-mock-server uses none of them.
        for i in range(4):
            os.mknod(self.path(f"gpu{i}"), stat.S_IFCHR | 0o600, os.makedev(1, 3))
        with open(self.path("gres.conf"), "w") as f:
            f.write(f"NodeName={self.host} Name=gpu File={self.path('gpu')}[0-3]\n")
        self.spawn([find("slurmctld"), "-D", "-i", "-f", self.conf], "slurmctld")
        self.spawn([find("slurmd"), "-D", "-f", self.conf, "-N", self.host], "slurmd")

        def node_idle():
            for name, proc in self.procs:
                if proc.poll() is not None:
                    raise AssertionError(f"slurm cannot start here: {name} exited with "
                                         f"{proc.returncode} (its log follows)")
            r = subprocess.run([find("sinfo"), "-h", "-n", self.host, "-o", "%T"],
                               env=self.env, capture_output=True, text=True)
            return r.returncode == 0 and r.stdout.strip().rstrip("*") == "idle"
        wait_until(node_idle, 60, "the node to be idle in sinfo (slurm did not start)")

    def spawn(self, argv, name):
        log = open(self.path(f"{name}.stdout"), "w")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                start_new_session=True)
        self.procs.append((name, proc))
        if proc.poll() is not None:
            raise AssertionError(f"{name} exited at once with {proc.returncode}")

    def dump_logs(self):
        for name in ("munge/munged.log", "slurmctld.log", "slurmd.log", "munged.stdout",
                     "slurmctld.stdout", "slurmd.stdout"):
            path = self.path(name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    tail = f.read()[-3000:]
                print(f"--- {name} (tail)\n{tail}")

    def stop(self):
        for name, proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for name, proc in reversed(self.procs):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                print(f"{name} (pid {proc.pid}) ignored SIGTERM for 15 s: SIGKILL")
                proc.kill()
                proc.wait(timeout=10)

    def run(self, argv, extra_env=None, **kwargs):
        return subprocess.run(argv, env=dict(self.env, **(extra_env or {})), capture_output=True,
                              text=True, timeout=60, **kwargs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bi-run", required=True)
    parser.add_argument("--mock-server", required=True)
    parser.add_argument("--workset", required=True)
    parser.add_argument("--sbatch-script", required=True)
    a = parser.parse_args()
    for name in ("bi_run", "mock_server", "workset", "sbatch_script"):
        setattr(a, name, os.path.abspath(getattr(a, name)))  # jobs run in another directory

    if os.geteuid() != 0:
        skip("the single-node Slurm cluster needs root (munged and slurmd run as root)")
    missing = [p for p in DAEMONS + CLIENTS if not find(p)]
    if missing:
        skip("not installed: " + ", ".join(missing) +
             " (apt-get install slurm-wlm munge; scripts/run-tests.sh installs them)")

    tmp = tempfile.mkdtemp(prefix="bi-slurm-")
    os.chmod(tmp, 0o700)
    cluster = Cluster(tmp)
    ok = False
    try:
        cluster.start()
        models = write_models_toml(tmp, a.mock_server, ALIASES)
        common = ["--models-toml", models, "--models-dir", tmp, "--workset", a.workset,
                  "--n-predict", "6", "--passes", "1", "--ctx", "256,512", "--parallel", "2,3"]
        n_cells = len(ALIASES) * 2 * 2

        def plan_for(out_dir, name):
            path = os.path.join(tmp, name)
            r = subprocess.run([a.bi_run, "plan", "--all-profiles", *common, "--out-dir",
                                out_dir, "--output", path], capture_output=True, text=True)
            if r.returncode != 0:
                raise AssertionError(f"bi-run plan: {r.stderr}")
            return path

        local_dir = os.path.join(tmp, "local")
        r = subprocess.run([a.bi_run, "sweep", "--plan", plan_for(local_dir, "local.json"),
                            "--quiet"], capture_output=True, text=True, timeout=240)
        assert r.returncode == 3, f"local sweep: exit {r.returncode}: {r.stderr}"

        slurm_dir = os.path.join(tmp, "slurm")
        plan = plan_for(slurm_dir, "plan.json")
        env = dict(BI_RUN=a.bi_run, BI_MAX_RUNNING="2",
                   BI_REPORT_OUTPUT=os.path.join(tmp, "report-%j.out"),
                   BI_SBATCH_ARGS=f"--cpus-per-task=1 --chdir={tmp}")
        submit = cluster.run([a.sbatch_script, plan], extra_env=env, cwd=tmp)
        assert submit.returncode == 0, f"submitting: {submit.stdout} {submit.stderr}"
        words = submit.stdout.split()
        array_job, report_job = words[2], words[-1]
        print(submit.stdout.strip())

        def all_done():
            q = cluster.run([find("squeue"), "-h", "-j", f"{array_job},{report_job}", "-o", "%i"])
            return q.returncode == 0 and not q.stdout.strip()
        wait_until(all_done, 240, f"jobs {array_job} and {report_job} to leave the queue")

        report_path = os.path.join(tmp, f"report-{report_job}.out")
        assert os.path.exists(report_path), f"no report output {report_path}"
        with open(report_path) as f:
            report = f.read()
        print(report)
        assert certs_in(slurm_dir) == certs_in(local_dir), \
            f"slurm {certs_in(slurm_dir)} vs local {certs_in(local_dir)}"
        assert len(certs_in(slurm_dir)) == n_cells
        for name in certs_in(local_dir):
            assert cert_essence(os.path.join(slurm_dir, name)) == \
                cert_essence(os.path.join(local_dir, name)), f"{name} differs"
        assert f": {n_cells} of {n_cells} cell(s) certified in {slurm_dir}" in report, report
        for name in certs_in(slurm_dir):  # the GPU Slurm gave each task, as it set it
            with open(os.path.join(slurm_dir, name)) as f:
                host = json.load(f)["host"]
            assert host.get("cuda_visible_devices") is not None, f"{name}: {host}"
        assert "\nplan plan-" in report, report
        task_logs = sorted(n for n in os.listdir(tmp) if n.startswith(f"bi-sweep-{array_job}_"))
        assert len(task_logs) == 4, f"array task outputs: {task_logs}"
        for name in task_logs:
            with open(os.path.join(tmp, name)) as f:
                text = f.read()
            assert "Slurm job array (SLURM_ARRAY_TASK_ID=" in text, text
        ok = True
        print(f"ok: {len(task_logs)} array tasks and the report job on Slurm; {n_cells} certs "
              "match the local sweep")
    finally:
        if not ok:
            cluster.dump_logs()
        cluster.stop()
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"(kept {tmp} for inspection)")


if __name__ == "__main__":
    main()
