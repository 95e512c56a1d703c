#!/usr/bin/env python3
"""A llama-server work-alike that misbehaves on purpose, for bi-run's adversarial tests.

It takes llama-server's command line (-m, --host, --port, -c, --parallel/-np, --metrics,
--slots; other flags are ignored) plus --fake-* knobs that choose a misbehaviour. A ticker
advances every computing request by one token per tick, so co-batching is real: /slots,
/metrics (requests_processing, n_decode_total, n_busy_slots_per_decode) report what the ticker
did, unless a knob says to lie (--fake-lie-slots: every admitted request is said to compute;
--fake-serial-jitter: every second asking of a prompt gets another text, serially too;
--fake-phantom-task: every slot not computing is said to hold a task that never ends;
--fake-tokenize-fail-after=K: /tokenize answers 500 after K counts). Task ids
are numbered per request, as llama-server does. Text is a deterministic function of the prompt; knobs change
parts of the generation when a request shared a batch with enough others. --fake-ik-surface
serves ik_llama.cpp's evidence instead: /slots entries with an integer state and no
is_processing, /metrics without the decode counters. --fake-surface=KIND serves another kind's
HTTP surface and takes its command line (vllm, sglang, tgi, trtllm, ollama, generic): its
readiness and identity routes, its metrics under its own names (trtllm: a JSON array of the
steps since the previous answer), no /slots or /props; the chat endpoint is shared.
"""
import hashlib
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

WORDS = ("alpha beta gamma delta echo foxtrot golf hotel india juliet kilo lima mike november "
         "oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()


class Config:
    def __init__(self, argv):
        self.host, self.port, self.parallel, self.ctx = "127.0.0.1", 8080, 1, 4096
        self.model = ""
        self.reported_model = None  # the model its identity answers name, when it lies
        self.tick_s = 0.002
        self.compute_max = None    # at most K requests advance per tick
        self.total_slots = None    # slots the server really runs (and reports)
        self.diverge_at = None     # text changes once a request shared a tick with >= M
        self.tokenize_fail_after = None  # /tokenize answers 500 after this many counts
        self.surface = "llama"
        self.flags = set()
        positional = []
        i = 0
        while i < len(argv):
            arg = argv[i]
            key, _, inline = arg.partition("=")
            def value():
                nonlocal i
                if inline:
                    return inline
                i += 1
                return argv[i]
            if key in ("-m", "--model", "--model-path", "--model-id"): self.model = value()
            elif key in ("--host", "--hostname"): self.host = value()
            elif key == "--port": self.port = int(value())
            elif key in ("-c", "--ctx-size", "--max-model-len", "--context-length",
                         "--max-total-tokens", "--max_seq_len"): self.ctx = int(value())
            elif key in ("-np", "--parallel", "--max-num-seqs", "--max-running-requests",
                         "--max-batch-size", "--max_batch_size"): self.parallel = int(value())
            elif key == "--fake-surface": self.surface = value()
            elif key in ("--decode-log-interval", "--cache-ram"): value()
            elif not key.startswith("-"): positional.append(arg)
            elif key == "--fake-tick-ms": self.tick_s = float(value()) / 1000.0
            elif key == "--fake-compute-max": self.compute_max = int(value())
            elif key == "--fake-total-slots": self.total_slots = int(value())
            elif key == "--fake-diverge-at": self.diverge_at = int(value())
            elif key == "--fake-tokenize-fail-after": self.tokenize_fail_after = int(value())
            elif key == "--fake-report-model": self.reported_model = value()
            elif key.startswith("--fake-"): self.flags.add(key[len("--fake-"):])
            i += 1
        # vllm serve MODEL, trtllm-serve MODEL; Ollama reads its environment.
        if positional and positional[0] == "serve":
            positional = positional[1:]
        if positional and not self.model:
            self.model = positional[0]
        if "OLLAMA_HOST" in os.environ:
            host, _, port = os.environ["OLLAMA_HOST"].rpartition(":")
            self.host, self.port = host, int(port)
            self.parallel = int(os.environ.get("OLLAMA_NUM_PARALLEL", "1"))
        if self.reported_model is None:
            self.reported_model = self.model
        if self.total_slots is None:
            self.total_slots = self.parallel

    def has(self, flag):
        return flag in self.flags


class Request:
    def __init__(self, prompt, n_predict, slot, task):
        self.prompt, self.n_predict, self.slot, self.task = prompt, n_predict, slot, task
        self.generated = 0
        self.peak_batch = 0
        self.computing = False
        self.done = threading.Event()


class Scheduler:
    def __init__(self, config):
        self.config = config
        self.lock = threading.Condition()
        self.slots = [None] * config.total_slots
        self.n_decode = 0
        self.busy_slot_decodes = 0
        self.steps = []  # trtllm: the steps since the last /metrics answer
        self.n_tasks = 0  # task ids, one per admitted request, as llama-server numbers them
        self.asked = {}  # how often each prompt was asked (--fake-serial-jitter)
        threading.Thread(target=self.tick, daemon=True).start()

    def admit(self, prompt, n_predict, wanted_slot):
        with self.lock:
            while True:
                free = [i for i, r in enumerate(self.slots) if r is None]
                if ("ignore-pins" not in self.config.flags and wanted_slot is not None
                        and 0 <= wanted_slot < len(self.slots)):
                    free = [wanted_slot] if self.slots[wanted_slot] is None else []
                if free:
                    self.n_tasks += 1
                    request = Request(prompt, n_predict, free[0], self.n_tasks)
                    self.slots[free[0]] = request
                    return request
                self.lock.wait()

    def release(self, request):
        with self.lock:
            self.slots[request.slot] = None
            self.lock.notify_all()

    def tick(self):
        while True:
            time.sleep(self.config.tick_s)
            with self.lock:
                active = [r for r in self.slots if r is not None and not r.done.is_set()]
                limit = self.config.compute_max or len(active)
                batch = active[:limit]
                for r in active:
                    r.computing = r in batch
                if not batch:
                    continue
                self.n_decode += 1
                self.busy_slot_decodes += len(batch)
                if self.config.surface == "trtllm" and len(self.steps) < 100000:
                    lie = self.config.has("lie-slots")
                    self.steps.append({"iter": self.n_decode, "numActiveRequests":
                                       len(active) if lie else len(batch)})
                for r in batch:
                    r.peak_batch = max(r.peak_batch, len(batch))
                    r.generated += 1
                    if r.generated >= r.n_predict:
                        r.computing = False
                        r.done.set()

    def slots_view(self):
        with self.lock:
            lie = self.config.has("lie-slots")
            phantom = self.config.has("phantom-task")
            ik = self.config.has("ik-surface")
            out = []
            for i, r in enumerate(self.slots):
                busy = r is not None and (r.computing or (lie and not r.done.is_set()))
                task = -1 if r is None else r.task
                if phantom and not busy:  # a task that never ends, and never computes
                    busy, task = True, 1000000 + i
                slot = {"id": i, "n_ctx": self.config.ctx // max(1, self.config.total_slots),
                        "id_task": task}
                # ik_llama.cpp: an integer state (0 idle, 1 processing), no is_processing.
                slot.update({"state": int(busy)} if ik else {"is_processing": bool(busy)})
                out.append(slot)
            return out

    def metrics_view(self):
        with self.lock:
            lie = self.config.has("lie-slots")
            processing = sum(1 for r in self.slots if r is not None and not r.done.is_set()
                             and (r.computing or lie))
            mean = self.busy_slot_decodes / self.n_decode if self.n_decode else 0.0
            surface = self.config.surface
            if surface == "trtllm":
                steps, self.steps = self.steps, []
                return json.dumps(steps)
            if surface == "vllm":  # one token per running request per step, as in decode
                return (f'vllm:num_requests_running{{model_name="{self.config.model}"}} '
                        f'{processing}\n'
                        f'vllm:iteration_tokens_total_sum{{model_name="m"}} '
                        f'{float(self.busy_slot_decodes)}\n'
                        f'vllm:iteration_tokens_total_count{{model_name="m"}} '
                        f'{float(self.n_decode)}\n')
            if surface == "sglang":
                return f'sglang:num_running_reqs{{model_name="m"}} {float(processing)}\n'
            if surface == "tgi":
                return f"tgi_batch_current_size {processing}\n"
            text = ("# HELP llamacpp:requests_processing Number of requests processing.\n"
                    "# TYPE llamacpp:requests_processing gauge\n"
                    f"llamacpp:requests_processing {processing}\n"
                    f"llamacpp:requests_deferred 0\n")
            if self.config.has("ik-surface"):  # ik_llama.cpp has no decode counters
                return text
            return (text + f"llamacpp:n_decode_total {self.n_decode}\n"
                    f"llamacpp:n_busy_slots_per_decode {mean:.6f}\n")


# --- Hostile transport: total deadlines and bounded responses ----------------------------------
# Knobs that attack the client's HTTP layer rather than the gate, each answering with raw bytes:
#   --fake-drip-health        /health: a valid-looking answer sent one byte per --fake-drip-ms
#                             (default 100), announcing a 1 MB body, so it never finishes
#   --fake-drip-completion    the completion routes, likewise
#   --fake-endless-body       the completion routes: a chunked body that never ends
#   --fake-huge-length        the completion routes: Content-Length 1 TiB, then nothing
#   --fake-nested-json=DEPTH  the completion routes and /props: JSON arrays nested DEPTH deep
class Hostile:
    def __init__(self, argv):
        self.flags, self.drip_s, self.nested_depth = set(), 0.1, None
        for arg in argv:
            key, _, value = arg.partition("=")
            if key == "--fake-drip-ms":
                self.drip_s = float(value) / 1000.0
            elif key == "--fake-nested-json":
                self.nested_depth = int(value)
            elif key in ("--fake-drip-health", "--fake-drip-completion", "--fake-endless-body",
                         "--fake-huge-length"):
                self.flags.add(key[len("--fake-"):])

    def answer_health(self, handler):
        if "drip-health" not in self.flags:
            return False
        self.drip(handler)
        return True

    def answer_props(self, handler):
        if self.nested_depth is None:
            return False
        self.send_nested(handler)
        return True

    def answer_completion(self, handler):
        if "drip-completion" in self.flags:
            self.drip(handler)
        elif "endless-body" in self.flags:
            self.endless(handler)
        elif "huge-length" in self.flags:
            self.huge(handler)
        elif self.nested_depth is not None:
            self.send_nested(handler)
        else:
            return False
        return True

    @staticmethod
    def write(handler, data):
        handler.wfile.write(data)
        handler.wfile.flush()

    def drip(self, handler):
        handler.close_connection = True
        data = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000000\r\n\r\n" + b" " * 1000000)
        try:
            for i in range(len(data)):
                self.write(handler, data[i:i + 1])
                time.sleep(self.drip_s)
        except OSError:
            pass

    def endless(self, handler):
        handler.close_connection = True
        chunk = b"10000\r\n" + b"[" * 0x10000 + b"\r\n"
        try:
            self.write(handler, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                b"Transfer-Encoding: chunked\r\n\r\n")
            while True:
                self.write(handler, chunk)
        except OSError:
            pass

    def huge(self, handler):
        handler.close_connection = True
        try:
            self.write(handler, b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                b"Content-Length: 1099511627776\r\n\r\n{")
            handler.connection.settimeout(3600)
            handler.connection.recv(1)  # until the client gives up and closes
        except OSError:
            pass

    def send_nested(self, handler):
        data = b"[" * self.nested_depth + b"]" * self.nested_depth
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


def token_ids(prompt, n, variant):
    ids = []
    for pos in range(n):
        digest = hashlib.sha256(f"{prompt}|{pos}|{variant}".encode()).digest()
        ids.append(10 + digest[0] % len(WORDS))
    return ids


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16               # one write per response (flushed after each request) ...
    disable_nagle_algorithm = True   # ... sent at once, so a poll takes microseconds, not 40 ms
    config = None
    scheduler = None
    hostile = None

    def log_message(self, *args):
        pass

    def send_json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_text(self, status, text):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def surface_get(self):
        """The routes of --fake-surface's kind; False when the path is not one of them."""
        c = self.config
        s = c.surface
        metrics = {"vllm": "/metrics", "sglang": "/metrics", "tgi": "/metrics",
                   "trtllm": "/metrics"}.get(s)
        if self.path == metrics:
            body = self.scheduler.metrics_view()
            return self.send_text(200, body)
        if s in ("vllm", "tgi", "trtllm") and self.path == "/health":
            return self.send_text(200, "")
        if s == "sglang" and self.path == "/health_generate":
            return self.send_text(200, "")
        if s in ("vllm", "trtllm") and self.path == "/version":
            return self.send_json(200, {"version": "0.0.0-fake"})
        if s == "sglang" and self.path == "/get_server_info":
            return self.send_json(200, {"max_running_requests": c.total_slots,
                                        "model_path": c.reported_model, "version": "0.0.0-fake"})
        if s == "tgi" and self.path == "/info":
            return self.send_json(200, {"model_id": c.reported_model, "version": "0.0.0-fake"})
        if s == "ollama" and self.path == "/":
            return self.send_text(200, "Ollama is running")
        if s == "ollama" and self.path == "/api/version":
            return self.send_json(200, {"version": "0.0.0-fake"})
        if s == "ollama" and self.path == "/api/tags":
            # Its store holds "served-model" (the name the tests send) and another model.
            digest = hashlib.sha256(b"served-model").hexdigest()
            return self.send_json(200, {"models": [
                {"name": "other:latest", "model": "other:latest", "digest": "0" * 64},
                {"name": "served-model:latest", "model": "served-model:latest",
                 "digest": digest}]})
        if self.path == "/v1/models":
            return self.send_json(200, {"data": [{"id": c.model}]})
        return self.send_json(404, {"error": {"code": 404, "message": "not found"}})

    def do_GET(self):
        c = self.config
        if c.surface != "llama":
            return self.surface_get()
        if self.path == "/health":
            if self.hostile.answer_health(self):
                return None
            return self.send_json(200, {"status": "ok"})
        if self.path == "/props":
            if self.hostile.answer_props(self):
                return None
            return self.send_json(200, {"total_slots": c.total_slots, "model_path": c.reported_model,
                                        "build_info": "fake-llama-server",
                                        "default_generation_settings": {"n_ctx": c.ctx}})
        if self.path == "/slots":
            if c.has("no-slots"):
                return self.send_json(501, {"error": {"code": 501, "message": "slots disabled"}})
            return self.send_json(200, self.scheduler.slots_view())
        if self.path == "/metrics":
            if c.has("no-metrics"):
                return self.send_json(501, {"error": {"code": 501, "message": "no metrics"}})
            return self.send_text(200, self.scheduler.metrics_view())
        if self.path == "/v1/models":
            return self.send_json(200, {"data": [{"id": c.model}]})
        return self.send_json(404, {"error": {"code": 404, "message": "not found"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/tokenize":
            c = self.config
            with self.scheduler.lock:
                c.tokenize_calls = getattr(c, "tokenize_calls", 0) + 1
                failing = c.tokenize_fail_after is not None and c.tokenize_calls > c.tokenize_fail_after
            if failing:
                return self.send_json(500, {"error": {"code": 500,
                                                      "message": "tokenizer worker crashed"}})
            return self.send_json(200, {"tokens": list(range(len(str(body.get("content", "")).split())))})
        chat = self.path == "/v1/chat/completions"
        if not chat and self.path != "/completion":
            return self.send_json(404, {"error": {"code": 404, "message": "not found"}})
        if self.hostile.answer_completion(self):
            return None
        c = self.config
        if chat:
            prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
            n_predict = int(body.get("max_tokens", body.get("n_predict", 16)))
        else:
            prompt = str(body.get("prompt", ""))
            n_predict = int(body.get("n_predict", 16))
        with self.scheduler.lock:
            busy = sum(1 for r in self.scheduler.slots if r is not None)
        if c.has("fail-concurrent") and busy >= 1:
            return self.send_json(503, {"error": {"code": 503, "message": "server busy"}})
        request = self.scheduler.admit(prompt, n_predict, body.get("id_slot"))
        try:
            if c.has("hang-concurrent") and busy >= 1:
                time.sleep(3600)
            request.done.wait()
        finally:
            self.scheduler.release(request)
        shared = request.peak_batch
        variant = 0
        if c.diverge_at is not None and shared >= c.diverge_at:
            variant = 1
        if c.has("slot-dependent"):
            variant += 100 * (request.slot + 1)  # every slot its own text, batched or not
        if c.has("serial-jitter"):  # every second asking of a prompt answers otherwise, alone too
            with self.scheduler.lock:
                asked = self.scheduler.asked.get(prompt, 0)
                self.scheduler.asked[prompt] = asked + 1
            variant += 1000 * (asked % 2)
        ids = token_ids(prompt, n_predict, variant)
        text = " ".join(WORDS[(i - 10) % len(WORDS)] for i in ids)
        concurrent = shared >= 2
        drop = c.has("drop-logprobs") and concurrent
        n_generated = n_predict - (1 if c.has("token-count-drift") and concurrent else 0)
        probs = [{"id": i, "token": WORDS[(i - 10) % len(WORDS)], "logprob": -0.5,
                  "top_logprobs": [{"id": i, "token": WORDS[(i - 10) % len(WORDS)], "logprob": -0.5}]}
                 for i in ids]
        if chat:
            message = {"role": "assistant", "content": text}
            if c.has("reasoning-drift"):
                message["reasoning_content"] = "thinking " + ("twice" if concurrent else "once")
            if c.has("toolcall-drift"):
                arguments = json.dumps({"branch": "b-2" if concurrent else "b-1"})
                message["tool_calls"] = [{"type": "function", "id": "call-x",
                                          "function": {"name": "create_branch",
                                                       "arguments": arguments}}]
            choice = {"index": 0, "finish_reason": "length", "message": message}
            if body.get("logprobs") and not drop:
                choice["logprobs"] = {"content": probs}
            return self.send_json(200, {
                "choices": [{**choice}], "object": "chat.completion", "model": c.model,
                "usage": {"completion_tokens": n_generated, "prompt_tokens": len(prompt.split()),
                          "total_tokens": n_generated + len(prompt.split())},
                "id_slot": request.slot,
                "timings": {"predicted_n": n_generated, "predicted_per_second": 100.0}})
        out = {"index": 0, "content": text, "id_slot": request.slot, "stop": True,
               "tokens_predicted": n_generated, "tokens_evaluated": len(prompt.split()),
               "stop_type": "limit", "model": c.model,
               "timings": {"predicted_n": n_generated, "predicted_per_second": 100.0}}
        if not drop:
            if body.get("return_tokens"):
                out["tokens"] = ids
            if body.get("n_probs"):
                out["completion_probabilities"] = probs
        return self.send_json(200, out)


# --- Process-tree knobs (bi-run owns everything it starts) ---------------------------------
# --fake-fork-exit         the launched process forks a child that serves, and exits at once
# --fake-grandchild        a grandchild serves; its parent exits, the launched process waits
# --fake-setsid            the serving grandchild calls setsid() (implies --fake-grandchild)
# --fake-ignore-term       every process of the fake survives SIGTERM
# --fake-slow-start=S      sleep S seconds before listening (SIGTERM handled meanwhile)
# --fake-marker-dir=DIR    each process writes DIR/start.PID at start and DIR/term.PID on SIGTERM
class ProcessKnobs:
    def __init__(self, argv):
        self.flags, self.slow_start, self.marker_dir = set(), 0.0, None
        i = 0
        while i < len(argv):
            key, eq, inline = argv[i].partition("=")
            if key in ("--fake-slow-start", "--fake-marker-dir"):
                if not eq:
                    i += 1
                    inline = argv[i]
                if key == "--fake-slow-start":
                    self.slow_start = float(inline)
                else:
                    self.marker_dir = inline
            elif key in ("--fake-fork-exit", "--fake-grandchild", "--fake-setsid",
                         "--fake-ignore-term"):
                self.flags.add(key[len("--fake-"):])
            i += 1
        if "setsid" in self.flags:
            self.flags.add("grandchild")

    def mark(self, what):
        if self.marker_dir:
            with open(os.path.join(self.marker_dir, f"{what}.{os.getpid()}"), "w") as f:
                f.write(f"{os.getpid()}\n")

    def on_term(self, signum, frame):
        self.mark("term")
        if "ignore-term" not in self.flags:
            os._exit(0)

    def start(self):
        """Installs the SIGTERM handler first, then shapes the process tree; returns in the
        process that serves (after the slow start), never in the others."""
        signal.signal(signal.SIGTERM, self.on_term)
        self.mark("start")
        if "fork-exit" in self.flags:
            if os.fork() > 0:
                os._exit(0)
            self.mark("start")
        elif "grandchild" in self.flags:
            if os.fork() > 0:
                while True:
                    signal.pause()
            if os.fork() > 0:
                os._exit(0)
            if "setsid" in self.flags:
                os.setsid()
            self.mark("start")
        if self.slow_start > 0:
            time.sleep(self.slow_start)


def main():
    if sys.argv[1:] == ["--version"]:  # as llama-server: print the build and exit, bind nothing
        print("version: 0 (fake_llama_server)")
        return
    ProcessKnobs(sys.argv[1:]).start()
    config = Config(sys.argv[1:])
    Handler.config = config
    Handler.scheduler = Scheduler(config)
    Handler.hostile = Hostile(sys.argv[1:])
    server = ThreadingHTTPServer((config.host, config.port), Handler)
    server.daemon_threads = True
    print(f"fake llama-server listening on {config.host}:{config.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
