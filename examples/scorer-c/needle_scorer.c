/* Example scorer plugin in plain C: did the model recall a planted code such as "K7-ZULU"?
 * Extracts the first code-shaped token (letters and digits joined by '-', with at least one
 * digit), upper-cased, and scores 1 when it equals the expected answer. */
#include <bi/plugin.h>

#include <ctype.h>
#include <string.h>

enum { kMaxCode = 64 };

static int is_code_char(char c) {
    return isalnum((unsigned char)c) || c == '-';
}

/* Finds the first code in text[0..size) and writes it upper-cased, NUL-terminated, to code.
 * Returns its length, or 0 when there is none. */
static size_t find_code(const char* text, size_t size, char* code) {
    size_t i = 0;
    while (i < size) {
        size_t start, end, k, n = 0;
        int digit = 0, hyphen = 0;
        while (i < size && !is_code_char(text[i])) ++i;
        start = i;
        while (i < size && is_code_char(text[i])) ++i;
        end = i;
        while (start < end && text[start] == '-') ++start; /* a code never starts or ends */
        while (end > start && text[end - 1] == '-') --end; /* with a hyphen */
        for (k = start; k < end; ++k) {
            digit |= isdigit((unsigned char)text[k]) != 0;
            hyphen |= text[k] == '-';
        }
        if (!digit || !hyphen || end - start >= kMaxCode) continue;
        for (k = start; k < end; ++k) code[n++] = (char)toupper((unsigned char)text[k]);
        code[n] = '\0';
        return n;
    }
    return 0;
}

static int is_blank(const char* text, size_t size) {
    size_t i;
    for (i = 0; i < size; ++i)
        if (!isspace((unsigned char)text[i])) return 0;
    return 1;
}

static int32_t extract_answer(const bi_scorer* self, void* instance, const bi_score_input* input,
                              const bi_scorer_sink* sink) {
    char code[kMaxCode];
    char json[kMaxCode + 2];
    const size_t n = find_code(input->completion, input->completion_size, code);
    (void)self;
    (void)instance;
    if (n == 0) return BI_STATUS_OK; /* nothing set: the extracted answer is null */
    /* Codes hold only [A-Z0-9-], so quoting them needs no escaping. */
    json[0] = '"';
    memcpy(json + 1, code, n);
    json[n + 1] = '"';
    sink->set_extracted_answer(sink->host_data, json, n + 2);
    return BI_STATUS_OK;
}

static int32_t classify_failure_mode(const bi_scorer* self, void* instance,
                                     const bi_score_input* input, const bi_scorer_sink* sink) {
    const char* label = "ok";
    (void)self;
    (void)instance;
    if (is_blank(input->completion, input->completion_size))
        label = "empty";
    else if (strcmp(input->extracted_answer_json, "null") == 0)
        label = "no_answer";
    sink->set_failure_mode(sink->host_data, label);
    return BI_STATUS_OK;
}

static int32_t score(const bi_scorer* self, void* instance, const bi_score_input* input,
                     const bi_scorer_sink* sink) {
    /* Both sides are JSON text; a code needs no escapes, so equal text means equal codes. */
    const int match = strcmp(input->failure_mode, "ok") == 0 &&
                      strcmp(input->extracted_answer_json, input->expected_answer_json) == 0;
    (void)self;
    (void)instance;
    sink->set_score(sink->host_data, match ? 1.0 : 0.0, match);
    return BI_STATUS_OK;
}

static const bi_scorer kNeedleScorer = {
    sizeof(bi_scorer),
    "needle-c",
    "recall of a planted code such as K7-ZULU (C example)",
    NULL, /* plugin_data */
    NULL, /* create: no per-run state */
    NULL, /* destroy */
    extract_answer,
    classify_failure_mode,
    score,
};

static const bi_scorer* const kScorers[] = {&kNeedleScorer};

static const bi_plugin_descriptor kDescriptor = {
    sizeof(bi_plugin_descriptor),
    BI_PLUGIN_ABI_MAJOR,
    BI_PLUGIN_ABI_MINOR,
    "needle-c",
    "1.0.0",
    "example needle-recall scorer in plain C",
    kScorers,
    1,
    NULL, /* no generators */
    0,
};

const bi_plugin_descriptor* bi_plugin_entry(void) {
    return &kDescriptor;
}
