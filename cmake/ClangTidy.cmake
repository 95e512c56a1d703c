# BI_CLANG_TIDY=ON: clang-tidy-14 with the checked-in .clang-tidy runs on every framework and
# tool source as it compiles, any warning an error (CI's tidy build). SDK, plugins, tests: not.
option(BI_CLANG_TIDY "Run clang-tidy on framework and tool sources while compiling" OFF)

if(BI_CLANG_TIDY)
  find_program(BI_CLANG_TIDY_EXE NAMES clang-tidy-14 clang-tidy REQUIRED)
  set(BI_CLANG_TIDY_COMMAND "${BI_CLANG_TIDY_EXE}"
      "--config-file=${PROJECT_SOURCE_DIR}/.clang-tidy" "--warnings-as-errors=*")
endif()

# `bi_checked` builds exactly the targets clang-tidy checks, so CI's tidy build names one target
# and a new framework library is covered without editing the CI script.
add_custom_target(bi_checked)

function(bi_collect_targets dir out)
  get_property(targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    bi_collect_targets("${sub}" nested)
    list(APPEND targets ${nested})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# add_subdirectory(dir) with clang-tidy on for the targets it creates, when BI_CLANG_TIDY is ON.
# The variable is set in this function's scope only, so directories added later stay unchecked.
function(bi_add_checked_subdirectory dir)
  if(BI_CLANG_TIDY)
    set(CMAKE_CXX_CLANG_TIDY ${BI_CLANG_TIDY_COMMAND})
  endif()
  add_subdirectory(${dir})
  bi_collect_targets("${CMAKE_CURRENT_SOURCE_DIR}/${dir}" targets)
  if(targets)
    add_dependencies(bi_checked ${targets})
  endif()
endfunction()
