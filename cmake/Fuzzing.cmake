# libFuzzer targets in fuzz/ (-DBI_FUZZ=ON, clang only; scripts/run-fuzz.sh builds and runs them).
# Everything in such a build is instrumented for coverage and built with ASan + UBSan, so a
# finding in library code is caught where it happens, not where it surfaces.
option(BI_FUZZ "Build the libFuzzer targets in fuzz/ (clang only)" OFF)

if(BI_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "BI_FUZZ=ON needs clang for libFuzzer (-DCMAKE_CXX_COMPILER=clang++-14 "
                        "-DCMAKE_C_COMPILER=clang-14); this build uses ${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
