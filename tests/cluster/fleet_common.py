"""Shared by the sharded-sweep tests: a models.toml of three aliases on bi-mock-server, certs
read back as the fields that make two runs the same, and bounded waits."""
import hashlib
import json
import os
import time

# What must agree between two runs of one plan: the verdict and the configuration, not the
# timestamps, ports, PIDs or timings.
def cert_essence(path):
    with open(path, encoding="utf-8") as f:
        cert = json.load(f)
    run = dict(cert.get("run", {}))
    for volatile in ("request_timeout_s",):
        run.pop(volatile, None)
    server = cert.get("server", {})
    return {
        "model": cert["model"],
        "ctx": cert["ctx"],
        "dispatch_n": cert["dispatch_n"],
        "status": cert["status"],
        "source": cert["source"],
        "divergence_class": cert.get("divergence_class"),
        "anomaly": cert.get("anomaly"),
        "kv_label": cert.get("kv_label"),
        "token_divergence_ids": cert.get("token_divergence_ids"),
        "run": run,
        "model_file": cert.get("model_file"),
        "binary_sha256": server.get("N", {}).get("binary_sha256"),
        "promotion_scope": cert.get("promotion_scope"),
    }


def certs_in(directory):
    return sorted(n for n in os.listdir(directory) if n.endswith(".json") and "__ctx" in n)


def fingerprints(directory):
    """name -> (mtime_ns, sha256) of every cert: a redone cell changes both."""
    out = {}
    for name in certs_in(directory):
        path = os.path.join(directory, name)
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        out[name] = (os.stat(path).st_mtime_ns, digest)
    return out


def write_models_toml(directory, mock_server, aliases):
    """Three aliases, each its own (fake) model file: bi-mock-server reads only its size.

    Four sanitized shards share two cores, so each client reads its chunks late by a few ms, and
    the server's clock of a chunk is anchored to its request by the earliest arrival: the mock's
    50 ms step keeps that error well under the 1/(2N) of a step the lockstep statistic allows (at
    25 ms, about one run in three found an N = 3 or 4 pass short of lockstep, green_unverified).
    A request alone in the batch runs flat out after its first step, so the serial arms cost little.
    """
    lines = ["[defaults]", f'server_bin = "{mock_server}"',
             'server_flags = ["--tick-ms=50", "--fast-solo-after=1"]', ""]
    for alias in aliases:
        model = os.path.join(directory, f"{alias}.gguf")
        with open(model, "w") as f:
            f.write(f"stand-in model {alias}\n")
        lines += ["[[models]]", f'alias = "{alias}"', f'gguf = "{{MODELS_DIR}}/{alias}.gguf"', ""]
    path = os.path.join(directory, "models.toml")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def wait_until(condition, timeout_s, what):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
