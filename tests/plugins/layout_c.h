/* The ABI layout facts compared between the C and C++ compilers, listed once for both, and
 * what layout_c.c (compiled as C) reports of them. */
#ifndef BI_TEST_LAYOUT_C_H
#define BI_TEST_LAYOUT_C_H

#include <bi/plugin.h>
#include <stddef.h>

/* Sizes of every ABI struct and the offsets of fields whose placement padding could change. */
#define BI_LAYOUT_FACTS                                                                            \
    sizeof(bi_host_services), offsetof(bi_host_services, count_tokens),                            \
        offsetof(bi_host_services, log), sizeof(bi_score_input),                                   \
        offsetof(bi_score_input, completion_size), offsetof(bi_score_input, expected_answer_json), \
        offsetof(bi_score_input, fill), offsetof(bi_score_input, seed),                            \
        offsetof(bi_score_input, rep), offsetof(bi_score_input, failure_mode),                     \
        offsetof(bi_score_input, reasoning), offsetof(bi_score_input, reasoning_size),             \
        offsetof(bi_score_input, tool_calls_json), offsetof(bi_score_input, completion_tokens),    \
        offsetof(bi_score_input, stop_reason), sizeof(bi_scorer_sink),                             \
        offsetof(bi_scorer_sink, set_error), sizeof(bi_scorer), offsetof(bi_scorer, create),       \
        offsetof(bi_scorer, score), sizeof(bi_param), sizeof(bi_generate_request),                 \
        offsetof(bi_generate_request, seed), offsetof(bi_generate_request, param_count),           \
        sizeof(bi_workset_row), offsetof(bi_workset_row, fill),                                    \
        offsetof(bi_workset_row, expected_answer_json), sizeof(bi_workset_sink),                   \
        offsetof(bi_workset_sink, set_error), sizeof(bi_generator),                                \
        offsetof(bi_generator, generate), sizeof(bi_plugin_descriptor),                            \
        offsetof(bi_plugin_descriptor, abi_minor), offsetof(bi_plugin_descriptor, scorers),        \
        offsetof(bi_plugin_descriptor, generator_count)

#ifdef __cplusplus
extern "C" {
#endif

const size_t* bi_layout_from_c(size_t* count);

#ifdef __cplusplus
}
#endif

#endif
