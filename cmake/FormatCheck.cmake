# The `format` test: every tracked C/C++ file must be clang-formatted (scripts/check-format.sh).
# It runs on the source tree, not the build, and skips where clang-format 14 or git is missing.
find_program(BI_BASH bash)
if(BI_BASH)
  add_test(NAME format
           COMMAND "${BI_BASH}" "${PROJECT_SOURCE_DIR}/scripts/check-format.sh"
                   "${PROJECT_SOURCE_DIR}")
  set_tests_properties(format PROPERTIES LABELS format SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
