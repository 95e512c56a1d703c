/* Compiled by CTest as strict C99 and C11: the contract header must stand alone in C. */
#include <bi/plugin.h>

int bi_header_compile_test(void);
int bi_header_compile_test(void) {
    bi_plugin_descriptor descriptor = {0};
    descriptor.struct_size = sizeof descriptor;
    return BI_STRUCT_HAS(&descriptor, bi_plugin_descriptor, generator_count) ? BI_STATUS_OK
                                                                             : BI_STATUS_ERROR;
}
