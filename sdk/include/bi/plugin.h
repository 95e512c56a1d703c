/* The batch-invariance plugin contract (ABI 1.1): all that a scorer or work-set generator plugin
 * and the host agree on. C99, fixed-width types, only <stdint.h> and <stddef.h>, so a plugin
 * never depends on the host's compiler, standard library or Poco version. */
#ifndef BI_PLUGIN_H
#define BI_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the rules every member below follows --------------------------------------------------- */

/* Threads. Every pointer member's comment ends with one of three tags:
 *   [host thread]     The host reads the data, or calls the function, from one thread at a time:
 *                     never two calls into one scorer instance or one generator at once. Data the
 *                     host fills is valid for the call it is handed to.
 *   [calling thread]  Used by the plugin inside a host call: it calls the function (passing
 *                     host_data back), or hands the data to one, only on the thread of the host
 *                     call that gave it the sink or services, and only until that call returns.
 *                     The services a scorer's create receives are the one exception: they stay
 *                     callable until destroy returns, from within that scorer's calls.
 *   [any thread]      Constant until unload: the host may read it from any thread at any time.
 *
 * Ownership. Every pointer member also says who owns what it points to, and for how long:
 * "borrowed for the call" (valid until the call it came with returns: copy what must last),
 * "owned by the plugin until unload" (a scorer instance: until destroy), "owned by the host", or
 * "copied" by the sink or service it is handed to (the plugin may free or reuse it at once).
 *
 * Strings crossing the boundary are NUL-terminated UTF-8 unless a size comes with them.
 *
 * Growth. A struct that may grow begins with uint32_t struct_size, which whoever fills it sets to
 * the sizeof it was compiled with. Members are only ever appended, never reordered, resized or
 * removed, and each append raises BI_PLUGIN_ABI_MINOR. A reader reads a member only when the
 * writer's struct_size covers it (BI_STRUCT_HAS); a member it does not cover is absent. An
 * appended member is also absent when zero (NULL), so that a writer that zero-fills the struct
 * says nothing it did not mean; where zero is a real value its comment names the absent one
 * (completion_tokens: -1). A struct without struct_size is frozen: it never grows, and a later
 * minor that needs more adds a new struct instead.
 *
 * Future interfaces. A new kind of component, or a new host service, will not stretch these
 * structs' meaning: it gets an id string that carries its own version (e.g. "bi.tokenizer/1") and
 * is looked up by it, CLAP-style, through a `const void* (*get_extension)(const char* id)`
 * appended to bi_plugin_descriptor (the plugin's interfaces) or to bi_host_services (the host's).
 * NULL, or a struct_size that does not cover the member, means none is offered. A published id
 * never changes; a changed interface is a new id. ABI 1.1 defines no extensions. */

/* The host loads a plugin only when its abi_major equals the host's; abi_minor counts appends
 * (Growth above), so plugins and hosts of different minors work together. */
#define BI_PLUGIN_ABI_MAJOR 1
#define BI_PLUGIN_ABI_MINOR 1

/* The one symbol a plugin exports. */
#define BI_PLUGIN_ENTRY_SYMBOL "bi_plugin_entry"

#if defined(_WIN32)
#define BI_PLUGIN_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define BI_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define BI_PLUGIN_EXPORT
#endif

/* True when the struct at `ptr` (which begins with struct_size) is long enough to hold `field`:
 * the check Growth above asks for before a member appended in a later minor is read. */
#define BI_STRUCT_HAS(ptr, type, field) \
    ((ptr)->struct_size >= offsetof(type, field) + sizeof((ptr)->field))

/* Status codes (int32_t) returned by plugin functions. Anything but BI_STATUS_OK is a failure,
 * which the plugin describes through its sink's set_error before returning. */
enum {
    BI_STATUS_OK = 0,
    BI_STATUS_ERROR = 1,            /* a failure with no more specific code */
    BI_STATUS_INVALID_ARGUMENT = 2, /* bad config JSON, generator parameter or input */
    BI_STATUS_UNAVAILABLE = 3,      /* a host service could not answer (e.g. no tokenizer) */
    BI_STATUS_EXCEPTION = 4         /* a C++ exception was caught at the boundary (plugin.hpp) */
};

/* Levels for bi_host_services.log. */
enum { BI_LOG_DEBUG = 0, BI_LOG_INFO = 1, BI_LOG_WARNING = 2, BI_LOG_ERROR = 3 };

/* ---- services the host offers a plugin ------------------------------------------------------ */

typedef struct bi_host_services {
    uint32_t struct_size;
    /* Owned by the host; pass it back unchanged. [calling thread] */
    void* host_data;
    /* Counts the tokens the server under test makes of `text` (its /tokenize), so fill ratios
     * mean real tokens: stores the count in *out_count and returns BI_STATUS_OK, or returns
     * BI_STATUS_UNAVAILABLE. May be NULL when no server is running (e.g. `bi-run workset`): then
     * estimate, e.g. one token per 4 bytes of UTF-8, and document that the plugin does.
     * `text` is borrowed for the call. [calling thread] */
    int32_t (*count_tokens)(void* host_data, const char* text, size_t size, int64_t* out_count);
    /* Writes one line to the host's log; `message` is copied. May be NULL. [calling thread] */
    void (*log)(void* host_data, int32_t level, const char* message);
} bi_host_services;

/* ---- scorers -------------------------------------------------------------------------------- */

/* What a scorer sees of one completion. Filled by the host, only read by the plugin. */
typedef struct bi_score_input {
    uint32_t struct_size;
    /* Stable item id, e.g. "m|4096|A2|0.500000|0|fill0.35". Borrowed for the call. [host thread] */
    const char* test_id;
    /* The row's family. Borrowed for the call. [host thread] */
    const char* family;
    /* The user message that was sent. Borrowed for the call. [host thread] */
    const char* prompt;
    /* The system message, "" when none. Borrowed for the call. [host thread] */
    const char* system;
    /* The server's text; completion_size counts its bytes without the terminating NUL (the text
     * itself may hold a NUL). Borrowed for the call. [host thread] */
    const char* completion;
    size_t completion_size;
    /* The row's expected answer as JSON text, "null" when none. Borrowed for the call.
     * [host thread] */
    const char* expected_answer_json;
    double fill;   /* the row's fill ratio of the context */
    uint64_t seed; /* the item's seed, derived from test_id */
    int32_t rep;   /* repetition index, 0-based */
    /* extract_answer's JSON text ("null" when it set none); NULL during extract_answer itself.
     * Borrowed for the call. [host thread] */
    const char* extracted_answer_json;
    /* classify_failure_mode's label; NULL before score. Borrowed for the call. [host thread] */
    const char* failure_mode;
    /* Since ABI 1.1 (Growth above): the rest of what the server generated. */
    /* The reasoning text (chat message.reasoning_content), "" when none; reasoning_size counts
     * its bytes without the terminating NUL. Borrowed for the call. [host thread] */
    const char* reasoning;
    size_t reasoning_size;
    /* The tool calls (chat message.tool_calls) as compact JSON text with sorted keys and each
     * call's server-made "id" removed; "null" when none (never "[]"). Borrowed for the call.
     * [host thread] */
    const char* tool_calls_json;
    int64_t completion_tokens; /* generated token count, -1 when the server did not say */
    /* Why generation stopped, as the server said it: chat finish_reason ("stop", "length",
     * "tool_calls"), /completion stop_type ("eos", "word", "limit"); "" when unknown.
     * Borrowed for the call. [host thread] */
    const char* stop_reason;
} bi_score_input;

/* Where a scorer puts its results. Every function copies its arguments before it returns, so
 * the plugin may free or reuse its buffers at once. */
typedef struct bi_scorer_sink {
    uint32_t struct_size;
    /* Owned by the host; pass it back unchanged. [calling thread] */
    void* host_data;
    /* extract_answer's result as JSON text ("\"Paris\"", "42", "null"); not calling it means
     * null. `json` is copied by the sink. [calling thread] */
    void (*set_extracted_answer)(void* host_data, const char* json, size_t size);
    /* classify_failure_mode's result: "ok" for a genuinely scored completion, else a label such
     * as "empty". Required on success. `label` is copied by the sink. [calling thread] */
    void (*set_failure_mode)(void* host_data, const char* label);
    /* score's result: a finite score and passed (0 or 1). Required on success. [calling thread] */
    void (*set_score)(void* host_data, double score, int32_t passed);
    /* Any function's one-line failure description; `message` is copied by the sink.
     * [calling thread] */
    void (*set_error)(void* host_data, const char* message);
} bi_scorer_sink;

/* One scorer. Per completion the host calls extract_answer, classify_failure_mode and score, in
 * that order, on one instance from one thread at a time (after an arm, on its main thread).
 * Results must depend only on the input: the gate compares them exactly across arms. Every
 * function returns a BI_STATUS_* code and never throws or longjmps out. */
typedef struct bi_scorer {
    uint32_t struct_size;
    /* Unique among all loaded scorers, e.g. "exact". Owned by the plugin until unload.
     * [any thread] */
    const char* id;
    /* One line for `bi-run plugins`, or NULL. Owned by the plugin until unload. [any thread] */
    const char* description;
    /* Opaque to the host; the plugin reaches it through `self`. Owned by the plugin until
     * unload. [any thread] */
    void* plugin_data;
    /* Optional (NULL: every call gets instance NULL). Builds per-run state from `config_json`
     * (JSON text, "{}" when none was given; borrowed for the call) and stores it in
     * *out_instance, which the plugin owns until destroy. `host` is owned by the host and stays
     * valid until destroy returns. Failures go to sink->set_error. [host thread] */
    int32_t (*create)(const struct bi_scorer* self, const char* config_json,
                      const bi_host_services* host, void** out_instance,
                      const bi_scorer_sink* sink);
    /* Set exactly when create is: frees what create made. [host thread] */
    void (*destroy)(const struct bi_scorer* self, void* instance);
    /* Required; calls sink->set_extracted_answer, or not for null. [host thread] */
    int32_t (*extract_answer)(const struct bi_scorer* self, void* instance,
                              const bi_score_input* input, const bi_scorer_sink* sink);
    /* Required; calls sink->set_failure_mode. [host thread] */
    int32_t (*classify_failure_mode)(const struct bi_scorer* self, void* instance,
                                     const bi_score_input* input, const bi_scorer_sink* sink);
    /* Required; calls sink->set_score. Called whatever the failure mode. [host thread] */
    int32_t (*score)(const struct bi_scorer* self, void* instance, const bi_score_input* input,
                     const bi_scorer_sink* sink);
} bi_scorer;

/* ---- work-set generators -------------------------------------------------------------------- */

/* One `--generator-param key=value`. Frozen (Growth above): it has no struct_size, so it never
 * grows. */
typedef struct bi_param {
    const char* key;   /* Borrowed for the call. [host thread] */
    const char* value; /* Borrowed for the call. [host thread] */
} bi_param;

/* What to generate rows for. Filled by the host, only read by the plugin. */
typedef struct bi_generate_request {
    uint32_t struct_size;
    /* The cell's model alias. Borrowed for the call. [host thread] */
    const char* model_id;
    int64_t ctx;   /* context size per slot, in tokens */
    uint64_t seed; /* the run's seed: the same request must give byte-identical rows */
    /* param_count parameters in command-line order. Borrowed for the call. [host thread] */
    const bi_param* params;
    uint32_t param_count;
} bi_generate_request;

/* One work-set row (docs/design.md section 8), handed to bi_workset_sink.add_row. */
typedef struct bi_workset_row {
    uint32_t struct_size;
    /* Required, non-empty. Borrowed for the add_row call (copied by the sink). [calling thread] */
    const char* prompt;
    /* NULL or "" for none. Borrowed for the add_row call (copied by the sink). [calling thread] */
    const char* system;
    /* Required, non-empty. Borrowed for the add_row call (copied by the sink). [calling thread] */
    const char* family;
    double fill; /* fraction of ctx the prompt fills, 0..1 */
    /* Any JSON text, NULL for null. Borrowed for the add_row call (copied by the sink).
     * [calling thread] */
    const char* expected_answer_json;
} bi_workset_row;

/* Where a generator puts its rows. */
typedef struct bi_workset_sink {
    uint32_t struct_size;
    /* Owned by the host; pass it back unchanged. [calling thread] */
    void* host_data;
    /* Appends one row, copying it. Returns BI_STATUS_OK, or an error status when the host
     * refused the row (the host records why): stop and return that status. [calling thread] */
    int32_t (*add_row)(void* host_data, const bi_workset_row* row);
    /* A one-line failure description; `message` is copied by the sink. [calling thread] */
    void (*set_error)(void* host_data, const char* message);
} bi_workset_sink;

/* One work-set generator. Generators are deterministic: a fully specified PRNG seeded from the
 * request, never a library distribution whose output differs between platforms. */
typedef struct bi_generator {
    uint32_t struct_size;
    /* Unique among all loaded generators, e.g. "spark". Owned by the plugin until unload.
     * [any thread] */
    const char* id;
    /* One line for `bi-run plugins`, or NULL. Owned by the plugin until unload. [any thread] */
    const char* description;
    /* Opaque to the host; the plugin reaches it through `self`. Owned by the plugin until
     * unload. [any thread] */
    void* plugin_data;
    /* Required. Emits the rows in order through sink->add_row. `request`, `host` and `sink` are
     * owned by the host and borrowed for the call. [host thread] */
    int32_t (*generate)(const struct bi_generator* self, const bi_generate_request* request,
                        const bi_host_services* host, const bi_workset_sink* sink);
} bi_generator;

/* ---- the descriptor ------------------------------------------------------------------------- */

/* What bi_plugin_entry returns: it and all it points to stay valid and unchanged until unload
 * (a static object is usual). The tables hold pointers, not structs, so that each entry grows on
 * its own (its own struct_size). struct_size, abi_major and abi_minor stay first in every future
 * ABI, major ones included, so that any host can read why it refuses a plugin. */
typedef struct bi_plugin_descriptor {
    uint32_t struct_size;
    uint32_t abi_major; /* BI_PLUGIN_ABI_MAJOR */
    uint32_t abi_minor; /* BI_PLUGIN_ABI_MINOR */
    /* Non-empty plugin name. Owned by the plugin until unload. [any thread] */
    const char* name;
    /* Plugin version, e.g. "1.2.0". Owned by the plugin until unload. [any thread] */
    const char* version;
    /* One line, or NULL. Owned by the plugin until unload. [any thread] */
    const char* description;
    /* scorer_count scorers. Owned by the plugin until unload. [any thread] */
    const bi_scorer* const* scorers;
    uint32_t scorer_count;
    /* generator_count generators. Owned by the plugin until unload. [any thread] */
    const bi_generator* const* generators;
    uint32_t generator_count;
} bi_plugin_descriptor;

typedef const bi_plugin_descriptor* (*bi_plugin_entry_fn)(void);

/* Defined by every plugin; the host calls it once, right after loading, and keeps the result.
 * Returns NULL only when the plugin cannot work at all. [host thread] */
BI_PLUGIN_EXPORT const bi_plugin_descriptor* bi_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* BI_PLUGIN_H */
