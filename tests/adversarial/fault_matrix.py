#!/usr/bin/env python3
"""The fault matrix: every way we know to attack bi-run, run against the real binary.

Each case is one bi-run command with one hostile input, server or plugin. A case passes when
bi-run ends within its time bound with the expected exit status and a one-line message that
says what went wrong, writes no cert (and leaves a cert already there byte for byte) or, where
the server answered but failed too many requests, an UNVERIFIED cert that says so, and
leaves no process behind: every process of the case carries a marker in its environment, and
/proc must hold none of them afterwards. Prints one line per case and the totals; exits 1 if
any case failed.

usage: fault_matrix.py --build-dir DIR --source-dir DIR [--only SUBSTRING] [--list]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from process_marks import marked_pids  # noqa: E402

MOCK_CERT = "bi-mock__ctx2048__N4.json"
LIVE_CERT = "fake__ctx512__N4.json"


class Case:
    def __init__(self, name, argv, exit_codes, message, *, timeout=60, env=None,
                 setup=None, signal_when=None, cert=None, one_line=True, verdict=False):
        self.name = name
        self.argv = argv              # a list; "{out}", "{dir}", "{fake}"... are filled in
        self.exit_codes = set(exit_codes)
        self.message = message        # a substring of stderr
        self.timeout = timeout        # seconds bi-run may take, deadlines included
        self.env = env or {}
        self.setup = setup            # f(scratch_dir) run before bi-run
        self.signal_when = signal_when  # (signal, f(scratch_dir) -> bool): sent once f holds
        self.cert = cert              # the cert path a run would write, relative to {out}
        self.one_line = one_line
        # True: the run may reach a verdict (the hostile server cost it its evidence), so a cert
        # may be written, but it must not be GREEN. "any": an honest server behind an odd
        # process tree, whose GREEN is earned. "unverified": a cert must be written, UNVERIFIED
        # by the completion floor of a serial arm given up (verdict.rule serial_given_up).
        self.verdict = verdict


def wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def run_case(case, paths):
    scratch = tempfile.mkdtemp(prefix="bi-fault-")
    try:
        out = os.path.join(scratch, "out")
        values = dict(paths, out=out, dir=scratch)
        argv = [a.format(**values) for a in case.argv]
        if case.setup:
            case.setup(scratch)
        sentinel = None
        if case.cert:
            os.makedirs(out, exist_ok=True)
            sentinel = os.path.join(out, case.cert)
            with open(sentinel, "w") as f:
                f.write("an earlier cert\n")
        marker = "BI_FAULT_MARKER=" + uuid.uuid4().hex
        env = dict(os.environ, **{k: v.format(**values) for k, v in case.env.items()})
        env["BI_FAULT_MARKER"] = marker.split("=", 1)[1]
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=env)
        problems = []
        if case.signal_when:
            signum, ready = case.signal_when
            if wait_for(lambda: ready(scratch) or proc.poll() is not None, case.timeout):
                if proc.poll() is None:
                    proc.send_signal(signum)
            else:
                problems.append("the moment to signal never came")
        try:
            stdout, stderr = proc.communicate(timeout=case.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            problems.append(f"still running after {case.timeout} s (killed)")
        elapsed = time.monotonic() - start
        err = stderr.decode("utf-8", "replace")
        if proc.returncode not in case.exit_codes:
            problems.append(f"exit {proc.returncode}, expected {sorted(case.exit_codes)}")
        if case.message not in err:
            problems.append(f"stderr lacks {case.message!r}")
        # Warnings and a plugin's own log lines may come first; the outcome is one line.
        lines = [line for line in err.splitlines()
                 if not line.startswith(("bi-run: warning:", "bi: plugin faulty:"))]
        if case.one_line and len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr, expected one")
        if case.verdict:
            certs = [n for n in os.listdir(out) if n.endswith(".json")] if os.path.isdir(out) else []
            if case.verdict == "unverified" and not certs:
                problems.append("no cert written")
            for name in certs:
                with open(os.path.join(out, name)) as f:
                    cert = json.load(f)
                status = cert.get("status")
                if status == "green" and case.verdict != "any":
                    problems.append(f"{name} is GREEN")
                rule = (cert.get("rule") or {}).get("name")
                if case.verdict == "unverified" and (status, rule) != ("green_unverified",
                                                                       "serial_given_up"):
                    problems.append(f"{name} is {status} by {rule}, not green_unverified by "
                                    "serial_given_up")
        elif sentinel:
            with open(sentinel) as f:
                if f.read() != "an earlier cert\n":
                    problems.append("the earlier cert was overwritten")
        elif os.path.isdir(out):
            certs = [n for n in os.listdir(out) if n.endswith(".json")]
            if certs:
                problems.append(f"cert written: {certs}")
        if not wait_for(lambda: not marked_pids(marker.encode()), 5):
            left = marked_pids(marker.encode())
            problems.append(f"processes left behind: {left}")
            for pid in left:  # ours: they carry this case's marker
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        return problems, elapsed, proc.returncode, err.strip().splitlines()[:1]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def write(name, content, mode="w"):
    def setup(scratch):
        with open(os.path.join(scratch, name), mode) as f:
            f.write(content)
    return setup


def mkfifo(name):
    return lambda scratch: os.mkfifo(os.path.join(scratch, name))


def cases():
    mock = ["{bi_run}", "run-mock", "--out-dir", "{out}", "--quiet"]
    live = ["{bi_run}", "run-live", "--server-bin", "{fake}", "--model", "{dir}/model.gguf",
            "--model-alias", "fake", "--ctx", "512", "--parallel", "4", "--passes", "2",
            "--workset", "{small_workset}", "--n-predict", "8", "--out-dir", "{out}", "--quiet",
            "--ready-timeout", "20", "--req-timeout", "5", "--shutdown-grace", "2"]
    model = write("model.gguf", "not really a model")
    c = []
    usage = {2}

    # Options.
    for flag, value, message in [
            ("--passes", "abc", "--passes: 'abc' is not an integer"),
            ("--passes", "nan", "--passes: 'nan' is not an integer"),
            ("--passes", "0", "--passes must be at least 1"),
            ("--req-timeout", "inf", "--req-timeout: 'inf' is not a number"),
            ("--req-timeout", "1e300", "--req-timeout: expected a number of seconds"),
            ("--req-timeout", "-1", "--req-timeout must be positive"),
            ("--arm-deadline", "1e7", "--arm-deadline: expected a number of seconds"),
            ("--seed", "-1", "--seed: '-1' is not a whole number (0 or more)"),
            ("--ctx", "1e12", "--ctx 1e12: expected a whole number"),
            ("--ctx", "4294967296", "at most 2147483647"),
            ("--parallel", "100000", "--parallel 100000: at most 4096"),
            ("--divergence-p", "nan", "--divergence-p: 'nan' is not a number"),
            ("--tick-ms", "-5", "--tick-ms must be between 0 and 60000"),
            ("--loading-seconds", "1e300", "--loading-seconds must be between 0 and 3600"),
            ("--kv-label", "bogus", "--kv-label bogus: not a llama.cpp cache type"),
            ("--model-alias", "../../x", "not a plain model name"),
            ("--logprobs", "21", "--logprobs must be at most 20"),
            ("--endpoint", "grpc", "--endpoint must be chat or completion"),
            ("--plugin-timeout", "0", "--plugin-timeout must be positive")]:
        c.append(Case(f"option {flag} {value}", mock + [flag, value], usage, message))
    c.append(Case("unknown option", mock + ["--bogus"], usage, "unknown option --bogus"))
    c.append(Case("stray word", mock + ["stray"], usage, "unexpected argument 'stray'"))
    c.append(Case("argument not UTF-8", mock + ["--model-alias", "caf\udcc3"], usage,
                  "is not valid UTF-8"))
    c.append(Case("ctx x N overflow (run-live)", live + ["--ctx", "2000000000"], usage,
                  "at most 2147483647", setup=model))
    c.append(Case("shapeless model, huge ctx x N", live + ["--ctx", "131072"], usage,
                  "its GGUF shape (layers, heads) is unreadable", setup=model))

    # Work-set files.
    for name, setup, message in [
            ("work-set is a directory", lambda s: os.mkdir(os.path.join(s, "ws.json")),
             "it is a directory"),
            # A FIFO is read as a stream; one no process writes to ends at the read deadline.
            ("work-set is a FIFO nobody writes", mkfifo("ws.json"), "no end within 1 s"),
            ("work-set is /dev/zero", None, "it is a character device"),
            ("work-set nested 100000 deep", write("ws.json", "[" * 100000), "nested deeper"),
            ("work-set with a NUL and junk", write("ws.json", '[{"prompt": "a"}]\0junk'),
             "a NUL byte"),
            ("work-set family not UTF-8", write("ws.json", b'[{"prompt": "a", "family": "\xff"}]',
                                                "wb"), "rows[0]: invalid UTF-8"),
            ("work-set over the size limit", write("ws.json", '[{"prompt": "' + "a" * 4096 + '"}]'),
             "larger than the limit"),
            ("work-set empty", write("ws.json", "[]"), "the work-set is empty"),
            ("work-set not an array", write("ws.json", '{"prompt": "a"}'), "a JSON array"),
            ("work-set row without prompt", write("ws.json", '[{"family": "x"}]'), "missing")]:
        path = "/dev/zero" if setup is None else "{dir}/ws.json"
        env = {"BI_MAX_INPUT_BYTES": "1024"} if "size limit" in name else None
        if "FIFO" in name:
            env = {"BI_INPUT_STREAM_SECONDS": "1"}
        c.append(Case(name, mock + ["--workset", path], usage, message, setup=setup, env=env,
                      cert=MOCK_CERT))

    # models.toml.
    prof = ["{bi_run}", "run-live", "--profile", "m", "--models-toml", "{dir}/models.toml",
            "--out-dir", "{out}", "--dry-run"]
    for name, setup, message in [
            ("models.toml is a FIFO", mkfifo("models.toml"), "it is a FIFO"),
            ("models.toml is a directory", lambda s: os.mkdir(os.path.join(s, "models.toml")),
             "it is a directory"),
            ("models.toml is not TOML", write("models.toml", "[[[x"), "invalid TOML"),
            ("models.toml not UTF-8", write("models.toml", b'[m]\ngguf = "\xff"\n', "wb"),
             "models.toml")]:
        c.append(Case(name, prof, usage, message, setup=setup))

    # verify-cert.
    vc = ["{bi_run}", "verify-cert", "{dir}/cert.json"]
    for name, setup, message in [
            ("verify-cert on a FIFO", mkfifo("cert.json"), "it is a FIFO"),
            ("verify-cert on a directory", lambda s: os.mkdir(os.path.join(s, "cert.json")),
             "it is a directory"),
            ("verify-cert, a NUL then junk", write("cert.json", "{}\0junk"), "a NUL byte"),
            ("verify-cert, nested 100000 deep", write("cert.json", "[" * 100000),
             "nested deeper"),
            ("verify-cert, not UTF-8", write("cert.json", b'{"a": "\xc3"}', "wb"),
             "invalid UTF-8")]:
        c.append(Case(name, vc, {1}, message, setup=setup, one_line=False))
    c.append(Case("verify-cert on /dev/zero", ["{bi_run}", "verify-cert", "/dev/zero"], {1},
                  "it is a character device", one_line=False))

    # Plugins: each fault contained by the plugin host.
    for fault, message in [("segv", "score() crashed (signal 11"),
                           ("abort", "score() crashed (signal 6"),
                           ("stack", "score() crashed"),
                           ("exit0", "score() exited the plugin host with status 0"),
                           ("fork", "score() crashed"),
                           ("garbage", "plugin"),
                           ("huge", "plugin"),
                           ("loop", "did not return within 1 s (--plugin-timeout)")]:
        c.append(Case(f"scorer plugin: {fault}",
                      mock + ["--plugin", "{fixtures}/libfaulty_" + fault + ".so",
                              "--scorer", "faulty", "--plugin-timeout", "1"],
                      {1}, message, cert=MOCK_CERT))
    c.append(Case("plugin entry segfaults at load",
                  ["{bi_run}", "plugins", "--plugin", "{fixtures}/libfaulty_segv_entry.so"], {1},
                  "load() crashed"))
    c.append(Case("generator plugin segfaults",
                  mock + ["--plugin", "{fixtures}/libfaulty_segv_generate.so", "--generator",
                          "faulty-gen"], {1}, "generate() crashed", cert=MOCK_CERT))
    c.append(Case("plugin path is a FIFO", mock + ["--plugin", "{dir}/p.so"], usage, "p.so",
                  setup=mkfifo("p.so")))
    c.append(Case("generator parameter refused before launch",
                  mock + ["--profile", "spark", "--generator-param", "families=ZZ9"], usage,
                  "unknown family 'ZZ9'", cert=MOCK_CERT))

    # Servers that drip, flood, nest, fork, hide or ignore SIGTERM.
    def fake(*knobs):
        return live + ["--server-flag=" + k for k in knobs]
    c.append(Case("server drips /health", fake("--fake-drip-health", "--fake-drip-ms=200") +
                  ["--ready-timeout", "2"], {1}, "not ready after 2 s", setup=model,
                  cert=LIVE_CERT, timeout=15))
    c.append(Case("server slow to start", fake("--fake-slow-start=30") + ["--ready-timeout", "1"],
                  {1}, "not ready after 1 s", setup=model, cert=LIVE_CERT, timeout=15))
    c.append(Case("server forks and exits", fake("--fake-fork-exit"), {1}, "", setup=model,
                  cert=LIVE_CERT, timeout=30, one_line=False))
    # A server that stops answering (its requests time out) leaves no verdict: arm A is given
    # up, exit 1, and the earlier cert stays.
    for knobs, message in [(("--fake-drip-completion", "--fake-drip-ms=300"),
                            "given up: the first 2 request(s) to finish all timed out"),
                           (("--fake-hang-after=3",),
                            "given up: the last 2 request(s) to finish all timed out (1 s each) "
                            "after 3 finished: the server stopped answering")]:
        c.append(Case("server: " + " ".join(knobs), fake(*knobs) + ["--req-timeout", "1", "--arm-deadline", "3"], {1},
                      "arm A (serial, 1 slot) " + message, setup=model, cert=LIVE_CERT, timeout=60))
    # A server that answers, but with failures beyond the completion floor (500s, bodies too
    # large or unreadable): arm A is given up, and every cell's cert is UNVERIFIED by it, exit 3.
    floor = "given up: 2 of 8 request(s) failed"
    for knobs, modes in [(("--fake-fail-first=2",), "(http_error x2)"),
                         (("--fake-endless-body",), "(bad_response x2)"),
                         (("--fake-huge-length",), "(bad_response x2)"),
                         (("--fake-nested-json=100000",), "(bad_response x2)")]:
        c.append(Case("server: " + " ".join(knobs), fake(*knobs) + ["--req-timeout", "1", "--arm-deadline", "3"], {3},
                      "arm A (serial, 1 slot) " + floor + " " + modes, setup=model,
                      cert=LIVE_CERT, timeout=60, verdict="unverified"))
    for knobs in [("--fake-grandchild",), ("--fake-setsid",), ("--fake-setsid", "--fake-ignore-term")]:
        c.append(Case("server tree: " + " ".join(knobs), fake(*knobs), {0, 3}, "", setup=model,
                      timeout=60, one_line=False, verdict="any"))

    # Signals: the run stops, the server goes, no cert.
    def log_exists(scratch):
        out = os.path.join(scratch, "out")
        return os.path.isdir(out) and any(n.endswith(".server.log") for n in os.listdir(out))
    for signum, code in [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]:
        c.append(Case(f"{signal.Signals(signum).name} during a live run", live, {code},
                      "interrupted", setup=model, signal_when=(signum, log_exists),
                      cert=LIVE_CERT, timeout=8))
    return c


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    parser.add_argument("--case", help="run the one case of exactly this name (one CTest each)")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    bin_dir = os.path.join(args.build_dir, "bin")
    paths = {
        "bi_run": os.path.join(bin_dir, "bi-run"),
        "fixtures": os.path.join(args.build_dir, "tests", "plugins", "fixtures"),
        "fake": os.path.join(args.source_dir, "tests", "adversarial", "fake_llama_server.py"),
        "small_workset": os.path.join(args.source_dir, "tests", "integration",
                                      "small_workset.json"),
    }
    selected = [case for case in cases()
                if args.only in case.name and (args.case is None or case.name == args.case)]
    if args.case is not None and not selected:
        print(f"fault matrix: no case named {args.case!r}", file=sys.stderr)
        return 1
    if args.list:
        for case in selected:
            print(case.name)
        return 0
    failed = 0
    start = time.monotonic()
    for case in selected:
        problems, elapsed, code, first = run_case(case, paths)
        status = "PASS" if not problems else "FAIL"
        failed += bool(problems)
        print(f"{status} {case.name} (exit {code}, {elapsed:.2f} s)" +
              ("" if not problems else ": " + "; ".join(problems) + f" | {first}"), flush=True)
    total = len(selected)
    print(f"fault matrix: {total} cases, {total - failed} passed, {failed} failed "
          f"({time.monotonic() - start:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
