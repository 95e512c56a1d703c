# Warning flags for project targets; BI_WERROR turns them into errors (CI does). A switch that
# misses an enumerator is always an error: every dispatch over an enum must be exhaustive.
add_library(bi_warnings INTERFACE)
target_compile_options(bi_warnings INTERFACE
  $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
                                          -Wold-style-cast -Wcast-align -Woverloaded-virtual
                                          -Wimplicit-fallthrough -Werror=switch>
  $<$<COMPILE_LANG_AND_ID:C,GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow>
  $<$<BOOL:${BI_WERROR}>:-Werror>)
add_library(bi::warnings ALIAS bi_warnings)
