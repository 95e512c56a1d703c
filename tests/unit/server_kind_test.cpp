// Server kind files: what a valid one gives, every way one can be wrong (each refused naming the
// file and key), placeholders, and how a name is resolved (a kind file by path, NAME.toml in a
// user directory, the shipped kinds).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/server_kind.hpp"
#include "driver/server_kinds.hpp"
#include "http/completion_request.hpp"
#include "io/server_kind_io.hpp"
#include "scratch_dir.hpp"

using namespace bi;

namespace {

const std::string kValid = R"(schema = "bi-server-kind/1"
name = "my-server"
description = "a test kind"
[launch]
argv = ["--weights", "{model}", "--listen", "{host}:{port}", "--slots-n", "{n}", "--ctx={ctx_total}"]
managed_flags = ["--listen"]
)";

std::string problem(const std::string& text) {
    try {
        io::parse_server_kind(text, "k.toml");
    } catch (const Error& e) {
        CHECK(e.category() == ErrorCategory::Input);
        return e.what();
    }
    return "(accepted)";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("server kind: a valid file fills its templates", "[server-kind]") {
    const auto kind = io::parse_server_kind(kValid, "k.toml");
    CHECK(kind.name == "my-server");
    CHECK(kind.source == "k.toml");
    CHECK(kind.sha256.size() == 64);
    core::LaunchValues values;
    values.model = "/m.gguf";
    values.port = 8080;
    values.n = 4;
    values.ctx = 1024;
    CHECK(core::launch_argv(kind, "/bin/s", values, {"-x"}) ==
          std::vector<std::string>{"/bin/s", "--weights", "/m.gguf", "--listen", "127.0.0.1:8080",
                                   "--slots-n", "4", "--ctx=4096", "-x"});
    CHECK_THROWS_WITH(core::check_user_flags(kind, {"--listen=0.0.0.0:1"}),
                      Catch::Contains("itself"));
    CHECK_FALSE(kind.request.cache_witness.declared());

    // The cache's switch goes after the kind's argv, before the user's flags; its witness reads.
    const auto cold = io::parse_server_kind(kValid +
                                                "cache_off = [\"--no-cache\"]\n[request]\n"
                                                "cached_tokens = [\"usage.details.cached\"]\n"
                                                "evaluated_tokens = [\"timings.prompt_n\"]\n",
                                            "k.toml");
    CHECK(core::launch_argv(cold, "/bin/s", values, {"-x"}).back() == "-x");
    CHECK(core::launch_argv(cold, "/bin/s", values, {"-x"}).rbegin()[1] == "--no-cache");
    CHECK(cold.request.cache_witness.describe() ==
          "usage.details.cached, prompt tokens - timings.prompt_n");

    // Warm-up requests and drafting: none unless declared.
    CHECK(kind.request.warmup == 0);
    CHECK(kind.request.draft_fields.empty());
    CHECK(kind.flags.draft_model.empty());
    const auto drafting = io::parse_server_kind(kValid +
                                                    "[request]\nwarmup = 3\n"
                                                    "draft_fields = [\"timings.draft_n\"]\n"
                                                    "[flags]\n"
                                                    "draft_model = [\"-md\", \"--model-draft\"]\n",
                                                "k.toml");
    CHECK(drafting.request.warmup == 3);
    CHECK(drafting.request.draft_fields == std::vector<std::string>{"timings.draft_n"});
    CHECK(drafting.flags.draft_model == std::vector<std::string>{"-md", "--model-draft"});
}

TEST_CASE("server kind: every way a file can be wrong is refused, naming it", "[server-kind]") {
    const std::pair<std::string, std::string> cases[] = {
        {replaced(kValid, "bi-server-kind/1", "bi-server-kind/9"), "schema 'bi-server-kind/9'"},
        {replaced(kValid, "schema = \"bi-server-kind/1\"\n", ""), "schema ''"},
        {replaced(kValid, "my-server", "my server"), "name 'my server'"},
        {replaced(kValid, "description", "descripton"), "unknown key 'descripton'"},
        {replaced(kValid, "managed_flags", "managed"), "unknown key 'managed' in [launch]"},
        {replaced(kValid, "{ctx_total}", "{ctx_totl}"), "unknown placeholder {ctx_totl}"},
        {replaced(kValid, "{ctx_total}", "{ctx_total"), "unknown placeholder {ctx_total"},
        {replaced(kValid, "\"{host}:{port}\"", "\"{host}\""), "never use {port}"},
        {replaced(kValid, "\"{n}\"", "\"4\""), "never use {n}"},
        {replaced(kValid, "\"{model}\"", "\"m.gguf\""), "neither by launch.argv"},
        {kValid + "ready_path = \"health\"\n", "launch.ready_path 'health' must be a path"},
        {kValid + "model_form = \"blob\"\n", "model_form 'blob'"},
        {kValid + "env = { \"1X\" = \"a\" }\n", "'1X' is not an environment variable name"},
        {kValid + "env = { X = \"{nope}\" }\n", "launch.env.X: unknown placeholder {nope}"},
        {kValid + "[request]\nfields = { seed = 1 }\n", "request.fields.seed: bi-run sets it"},
        {kValid + "[request]\nstream_fields = { stream = false }\n",
         "request.stream_fields.stream: bi-run sets it"},
        {kValid + "[request]\nstream_fields = 1\n", "request.stream_fields must be a table"},
        {kValid + "[request]\nlimit_fields = []\n", "request.limit_fields must name"},
        {kValid + "[request]\nchat = \"/x\"\n", "unknown key 'chat' in [request]"},
        {kValid + "[request]\ncached_tokens = [\"usage..cached\"]\n",
         "request.cached_tokens: 'usage..cached' is not a dotted field path"},
        {kValid + "[request]\nevaluated_tokens = [\"timings.\"]\n",
         "request.evaluated_tokens: 'timings.' is not a dotted field path"},
        {kValid + "cache_off = [\"--cache={nope}\"]\n", "launch.cache_off: unknown placeholder"},
        {kValid + "[request]\nwarmup = -1\n", "request.warmup must be a count of requests from 0"},
        {kValid + "[request]\nwarmup = \"3\"\n", "request.warmup must be a count"},
        {kValid + "[request]\nwarmup = 65\n", "from 0 to 64"},
        {kValid + "[request]\ndraft_fields = [\"timings draft_n\"]\n",
         "request.draft_fields: 'timings draft_n' is not a dotted field path"},
        {kValid + "[flags]\ndraft_model = [\"md\"]\n",
         "flags.draft_model: 'md' is not a flag name"},
        {kValid + "[evidence]\nslots_path = \"/slots\"\n", "evidence.slot_busy must name"},
        {kValid + "[evidence]\nrunning_gauge = \"g\"\n", "need metrics_path"},
        {kValid + "[evidence]\nmetrics_path = \"/metrics\"\n", "metrics_path needs running_gauge"},
        {kValid + "[evidence]\nmetrics_path = \"/m\"\nrunning_gauge = \"g\"\nstep_count = \"c\"\n",
         "step_count goes with step_mean or step_sum"},
        {kValid +
             "[evidence]\nmetrics_path = \"/m\"\nrunning_gauge = \"g\"\nmetrics_format = \"xml\"\n",
         "metrics_format 'xml'"},
        {kValid + "[evidence]\ncapacity_field = \"total_slots\"\n", "needs identity.props_path"},
        {kValid + "[identity]\nversion = \"x\"\n", "unknown key 'version' in [identity]"},
        {kValid + "[determinism]\nswitch = \"x\"\n", "unknown key 'switch' in [determinism]"},
        {kValid + "[determinism]\nenv = { \"1X\" = \"1\" }\n",
         "determinism.env: '1X' is not an environment variable name"},
        {kValid + "[determinism]\nflags = [\"--det={nope}\"]\n",
         "determinism.flags: unknown placeholder"},
        {kValid + "[determinism]\nflags = [\"--det\"]\nstatus_path = \"/info\"\n",
         "status_path and status_field are given together"},
        {kValid + "[determinism]\nflags = [\"--det\"]\nstatus_path = \"/i\"\n"
                  "status_field = \"a..b\"\n",
         "'a..b' is not a dotted field path"},
        {kValid + "[determinism]\nflags = [\"--det\"]\nnone = \"x\"\n",
         "a kind with a mode (env or flags) gives no 'none' reason"},
        {kValid + "[determinism]\nwarmup = 3\n", "status and warmup need the mode's env or flags"},
        {kValid + "[determinism]\nflags = [\"--det\"]\nwarmup = 65\n",
         "determinism.warmup must be a count of requests from 0 to 64"},
        {kValid + "[identity]\nprobe_argv = [\"--help\"]\n", "probe_text are given together"},
        {kValid + "[identity]\nprobe_text = [\"x\"]\n", "probe_text are given together"},
        {kValid + "[identity]\nprobe_argv = [\"-h\"]\nprobe_text = [\"\"]\n",
         "the non-empty texts"},
        {kValid + "[flags]\nkv_cache = [\"-ctk\"]\n", "unknown key 'kv_cache' in [flags]"},
        {kValid + "[flags]\nkv_cache_type_k = [\"-ctk\"]\n", "are given together"},
        {kValid + "[flags]\nkv_cache_type = [\"--kv\"]\nkv_cache_type_k = [\"-ctk\"]\n"
                  "kv_cache_type_v = [\"-ctv\"]\n",
         "kv_cache_type is one flag for K and V; not with kv_cache_type_k/_v"},
        {kValid + "[flags]\ngpu_layers = [\"ngl\"]\n", "flags.gpu_layers: 'ngl' is not a flag"},
        {kValid + "[flags]\ndevices = [\"--device=x\"]\n", "'--device=x' is not a flag"},
        // The prefill chunk: {chunk} only where the chunk is set, which must use it, and the
        // flags it sets named in [flags] with every name they go by.
        {replaced(kValid, "--ctx={ctx_total}", "--chunk={chunk}"),
         "launch.argv: unknown placeholder {chunk} in '--chunk={chunk}' (known: {model}, {host}, "
         "{port}, {n}, {ctx}, {ctx_total}; {chunk} only in launch.prefill_chunk)"},
        {kValid + "cache_off = [\"--batch={chunk}\"]\n", "launch.cache_off: unknown placeholder"},
        {kValid +
             "prefill_chunk = [\"--batch\", \"512\"]\n[flags]\nprefill_chunk = [\"--batch\"]\n",
         "launch.prefill_chunk must set the chunk: it never uses {chunk}"},
        {kValid + "prefill_chunk = []\n", "launch.prefill_chunk must set the chunk"},
        {kValid + "prefill_chunk = [\"--batch\", \"{chunks}\"]\n",
         "launch.prefill_chunk: unknown placeholder {chunks}"},
        {kValid + "prefill_chunk = [\"--batch\", \"{chunk}\"]\n",
         "launch.prefill_chunk and flags.prefill_chunk are given together"},
        {kValid + "[flags]\nprefill_chunk = [\"--batch\"]\n",
         "launch.prefill_chunk and flags.prefill_chunk are given together"},
        {kValid + "prefill_chunk = [\"--batch\", \"{chunk}\", \"--micro={chunk}\"]\n"
                  "[flags]\nprefill_chunk = [\"--batch\", \"-b\"]\n",
         "launch.prefill_chunk sets --micro, which flags.prefill_chunk does not name"},
        {kValid +
             "prefill_chunk = [\"--batch\", \"{chunk}\"]\n[flags]\nprefill_chunk = [\"batch\"]\n",
         "flags.prefill_chunk: 'batch' is not a flag name"},
        {kValid + "prefill_chunk = \"--batch {chunk}\"\n",
         "launch.prefill_chunk must be an array of strings"},
        {replaced(kValid, "[launch]", "[lunch]"), "unknown key 'lunch'"},
        {"schema = \"bi-server-kind/1\"\nname = \"x\"\n", "no [launch] table"},
        {replaced(kValid, "argv = [", "argv = [1, "), "launch.argv must be an array of strings"},
        {"name = [", "invalid TOML"},
    };
    for (const auto& [text, message] : cases) {
        INFO(message);
        const auto what = problem(text);
        CHECK_THAT(what, Catch::Contains("k.toml") && Catch::Contains(message));
    }
}

TEST_CASE("server kind: the flags section names the server's own flags", "[server-kind]") {
    const auto kind = io::parse_server_kind(kValid + R"([flags]
kv_cache_type_k = ["--k-type"]
kv_cache_type_v = ["--v-type", "-vt"]
gpu_layers = ["--layers"]
)",
                                            "k.toml");
    CHECK(kind.flags.has_kv_cache_type());
    CHECK(kind.flags.kv_cache_type_v == std::vector<std::string>{"--v-type", "-vt"});
    CHECK(kind.flags.gpu_layers == std::vector<std::string>{"--layers"});
    CHECK(kind.flags.devices.empty());
    // A kind without the section reads none of the user's flags.
    CHECK_FALSE(io::parse_server_kind(kValid, "k.toml").flags.has_kv_cache_type());
    const auto llama = driver::resolve_server_kind("llama-server", {});
    CHECK(llama.flags.kv_cache_type_k == std::vector<std::string>{"-ctk", "--cache-type-k"});
    CHECK(llama.flags.tensor_split == std::vector<std::string>{"--tensor-split", "-ts"});
}

TEST_CASE("server kind: the prefill chunk's flags go into a launch only when a chunk is set",
          "[server-kind]") {
    const auto kind = io::parse_server_kind(
        kValid +
            "cache_off = [\"--no-cache\"]\n"
            "prefill_chunk = [\"--batch\", \"{chunk}\", \"--micro={chunk}\"]\n"
            "[flags]\nprefill_chunk = [\"--batch\", \"-b\", \"--micro\"]\n",
        "k.toml");
    CHECK(kind.launch.prefill_chunk ==
          std::vector<std::string>{"--batch", "{chunk}", "--micro={chunk}"});
    CHECK(kind.flags.prefill_chunk == std::vector<std::string>{"--batch", "-b", "--micro"});
    CHECK(core::flag_names(kind.launch.prefill_chunk) ==
          std::vector<std::string>{"--batch", "--micro"});
    core::LaunchValues values;
    values.model = "/m.gguf";
    values.port = 8080;
    values.n = 2;
    values.ctx = 1024;
    const std::vector<std::string> without{"/bin/s",         "--weights", "/m.gguf", "--listen",
                                           "127.0.0.1:8080", "--slots-n", "2",       "--ctx=2048",
                                           "--no-cache",     "-x"};
    CHECK(core::launch_argv(kind, "/bin/s", values, {"-x"}) == without);
    // After the kind's argv and its cache switch, before the user's flags.
    values.prefill_chunk = 64;
    auto with = without;
    with.insert(with.end() - 1, {"--batch", "64", "--micro=64"});
    CHECK(core::launch_argv(kind, "/bin/s", values, {"-x"}) == with);
    // A user flag that sets the chunk by any of its names, "NAME=VALUE" included.
    CHECK(core::prefill_chunk_flag_among(kind, {"-x", "-b=32"}) == "-b=32");
    CHECK(core::prefill_chunk_flag_among(kind, {"--micro", "8"}) == "--micro");
    CHECK(core::prefill_chunk_flag_among(kind, {"-x", "--batched"}).empty());
    // A kind without the flags cannot be asked for a chunk.
    const auto plain = io::parse_server_kind(kValid, "k.toml");
    CHECK(plain.launch.prefill_chunk.empty());
    CHECK(core::prefill_chunk_flag_among(plain, {"--batch"}).empty());
    CHECK_THROWS_WITH(core::launch_argv(plain, "/bin/s", values, {}),
                      Catch::Contains("cannot set a prefill chunk"));
}

TEST_CASE("server kind: each shipped kind's prefill-chunk flags, or none", "[server-kind]") {
    const std::pair<const char*, std::vector<std::string>> sets[] = {
        {"llama-server", {"-b", "{chunk}", "-ub", "{chunk}"}},
        {"ik_llama.cpp", {"-b", "{chunk}", "-ub", "{chunk}"}},
        {"vllm", {"--enable-chunked-prefill", "--max-num-batched-tokens", "{chunk}"}},
        {"sglang", {"--chunked-prefill-size", "{chunk}"}},
        {"tgi", {"--max-batch-prefill-tokens", "{chunk}"}},
        {"trtllm-serve", {"--enable_chunked_prefill", "--max_num_tokens", "{chunk}"}},
        {"ollama", {}},
        {"openai-generic", {}},
    };
    for (const auto& [name, flags] : sets) {
        INFO(name);
        const auto kind = driver::resolve_server_kind(name, {});
        CHECK(kind.launch.prefill_chunk == flags);
        CHECK(kind.flags.prefill_chunk.empty() == flags.empty());
    }
    const auto llama = driver::resolve_server_kind("llama-server", {});
    CHECK(llama.flags.prefill_chunk ==
          std::vector<std::string>{"-b", "--batch-size", "-ub", "--ubatch-size"});
    CHECK(core::prefill_chunk_flag_among(llama, {"--ubatch-size=1024"}) == "--ubatch-size=1024");
    CHECK(core::prefill_chunk_flag_among(driver::resolve_server_kind("vllm", {}),
                                         {"--no-enable-chunked-prefill"}) ==
          "--no-enable-chunked-prefill");
}

TEST_CASE("server kind: placeholders", "[server-kind]") {
    CHECK(core::unknown_placeholder("-c={ctx}") == "");
    CHECK(core::unknown_placeholder("{nope}") == "{nope}");
    CHECK(core::unknown_placeholder("a{") == "{");
    core::LaunchValues v;
    v.n = 3;
    v.ctx = 10;
    CHECK(core::fill_placeholders("{n}x{ctx}={ctx_total}", v) == "3x10=30");
    // {chunk} is known only where a template may hold it.
    CHECK(core::unknown_placeholder("-b={chunk}") == "{chunk}");
    CHECK(core::unknown_placeholder("-b={chunk}", true) == "");
    CHECK(core::unknown_placeholder("-b={chunks}", true) == "{chunks}");
    v.prefill_chunk = 128;
    CHECK(core::fill_placeholders("-ub={chunk}", v) == "-ub=128");
}

TEST_CASE("server kind: the shipped kinds read, and a name resolves user files first",
          "[server-kind]") {
    const auto& shipped = driver::builtin_server_kinds();
    REQUIRE(shipped.size() >= 2);
    for (const auto& kind : shipped) CHECK_THAT(kind.source, Catch::StartsWith("built-in:"));
    CHECK(driver::resolve_server_kind("llama-server", {}).source == "built-in:llama-server.toml");
    // vLLM's batch-invariant mode documents three warm-up requests; the llama.cpp servers state
    // their drafting per answer and take a draft model by flag.
    CHECK(driver::resolve_server_kind("vllm", {}).request.warmup == 3);
    // Determinism modes: what turns each on, and how a server says it is.
    const auto vllm = driver::resolve_server_kind("vllm", {});
    CHECK(vllm.determinism.describe() == "VLLM_BATCH_INVARIANT=1");
    CHECK(vllm.determinism.warmup == 3);
    CHECK_FALSE(vllm.determinism.reports());
    const auto sglang = driver::resolve_server_kind("sglang", {});
    CHECK(sglang.determinism.flags == std::vector<std::string>{"--enable-deterministic-inference"});
    CHECK(sglang.determinism.status_path == "/get_server_info");
    CHECK(sglang.determinism.status_field == "enable_deterministic_inference");
    CHECK(driver::resolve_server_kind("trtllm-serve", {}).determinism.describe() ==
          "FORCE_DETERMINISTIC=1");
    for (const char* name : {"llama-server", "ik_llama.cpp", "tgi", "ollama", "openai-generic"}) {
        const auto kind = driver::resolve_server_kind(name, {});
        CHECK_FALSE(kind.determinism.available());
        CHECK_FALSE(kind.determinism.none.empty());
    }
    // The mode's flags follow the cache switch; its variables follow the kind's own.
    core::LaunchValues values;
    values.model = "/m";
    values.port = 9;
    const auto argv =
        core::launch_argv(sglang, "python3", values, {"-x"}, core::PromptCache::Off, true);
    REQUIRE(argv.size() >= 3);
    CHECK(argv.rbegin()[1] == "--enable-deterministic-inference");
    CHECK(argv.rbegin()[2] == "--disable-radix-cache");
    CHECK(core::launch_env(vllm, values, true) ==
          std::vector<std::string>{"VLLM_BATCH_INVARIANT=1"});
    CHECK(core::launch_env(vllm, values, false).empty());
    for (const char* name : {"llama-server", "ik_llama.cpp"}) {
        const auto llama = driver::resolve_server_kind(name, {});
        CHECK(llama.request.warmup == 0);
        CHECK(llama.request.draft_fields == std::vector<std::string>{"timings.draft_n"});
        CHECK(llama.flags.draft_model == std::vector<std::string>{"-md", "--model-draft"});
    }

    testing::ScratchDir dir;
    dir.write("my-server.toml", kValid);
    // A bare name is looked up in the directories given; a path is read as it is.
    CHECK(driver::resolve_server_kind("my-server", {dir.path()}).name == "my-server");
    CHECK(driver::resolve_server_kind(dir.file("my-server.toml"), {}).name == "my-server");
    // A user's file shadows a shipped kind of the same name.
    dir.write("llama-server.toml", replaced(kValid, "my-server", "llama-server"));
    CHECK(driver::resolve_server_kind("llama-server", {dir.path()}).source ==
          dir.file("llama-server.toml"));
    // A file must be the kind its name says.
    dir.write("other.toml", kValid);
    CHECK_THROWS_WITH(driver::resolve_server_kind("other", {dir.path()}),
                      Catch::Contains("names kind 'my-server', not 'other'"));
    // An unknown name lists every kind it could have been.
    try {
        driver::resolve_server_kind("vllm-x", {dir.path()});
        FAIL("an unknown kind was accepted");
    } catch (const Error& e) {
        CHECK(e.category() == ErrorCategory::Usage);
        CHECK_THAT(e.what(), Catch::Contains("no such server kind") &&
                                 Catch::Contains("ik_llama.cpp") &&
                                 Catch::Contains("llama-server") && Catch::Contains("my-server"));
    }
    CHECK_THROWS_AS(driver::resolve_server_kind(dir.file("missing.toml"), {}), Error);
}

TEST_CASE("server kind: $BI_SERVER_KIND_PATH is searched after --server-kind-dir",
          "[server-kind]") {
    testing::ScratchDir dir;
    dir.write("my-server.toml", kValid);
    ::setenv("BI_SERVER_KIND_PATH", ("/no/such/dir::" + dir.path()).c_str(), 1);
    CHECK(driver::resolve_server_kind("my-server", {}).source == dir.file("my-server.toml"));
    const auto names = driver::known_server_kinds({});
    CHECK(std::find(names.begin(), names.end(), "my-server") != names.end());
    ::unsetenv("BI_SERVER_KIND_PATH");
    CHECK_THROWS_AS(driver::resolve_server_kind("my-server", {}), Error);
}

TEST_CASE("server kind: llama-server's file declares what a cert without a kind was judged by",
          "[server-kind]") {
    // A cert from before server kinds replays with llama-server's evidence, and run-mock speaks
    // its dialect: the shipped file must say exactly that, or its certs would change.
    const auto kind = driver::resolve_server_kind("llama-server", {});
    CHECK(kind.evidence == core::llama_server_evidence());
    const auto& r = http::RequestOptions{}.dialect;
    CHECK(kind.request.chat_path == r.chat_path);
    CHECK(kind.request.completion_path == r.completion_path);
    CHECK(kind.request.limit_fields == r.limit_fields);
    CHECK(kind.request.fields == r.fields);
    CHECK(kind.request.slot_field == r.slot_field);
    CHECK(kind.request.model_field == r.model_field);
    CHECK(kind.request.tokenize_path == r.tokenize_path);
    CHECK(kind.launch.ready_path == "/health");
    CHECK(kind.identity.props_path == "/props");
    CHECK(kind.identity.version_argv == std::vector<std::string>{"--version"});
}

TEST_CASE("server kind: the request, evidence and identity sections read", "[server-kind]") {
    const std::string text = kValid + R"(env = { B_PORT = "{port}", A_N = "n{n}" }
ready_path = "/ready"
model_form = "directory"
[request]
chat_path = "/api/chat"
limit_fields = ["max_new_tokens"]
fields = { top_k = 1, options = { mirostat = 0 } }
stream_fields = { stream_options = { include_usage = true } }
model_field = true
[evidence]
metrics_path = "/stats"
metrics_format = "json-iterations"
running_gauge = "batch.active"
capacity_field = "max_batch"
[identity]
props_path = "/info"
version_argv = []
)";
    const auto kind = io::parse_server_kind(text, "k.toml");
    CHECK(kind.launch.ready_path == "/ready");
    CHECK(kind.launch.model_form == core::ModelForm::Directory);
    core::LaunchValues v;
    v.port = 9;
    v.n = 3;
    // In name order, each filled.
    CHECK(core::launch_env(kind, v) == std::vector<std::string>{"A_N=n3", "B_PORT=9"});
    CHECK(kind.request.chat_path == "/api/chat");
    CHECK(kind.request.completion_path.empty());
    CHECK(kind.request.slot_field.empty());
    CHECK(kind.request.model_field);
    CHECK(kind.request.fields.find("options")->find("mirostat")->as_int() == 0);
    CHECK(kind.request.stream_fields.find("stream_options")->find("include_usage")->as_bool());
    CHECK(kind.evidence.has_gauge());
    CHECK_FALSE(kind.evidence.has_slots());
    CHECK_FALSE(kind.evidence.has_steps());
    CHECK(kind.evidence.props_path == "/info");
    CHECK(kind.identity.version_argv.empty());
    // Nothing declared: no evidence at all.
    CHECK_FALSE(io::parse_server_kind(kValid, "k.toml").evidence.has_any());
}
