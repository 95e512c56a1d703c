# Optional ASan + UBSan build for every target (-DBI_SANITIZE=ON).
if(BI_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
  # GCC 12's -Wmaybe-uninitialized misfires inside libstdc++'s <regex> (used by cxxopts) once
  # the sanitizers instrument it; the instrumented run itself is the better check here.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
  endif()
endif()
