/* The ABI layout as a C compiler sees it, for layout_test.cpp to compare with the C++ view:
 * a plugin in either language must agree with the host. */
#include "layout_c.h"

static const size_t kLayout[] = {BI_LAYOUT_FACTS};

const size_t* bi_layout_from_c(size_t* count) {
    *count = sizeof kLayout / sizeof kLayout[0];
    return kLayout;
}
