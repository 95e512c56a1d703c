#!/usr/bin/env python3
"""A llama-server work-alike that misbehaves on purpose, for bi-run's adversarial tests.

It takes llama-server's command line (-m, --host, --port, -c, --parallel/-np, --metrics,
--slots; other flags are ignored; --port 0 takes a free port, named in the "listening on" line)
plus --fake-* knobs that choose a misbehaviour. A ticker advances computing requests by one
token per tick (--fake-tick-ms, default 2, times BI_FAKE_TICK_SCALE from the environment where
that is set), so co-batching is real: /slots, /metrics
(requests_processing, n_decode_total, n_busy_slots_per_decode) report what the ticker did,
unless a knob says to lie. Task ids are numbered per request, as llama-server does. Text is a
deterministic function of the prompt, one token per tick; knobs change parts of the generation
when a request shared a batch with enough others.

Scheduling (which admitted requests compute in a tick; the others wait in their slots):
  --fake-schedule=batched      every admitted request (the default: continuous batching)
  --fake-schedule=serial       one request at a time, the earliest admitted, to its end
  --fake-schedule=round-robin  one request per tick, rotating over all admitted ones in order
  --fake-compute-max=K         at most K per tick, the earliest admitted first (serial is K=1;
                               with round-robin, K per tick, rotating)
  --fake-total-slots=S         S slots really run (and are reported), whatever --parallel says
Lies about the schedule:
  --fake-lie-slots             /slots and requests_processing (trtllm: numActiveRequests) say
                               every admitted request computes
  --fake-lie-counters          n_busy_slots_per_decode (vllm: its tokens-per-step histogram)
                               counts every admitted request in every decode step
  A consistent liar, that says N compute together wherever it is asked while computing one at
  a time: --fake-schedule=serial --fake-lie-slots --fake-lie-counters. Only its token streams'
  timing (no lockstep) tells it apart from a batching server.
  --fake-phantom-task          every slot not computing is said to hold a task that never ends
Answers:
  --fake-diverge-at=M          tokens made once the request shared a tick with M or more
                               (itself included) are other tokens
  --fake-slot-dependent        every slot its own text, batched or not
  --fake-serial-jitter         every second asking of a prompt gets another text, serially too
  --fake-cache-hits            a prompt cache that cannot be turned off: a prompt asked before
                               (on this server) is served from it, all but its last token
                               cached, and its answer says so (timings.cache_n and prompt_n,
                               usage.prompt_tokens_details.cached_tokens; ollama: a smaller
                               usage.prompt_tokens), whatever the request or the launch says
  --fake-cache-changes         an answer served from a cache (this one, or the honest one
                               below) is another text
The honest prompt cache, without any knob: a request is served from it when the cache is on for
it, on the llama surfaces when it sends "cache_prompt": true (absent or false: cold; llama-server
itself defaults to true), on vllm and sglang unless the server was launched with the kind's
switch (--no-enable-prefix-caching, --disable-radix-cache); the other surfaces have none. It
holds each finished request's prompt and answer (a prompt's tokens are its words, then any ids),
per slot on the llama surfaces, for every slot on vllm and sglang; a request reuses its longest
common prefix with them, less its last prompt token, and states it as --fake-cache-hits does
(ik: a smaller timings.prompt_n and no cache_n).
Continuation cuts: /completion takes llama-server's mixed prompt, ["text", id0, ..., id(k-1)]
(the text's words, then the ids); when the ids are the first k an earlier answer to that text
made, the answer continues it, its tokens k, k+1, ... (the same ids and words), n_predict
counted from this request. Served from a cache with --fake-cache-changes, it is another text.
  --fake-warmup-needed=K       the first K completions after start-up are other texts: a server
                               that needs warm-up requests (a kind's [request].warmup)
  --fake-fail-first=K          the first K completions after start-up answer HTTP 500 with the
                               server's own error message
  --fake-reject-prompt=WORD    a completion whose prompt holds WORD answers HTTP 400 as
                               llama-server does for a prompt longer than its context
                               (exceed_context_size_error, n_prompt_tokens, n_ctx)
  --fake-hang-after=K          a server that wedges mid-arm: completions after the first K since
                               start-up are taken and never answered
  --fake-draft                 a server with a draft model: every answer's timings count drafted
                               tokens (draft_n, twice the tokens asked for) and accepted ones
                               (draft_n_accepted)
  --fake-draft-concurrent      only a request that shared a tick drafts (the arms draft
                               differently; the texts stay the same)
  --fake-mode-ignored          a determinism mode asked on (SGLang --enable-deterministic-
                               inference, VLLM_BATCH_INVARIANT=1, FORCE_DETERMINISTIC=1) is
                               reported on but not honoured: --fake-diverge-at still changes
                               answers (an honoured mode stops it)
  --fake-mode-reports-off      the mode asked on does not take effect, and SGLang's
                               /get_server_info says enable_deterministic_inference false
  --fake-drop-logprobs         a request that shared a tick answers without logprobs and token
                               ids (streamed: chunks made in a shared tick carry no logprobs,
                               and no token ids on /completion)
  --fake-token-count-drift     a request that shared a tick counts one token less than it made
                               (streamed: the totals, final tokens_predicted or usage, do)
  --fake-reasoning-drift, --fake-toolcall-drift  chat: reasoning_content / a tool call that says
                               whether the request shared a tick (streamed: with the last token)
  --fake-fail-concurrent       503 for a request that arrives while another is in a slot
  --fake-hang-concurrent       a request that arrives while another is in a slot never answers
  --fake-ignore-pins           a request's id_slot is not honoured
  --fake-tokenize-fail-after=K /tokenize answers 500 after K counts
  --fake-report-model=NAME     the identity routes name NAME instead of the model launched
  --fake-no-slots, --fake-no-metrics  /slots, /metrics answer 501
Surfaces: --fake-ik-surface serves ik_llama.cpp's evidence instead: /slots entries with an
integer state and no is_processing, /metrics without the decode counters. --fake-surface=KIND
serves another kind's HTTP surface and takes its command line (vllm, sglang, tgi, trtllm, ollama,
generic): its readiness and identity routes, its metrics under its own names (trtllm: a JSON
array of the steps since the previous answer), no /slots or /props; the chat endpoint is shared.

Streaming ("stream": true): text/event-stream, chunked, one event per token written when the
ticker made that token, so the stream's timing is the schedule's. The streamed answer assembles
to the unstreamed answer of the same request (text, token ids, counts, finish reason, logprobs).
  /completion (llama surfaces): the real captures' shape (tests/fixtures/llama-server/stream_*):
    partials {index, content, tokens, stop: false, id_slot: -1, tokens_predicted,
    tokens_evaluated, timings (with "timings_per_token": true), completion_probabilities (with
    n_probs)}, then {"stop": true, the slot, the totals, timings}. timings.predicted_ms is the
    fake's generation clock: ms from the tick that made the request's first token.
  /v1/chat/completions: chat.completion.chunk events, then "data: [DONE]". llama: a role chunk,
    one content chunk per token (with timings_per_token: timings; with logprobs:
    logprobs.content), a finish chunk naming the slot, the usage chunk (stream_options.
    include_usage) with the totals and timings. ik: the role chunk comes with the first token and
    every chunk carries usage so far, as ik_llama.cpp's partials do. vllm: role chunk, the finish
    reason on the last token's chunk, usage on every chunk with
    stream_options.continuous_usage_stats. tgi: no role chunk (every delta names the role), the
    finish reason on the last token's chunk. ollama: every delta names the role, a finish chunk.
    sglang, trtllm, generic: as llama without timings. Only llama's shapes are from captures.
Stream misbehaviour, applied to every streamed answer (K counts token chunks from 1):
  --fake-stream-stall[=K]      after K token chunks (default 1) nothing more is sent; the
                               connection stays open until the client closes it
  --fake-stream-drip=MS        every event is written one byte at a time, MS ms apart
  --fake-stream-duplicate[=K]  token chunk K (default 2) is sent twice
  --fake-stream-after-final    one more token chunk after the final one (chat: after the finish
                               chunk)
  --fake-stream-miscount       the totals (final tokens_predicted and timings.predicted_n;
                               usage.completion_tokens) count one token more than were streamed
  --fake-stream-error[=FORM]   after the first token chunk, an error event ends the stream:
                               FORM "data" (default) as llama-server sends one now,
                               `data: {"error": {"code": 500, "message": ..., "type": ...}}`
                               (other surfaces: the OpenAI error object); FORM "field" as
                               llama-server builds before its server split and ik_llama.cpp do,
                               `error: {...}` (then `data: [DONE]` on the chat route)
  --fake-stream-no-done        a chat stream ends (the body closes) without `data: [DONE]`
The knobs that attack the HTTP layer and the process tree are listed above Hostile and
ProcessKnobs.
"""
import collections
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
        self.schedule = "batched"  # batched, serial or round-robin
        self.compute_max = None    # at most K requests advance per tick
        self.total_slots = None    # slots the server really runs (and reports)
        self.diverge_at = None     # text changes once a request shared a tick with >= M
        self.tokenize_fail_after = None  # /tokenize answers 500 after this many counts
        self.warmup_needed = 0     # the first K completions are other texts
        self.fail_first = 0        # the first K completions answer 500
        self.reject_prompt = None  # a completion whose prompt holds this word answers 400
        self.hang_after = None     # completions after the first K never answer
        self.surface = "llama"
        # vllm --no-enable-prefix-caching, sglang --disable-radix-cache: no honest prefix cache
        self.prefix_cache_off = False
        self.prefill_chunk = None  # the chunk flags' value, when a kind set them
        self.flags = set()
        # A determinism mode asked on: SGLang's flag, vLLM's or TensorRT-LLM's variable.
        self.determinism = (os.environ.get("VLLM_BATCH_INVARIANT") == "1"
                            or os.environ.get("FORCE_DETERMINISTIC") == "1")
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
            elif key == "--enable-deterministic-inference": self.determinism = True
            elif key in ("--decode-log-interval", "--cache-ram"): value()
            elif key in ("--no-enable-prefix-caching", "--disable-radix-cache"):
                self.prefix_cache_off = True
            # Each kind's prefill-chunk flags (--prefill-chunk): taken, not modelled.
            elif key in ("-b", "--batch-size", "-ub", "--ubatch-size", "--max-num-batched-tokens",
                         "--chunked-prefill-size", "--max-batch-prefill-tokens",
                         "--max_num_tokens"): self.prefill_chunk = int(value())
            elif key in ("--enable-chunked-prefill", "--enable_chunked_prefill"): pass
            elif not key.startswith("-"): positional.append(arg)
            elif key == "--fake-tick-ms": self.tick_s = float(value()) / 1000.0
            elif key == "--fake-compute-max": self.compute_max = int(value())
            elif key == "--fake-schedule": self.schedule = value()
            elif key == "--fake-total-slots": self.total_slots = int(value())
            elif key == "--fake-diverge-at": self.diverge_at = int(value())
            elif key == "--fake-tokenize-fail-after": self.tokenize_fail_after = int(value())
            elif key == "--fake-report-model": self.reported_model = value()
            elif key == "--fake-warmup-needed": self.warmup_needed = int(value())
            elif key == "--fake-fail-first": self.fail_first = int(value())
            elif key == "--fake-reject-prompt": self.reject_prompt = value()
            elif key == "--fake-hang-after": self.hang_after = int(value())
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
        # The sanitized test run stretches every tick alike (run-sanitized-tests.sh): there each
        # of bi-run's reader threads, woken by a token, takes the CPU from the fake's next writer
        # for many times its usual while, and the tokens of one tick leave up to a millisecond
        # apart; the gates judge a step against its own length, so a longer tick keeps the
        # same margin as an unsanitized run has.
        self.tick_s *= float(os.environ.get("BI_FAKE_TICK_SCALE", "1"))
        if self.reported_model is None:
            self.reported_model = self.model
        if self.total_slots is None:
            self.total_slots = self.parallel
        if self.schedule not in ("batched", "serial", "round-robin"):
            sys.exit(f"fake: unknown --fake-schedule {self.schedule}")

    def has(self, flag):
        return flag in self.flags

    def honest_cache(self, body):
        """Whether a request may be served from the honest prompt cache: on the llama surfaces
        when it sends "cache_prompt": true (absent is false here, unlike llama-server), on vllm
        and sglang unless launched with the kind's flag that turns the cache off."""
        if self.surface == "llama":
            return body.get("cache_prompt") is True
        if self.surface in ("vllm", "sglang"):
            return not self.prefix_cache_off
        return False

    def mode_reported(self):
        """What the server says of its determinism mode (SGLang's /get_server_info)."""
        return self.determinism and not self.has("mode-reports-off")

    def mode_in_effect(self):
        """A mode that is on and honoured: batching no longer changes an answer."""
        return self.mode_reported() and not self.has("mode-ignored")


class Prompt:
    """A request's prompt: its text and the token ids that follow it (a mixed /completion prompt
    array, ["text", 12, 34]). Its tokens are the text's words, then the ids."""

    def __init__(self, text, ids=()):
        self.text, self.ids = text, tuple(ids)
        self.tokens = tuple(text.split()) + self.ids

    @staticmethod
    def of_completion(prompt):
        """A /completion prompt: a string, or an array of strings and token ids (the strings'
        text first, then the ids, in order)."""
        if not isinstance(prompt, list):
            return Prompt(str(prompt))
        text = "".join(p for p in prompt if isinstance(p, str))
        ids = [p for p in prompt if isinstance(p, int) and not isinstance(p, bool)]
        return Prompt(text, ids)

    def ident(self):
        """What the asking counts (--fake-serial-jitter, --fake-cache-hits) count it by."""
        return self.text if not self.ids else (self.text, self.ids)

    def key(self):
        """What its tokens are drawn with when it continues no earlier answer."""
        return self.text if not self.ids else self.text + "|" + ",".join(map(str, self.ids))


def common_prefix(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class Request:
    def __init__(self, prompt, n_predict, slot, task, variant):
        self.prompt, self.n_predict, self.slot, self.task = prompt, n_predict, slot, task
        self.variant = variant  # chosen at admission (--fake-slot-dependent, --fake-serial-jitter)
        # Its tokens are drawn as the generation of `key` from position `offset` on: its own
        # prompt's from 0, or an earlier answer's that its prompt continues (prompt + ids made).
        self.key, self.offset = prompt.key(), 0
        self.cached = False  # served from the prompt cache (--fake-cache-hits, or the honest one)
        self.cached_n = 0    # its prompt tokens served from the cache
        self.admitted = time.monotonic()
        # One entry per token made: (id, the tick's monotonic time, the peak batch so far).
        self.made = []
        self.peak_batch = 0
        self.computing = False
        self.released = False
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
        self.asked = {}  # how often each prompt was asked (--fake-serial-jitter, cache-hits)
        self.turn = 0  # round-robin: the task that computed last
        # The honest prompt cache: each slot's last prompt + answer (llama surfaces), the latest
        # sequences of any slot (vllm, sglang: one prefix cache for all).
        self.slot_cached = [()] * config.total_slots
        self.recent = collections.deque(maxlen=256)
        # Prompt + the first j ids of an answer -> (key, offset) of the generation it continues.
        self.continuations = collections.OrderedDict()
        threading.Thread(target=self.tick, daemon=True).start()

    def cached_prefix(self, prompt, slot):
        """Prompt tokens the honest cache holds for a request in `slot`: the longest common
        prefix with what it remembers, less the last prompt token (always evaluated again)."""
        if self.config.surface == "llama":
            held = [self.slot_cached[slot]]
        else:
            held = self.recent
        longest = max((common_prefix(prompt.tokens, seq) for seq in held), default=0)
        return max(0, min(longest, len(prompt.tokens) - 1))

    def remember(self, request):
        """A finished request's prompt and answer: the honest cache's sequence, and every cut of
        it (the prompt and its first j ids) as a continuation of its generation."""
        ids = tuple(made[0] for made in request.made)
        sequence = request.prompt.tokens + ids
        self.slot_cached[request.slot] = sequence
        self.recent.append(sequence)
        for j in range(1, len(ids) + 1):
            self.continuations[request.prompt.tokens + ids[:j]] = (request.key, request.offset + j)
        while len(self.continuations) > 4096:
            self.continuations.popitem(last=False)

    def admit(self, prompt, n_predict, wanted_slot, honest_cache=False):
        with self.lock:
            while True:
                free = [i for i, r in enumerate(self.slots) if r is None]
                if ("ignore-pins" not in self.config.flags and wanted_slot is not None
                        and 0 <= wanted_slot < len(self.slots)):
                    free = [wanted_slot] if self.slots[wanted_slot] is None else []
                if free:
                    break
                self.lock.wait()
            slot = free[0]
            variant = 0
            if self.config.has("slot-dependent"):
                variant += 100 * (slot + 1)  # every slot its own text, batched or not
            asked = self.asked.get(prompt.ident(), 0)
            self.asked[prompt.ident()] = asked + 1
            if self.config.has("serial-jitter"):  # every second asking answers otherwise
                variant += 1000 * (asked % 2)
            prompt_n = len(prompt.tokens)
            forced = asked > 0 and self.config.has("cache-hits")
            cached_n = self.cached_prefix(prompt, slot) if honest_cache else 0
            if forced:  # all but the last prompt token
                cached_n = max(cached_n, prompt_n - 1)
            cached = forced or cached_n > 0
            if cached and self.config.has("cache-changes"):
                variant += 10000
            if self.n_tasks < self.config.warmup_needed:  # not warmed up yet: another text
                variant += 100000
            self.n_tasks += 1
            request = Request(prompt, n_predict, slot, self.n_tasks, variant)
            request.cached, request.cached_n = cached, cached_n
            continued = self.continuations.get(prompt.tokens)
            if continued:
                request.key, request.offset = continued
            if n_predict <= 0:
                request.done.set()
                self.remember(request)
            self.slots[slot] = request
            return request

    def release(self, request):
        with self.lock:
            if request.released:
                return
            request.released = True
            self.slots[request.slot] = None
            self.lock.notify_all()

    def choose(self, active):
        """The requests that compute in this tick, of those admitted (in admission order)."""
        schedule = self.config.schedule
        limit = self.config.compute_max or (len(active) if schedule == "batched" else 1)
        if schedule == "round-robin":
            order = ([r for r in active if r.task > self.turn] +
                     [r for r in active if r.task <= self.turn])
            batch = order[:limit]
            if batch:
                self.turn = batch[-1].task
            return batch
        return active[:limit]

    def tick(self):
        while True:
            time.sleep(self.config.tick_s)
            with self.lock:
                now = time.monotonic()
                active = sorted((r for r in self.slots if r is not None and not r.done.is_set()),
                                key=lambda r: r.task)
                batch = self.choose(active)
                for r in active:
                    r.computing = r in batch
                if not batch:
                    continue
                self.n_decode += 1
                counted = active if self.config.has("lie-counters") else batch
                self.busy_slot_decodes += len(counted)
                if self.config.surface == "trtllm" and len(self.steps) < 100000:
                    lie = self.config.has("lie-slots")
                    self.steps.append({"iter": self.n_decode, "numActiveRequests":
                                       len(active) if lie else len(batch)})
                diverge_at = None if self.config.mode_in_effect() else self.config.diverge_at
                for r in batch:
                    r.peak_batch = max(r.peak_batch, len(batch))
                    variant = r.variant
                    if diverge_at is not None and r.peak_batch >= diverge_at:
                        variant += 1
                    position = r.offset + len(r.made)
                    r.made.append((token_id(r.key, position, variant), now, r.peak_batch))
                    if len(r.made) >= r.n_predict:
                        r.computing = False
                        r.done.set()
                        self.remember(r)
                self.lock.notify_all()  # a streaming handler writes each token as it is made

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


def token_id(prompt, pos, variant):
    digest = hashlib.sha256(f"{prompt}|{pos}|{variant}".encode()).digest()
    return 10 + digest[0] % len(WORDS)


def word(token):
    return WORDS[(token - 10) % len(WORDS)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16               # one write per response (flushed after each request) ...
    disable_nagle_algorithm = True   # ... sent at once, so a poll takes microseconds, not 40 ms
    config = None
    scheduler = None
    hostile = None
    stream_knobs = None

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
                                        "model_path": c.reported_model, "version": "0.0.0-fake",
                                        "enable_deterministic_inference": c.mode_reported()})
        if s == "tgi" and self.path == "/info":
            return self.send_json(200, {"model_id": c.reported_model, "version": "0.0.0-fake"})
        if s == "ollama" and self.path == "/":
            return self.send_text(200, "Ollama is running")
        if s == "ollama" and self.path == "/api/version":
            return self.send_json(200, {"version": "0.0.0-fake"})
        if s == "ollama" and self.path == "/api/tags":
            # Its store holds "served-model" (the name the tests send), two tagged models whose
            # names differ after their first dot, and another model.
            def entry(name):
                return {"name": name, "model": name,
                        "digest": hashlib.sha256(name.split(":")[0].encode()).hexdigest()
                        if name == "served-model:latest"
                        else hashlib.sha256(name.encode()).hexdigest()}
            return self.send_json(200, {"models": [
                {"name": "other:latest", "model": "other:latest", "digest": "0" * 64},
                entry("served-model:latest"), entry("llama3.1:8b"), entry("llama3.2:1b")]})
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
            prompt = Prompt("\n".join(str(m.get("content", "")) for m in body.get("messages", [])))
            n_predict = int(body.get("max_tokens", body.get("n_predict", 16)))
        else:
            prompt = Prompt.of_completion(body.get("prompt", ""))
            n_predict = int(body.get("n_predict", 16))
        with self.scheduler.lock:
            busy = sum(1 for r in self.scheduler.slots if r is not None)
            c.completions_asked = getattr(c, "completions_asked", 0) + 1
            failing = c.completions_asked <= c.fail_first
        if failing:
            return self.send_json(500, {"error": {"code": 500, "type": "server_error",
                                                  "message": "graph capture not finished"}})
        if c.hang_after is not None and c.completions_asked > c.hang_after:
            time.sleep(3600)
        if c.reject_prompt is not None and c.reject_prompt in prompt.text:
            return self.send_json(400, {"error": {
                "code": 400, "type": "exceed_context_size_error",
                "message": "the request exceeds the available context size, try increasing it",
                "n_prompt_tokens": len(prompt.text.split()), "n_ctx": c.ctx}})
        if c.has("fail-concurrent") and busy >= 1:
            return self.send_json(503, {"error": {"code": 503, "message": "server busy"}})
        request = self.scheduler.admit(prompt, n_predict, body.get("id_slot"),
                                       c.honest_cache(body))
        try:
            if c.has("hang-concurrent") and busy >= 1:
                time.sleep(3600)
            if body.get("stream"):
                return StreamedAnswer(self, request, body, chat).send()
            request.done.wait()
        finally:
            self.scheduler.release(request)
        return self.send_json(200, Answer(c, request, body, chat).whole())


class Answer:
    """What one finished (or finishing) request answers, unstreamed and chunk by chunk."""

    def __init__(self, config, request, body, chat):
        self.config, self.request, self.body, self.chat = config, request, body, chat
        self.prompt_n = len(request.prompt.tokens)
        # Served from the cache: at most all but the last prompt token, as llama-server
        # re-evaluates it.
        self.cached_n = request.cached_n
        self.want_probs = bool(body.get("logprobs") if chat else body.get("n_probs"))

    def usage(self, n):
        """The usage after n tokens: ollama counts only the prompt tokens it evaluated."""
        prompt = self.prompt_n - (self.cached_n if self.config.surface == "ollama" else 0)
        return {"completion_tokens": n, "prompt_tokens": prompt, "total_tokens": n + prompt,
                "prompt_tokens_details": {"cached_tokens": self.cached_n}}

    def concurrent(self):  # final once the request is done
        return self.request.peak_batch >= 2

    def total(self):
        """The count the answer reports: one less than made under --fake-token-count-drift."""
        drift = self.config.has("token-count-drift") and self.concurrent()
        return self.request.n_predict - (1 if drift else 0)

    def ids(self):
        return [made[0] for made in self.request.made]

    def piece(self, k):
        """Token k's text: its word, after a space unless it begins the generation (a cut's
        continuation goes on with the spaces of the answer it continues)."""
        return ("" if self.request.offset + k == 0 else " ") + word(self.request.made[k][0])

    @staticmethod
    def prob(token):
        text = word(token)
        entry = {"id": token, "token": text, "bytes": list(text.encode()), "logprob": -0.5}
        return {**entry, "top_logprobs": [entry]}

    def reasoning(self):
        return "thinking " + ("twice" if self.concurrent() else "once")

    def tool_call(self):
        arguments = json.dumps({"branch": "b-2" if self.concurrent() else "b-1"})
        return {"type": "function", "id": "call-x",
                "function": {"name": "create_branch", "arguments": arguments}}

    def whole(self):
        c, n_generated = self.config, self.total()
        ids = self.ids()
        text = "".join(self.piece(k) for k in range(len(ids)))
        drop = c.has("drop-logprobs") and self.concurrent()
        probs = [self.prob(i) for i in ids]
        if self.chat:
            message = {"role": "assistant", "content": text}
            if c.has("reasoning-drift"):
                message["reasoning_content"] = self.reasoning()
            if c.has("toolcall-drift"):
                message["tool_calls"] = [self.tool_call()]
            choice = {"index": 0, "finish_reason": "length", "message": message}
            if self.body.get("logprobs") and not drop:
                choice["logprobs"] = {"content": probs}
            return {"choices": [choice], "object": "chat.completion", "model": c.model,
                    "usage": self.usage(n_generated), "id_slot": self.request.slot,
                    "timings": {"predicted_n": n_generated, "predicted_per_second": 100.0,
                                **self.prompt_timings(), **self.draft_timings()}}
        out = {"index": 0, "content": text, "id_slot": self.request.slot, "stop": True,
               "tokens_predicted": n_generated, "tokens_evaluated": self.prompt_n,
               "stop_type": "limit", "model": c.model,
               "timings": {"predicted_n": n_generated, "predicted_per_second": 100.0,
                           **self.prompt_timings(), **self.draft_timings()}}
        if not drop:
            if self.body.get("return_tokens"):
                out["tokens"] = ids
            if self.body.get("n_probs"):
                out["completion_probabilities"] = probs
        return out

    def timings(self, n, k):
        """llama-server's timings after n tokens, the last made by token k's tick; predicted_ms
        runs from the tick that made the first token."""
        made = self.request.made
        first = made[0][1] if made else self.request.admitted
        prompt_ms = (first - self.request.admitted) * 1000.0
        predicted_ms = round((made[k][1] - first) * 1000.0, 3) or 0.001 if made else 0.0
        per_token = predicted_ms / (n - 1) if n > 1 else 0.0
        return {**self.prompt_timings(), **self.draft_timings(), "prompt_ms": prompt_ms,
                "prompt_per_token_ms": prompt_ms / self.prompt_n if self.prompt_n else 0.0,
                "prompt_per_second": 1000.0 * self.prompt_n / prompt_ms if prompt_ms else 0.0,
                "predicted_n": n, "predicted_ms": predicted_ms,
                "predicted_per_token_ms": per_token,
                "predicted_per_second": 1000.0 / per_token if per_token else 0.0}

    def draft_timings(self):
        """draft_n and draft_n_accepted, sent only by a server that drafted (--fake-draft; with
        --fake-draft-concurrent, once the request shared a tick): llama-server sends them only with
        a draft model."""
        c = self.config
        if c.has("draft") or (c.has("draft-concurrent") and self.concurrent()):
            return {"draft_n": 2 * self.request.n_predict, "draft_n_accepted": self.request.n_predict}
        return {}

    def prompt_timings(self):
        """cache_n and prompt_n: the tokens served from the cache and those evaluated (ik_llama.cpp
        sends no cache_n)."""
        out = {"prompt_n": self.prompt_n - self.cached_n}
        if not self.config.has("ik-surface"):
            out["cache_n"] = self.cached_n
        return out


# How each surface's chat stream is shaped: its role chunk comes before the tokens ("first"),
# with the first token ("with-first": ik_llama.cpp) or not at all (None: every delta names the
# role); the finish reason comes in a chunk of its own or on the last token's chunk; the usage so
# far is on every chunk or only in the usage chunk.
ChatStreamStyle = collections.namedtuple("ChatStreamStyle",
                                         "role_chunk finish_on_last_token usage_on_every_chunk")
CHAT_STREAM_STYLE = {
    "llama": ChatStreamStyle("first", False, False),
    "ik": ChatStreamStyle("with-first", False, True),
    "vllm": ChatStreamStyle("first", True, False),
    "sglang": ChatStreamStyle("first", False, False),
    "tgi": ChatStreamStyle(None, True, False),
    "trtllm": ChatStreamStyle("first", False, False),
    "ollama": ChatStreamStyle(None, False, False),
    "generic": ChatStreamStyle("first", False, False),
}


class StreamKnobs:
    """--fake-stream-*: how a streamed answer misbehaves (module docstring)."""

    def __init__(self, argv):
        self.stall_at = self.duplicate_at = self.error_form = None
        self.drip_s = 0.0
        self.after_final = self.miscount = self.no_done = False
        for arg in argv:
            key, eq, value = arg.partition("=")
            if key == "--fake-stream-stall":
                self.stall_at = int(value) if eq else 1
            elif key == "--fake-stream-drip":
                self.drip_s = float(value) / 1000.0
            elif key == "--fake-stream-duplicate":
                self.duplicate_at = int(value) if eq else 2
            elif key == "--fake-stream-after-final":
                self.after_final = True
            elif key == "--fake-stream-miscount":
                self.miscount = True
            elif key == "--fake-stream-error":
                self.error_form = value if eq else "data"
            elif key == "--fake-stream-no-done":
                self.no_done = True
        if self.error_form not in (None, "data", "field"):
            sys.exit(f"fake: unknown --fake-stream-error form {self.error_form}")


class StreamedAnswer:
    """One streamed answer: each token's event written when the ticker made the token."""

    def __init__(self, handler, request, body, chat):
        self.handler, self.request, self.chat = handler, request, chat
        self.config, self.knobs = handler.config, handler.stream_knobs
        self.answer = Answer(self.config, request, body, chat)
        surface = self.config.surface
        ik = surface == "llama" and self.config.has("ik-surface")
        self.style = CHAT_STREAM_STYLE["ik" if ik else surface]
        self.llama = surface == "llama"
        self.per_token_timings = self.llama and bool(body.get("timings_per_token"))
        options = body.get("stream_options") or {}
        self.include_usage = bool(options.get("include_usage"))
        self.continuous_usage = (surface == "vllm" and self.include_usage
                                 and bool(options.get("continuous_usage_stats")))
        self.cmpl_id = "chatcmpl-fake%d" % request.task
        self.created = int(time.time())

    # --- the wire: chunked transfer encoding, one HTTP chunk per event, flushed at once
    def write(self, data):
        frame = b"%x\r\n" % len(data) + data + b"\r\n"
        wfile = self.handler.wfile
        if self.knobs.drip_s <= 0:
            wfile.write(frame)
            wfile.flush()
            return
        for i in range(len(frame)):
            wfile.write(frame[i:i + 1])
            wfile.flush()
            time.sleep(self.knobs.drip_s)

    def event(self, body, field="data"):
        text = body if isinstance(body, str) else json.dumps(body, separators=(",", ":"))
        self.write(f"{field}: {text}\n\n".encode())

    def end(self):
        self.handler.wfile.write(b"0\r\n\r\n")
        self.handler.wfile.flush()

    # --- the events
    def chat_chunk(self, delta, finish=None, k=None, extra=None, usage=True):
        """A chunk; with token k's logprobs, timings and (where the surface sends it on every
        chunk) the usage so far, unless `usage` is false (a finish chunk of its own)."""
        choice = {"finish_reason": finish, "index": 0, "delta": delta}
        out = {"choices": [choice], "created": self.created, "id": self.cmpl_id,
               "model": self.config.model, "system_fingerprint": "b0-fake",
               "object": "chat.completion.chunk"}
        if k is not None:
            made = self.request.made[k]
            if self.answer.want_probs and not self.dropped(k):
                choice["logprobs"] = {"content": [self.answer.prob(made[0])]}
            if self.per_token_timings:
                out["timings"] = self.answer.timings(k + 1, k)
        if usage and (self.style.usage_on_every_chunk or self.continuous_usage):
            n = 0 if k is None else k + 1
            out["usage"] = self.usage(n)
        out.update(extra or {})
        return out

    def usage(self, n):
        return self.answer.usage(n)

    def dropped(self, k):
        return self.config.has("drop-logprobs") and self.request.made[k][2] >= 2

    def role_delta(self):
        return {"role": "assistant", "content": None if self.llama else ""}

    def token_event(self, k):
        """Token k's event (k may be one past the last: --fake-stream-after-final)."""
        request, last = self.request, k == self.request.n_predict - 1
        if k >= len(request.made):  # a token never made: the next one, timed as the last
            request.made.append((token_id(request.key, request.offset + k, request.variant),
                                 request.made[-1][1], request.made[-1][2]))
        if not self.chat:
            out = {"index": 0, "content": self.answer.piece(k), "tokens": [request.made[k][0]],
                   "stop": False, "id_slot": -1, "tokens_predicted": k + 1,
                   "tokens_evaluated": self.answer.prompt_n}
            if self.per_token_timings:
                out["timings"] = self.answer.timings(k + 1, k)
            if self.answer.want_probs and not self.dropped(k):
                out["completion_probabilities"] = [self.answer.prob(request.made[k][0])]
            if self.dropped(k):  # the token id goes with its logprobs, as unstreamed
                del out["tokens"]
            return out
        delta = {"content": self.answer.piece(k)}
        if self.style.role_chunk is None:
            delta = {"role": "assistant", **delta}
        if last and self.config.has("reasoning-drift"):
            delta["reasoning_content"] = self.answer.reasoning()
        if last and self.config.has("toolcall-drift"):
            delta["tool_calls"] = [{"index": 0, **self.answer.tool_call()}]
        finish_here = last and self.style.finish_on_last_token
        return self.chat_chunk(delta, "length" if finish_here else None, k,
                               {"id_slot": request.slot} if finish_here else None)

    def totals(self):
        offset = 1 if self.knobs.miscount else 0
        return self.answer.total() + offset

    def final_events(self):
        """The events after the last token's: the completion's totals; the chat's finish chunk
        (unless the last token's chunk carried it) and usage chunk."""
        request, n = self.request, self.totals()
        last = max(len(request.made) - 1, 0)
        if not self.chat:
            return [{"index": 0, "content": "", "tokens": [], "id_slot": request.slot,
                     "stop": True, "model": self.config.model, "tokens_predicted": n,
                     "tokens_evaluated": self.answer.prompt_n, "prompt": request.prompt.text,
                     "has_new_line": False, "truncated": False, "stop_type": "limit",
                     "stopping_word": "", "tokens_cached": self.answer.prompt_n + n,
                     "timings": self.answer.timings(n, last)}]
        events = []
        if not self.style.finish_on_last_token:
            events.append(self.chat_chunk({}, "length", extra={"id_slot": request.slot},
                                          usage=False))
        if self.include_usage:
            usage = {"choices": [], "created": self.created, "id": self.cmpl_id,
                     "model": self.config.model, "system_fingerprint": "b0-fake",
                     "object": "chat.completion.chunk", "usage": self.usage(n)}
            if self.llama:
                usage["timings"] = self.answer.timings(n, last)
            events.append(usage)
        return events

    def error_event(self):
        if self.llama:
            return {"code": 500, "message": "the fake failed mid-stream", "type": "server_error"}
        return {"message": "the fake failed mid-stream", "type": "server_error", "param": None,
                "code": 500}

    def fail_mid_stream(self):
        if self.knobs.error_form == "field":
            self.event(self.error_event(), "error")
            if self.chat:
                self.event("[DONE]")
        else:
            self.event({"error": self.error_event()})
        self.handler.close_connection = True
        self.end()

    def stall(self):
        """Sends nothing more and holds the connection until the client closes it."""
        self.handler.close_connection = True
        try:
            self.handler.connection.settimeout(3600)
            while self.handler.connection.recv(4096):
                pass
        except OSError:
            pass

    def next_tokens(self, sent):
        """Blocks until the ticker made a token after the first `sent`, or the request is done;
        returns how many are made and whether it is done."""
        lock = self.handler.scheduler.lock
        with lock:
            while len(self.request.made) <= sent and not self.request.done.is_set():
                lock.wait()
            return len(self.request.made), self.request.done.is_set()

    def send(self):
        h, knobs = self.handler, self.knobs
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        try:
            if self.chat and self.style.role_chunk == "first":
                self.event(self.chat_chunk(self.role_delta()))
            sent, done = 0, False
            while not done:
                made, done = self.next_tokens(sent)
                if done:  # the slot is free once its last token is made, as llama-server's
                    h.scheduler.release(self.request)
                for k in range(sent, made):
                    if self.chat and k == 0 and self.style.role_chunk == "with-first":
                        self.event(self.chat_chunk(self.role_delta(), k=None,
                                                   extra={"usage": self.usage(1)}))
                    self.event(self.token_event(k))
                    sent = k + 1
                    if knobs.duplicate_at == sent:
                        self.event(self.token_event(k))
                    if knobs.stall_at == sent:
                        return self.stall()
                    if knobs.error_form and sent == 1:
                        return self.fail_mid_stream()
            events = self.final_events()
            if knobs.after_final:  # right after the final chunk (before the usage chunk)
                final_was_token = self.chat and self.style.finish_on_last_token
                events.insert(0 if final_was_token else 1, self.token_event(sent))
            for event in events:
                self.event(event)
            if self.chat and not knobs.no_done:
                self.event("[DONE]")
            self.end()
        except OSError:
            h.close_connection = True
        return None


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
    Handler.stream_knobs = StreamKnobs(sys.argv[1:])
    server = ThreadingHTTPServer((config.host, config.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    print(f"fake llama-server listening on {config.host}:{port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
