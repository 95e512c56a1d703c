# Installs the SDK component to a fresh prefix, then builds each example plugin as a third party
# would (find_package(BatchInvariance), bi_add_plugin) and loads it through the real host.
# Run with cmake -P and -D BUILD_DIR, SOURCE_DIR, WORK_DIR, EXAMPLE, GENERATOR, C_COMPILER,
# CXX_COMPILER, BI_RUN, PROBE.

include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/CheckedProcess.cmake")

function(expect text pattern)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "expected to match '${pattern}', got:\n${text}")
  endif()
endfunction()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")

run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}" --component sdk)
foreach(installed include/bi/plugin.h include/bi/plugin.hpp)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "not installed: ${installed}")
  endif()
endforeach()
file(GLOB_RECURSE configs "${prefix}/*/BatchInvarianceConfig.cmake")
file(GLOB_RECURSE versions "${prefix}/*/BatchInvarianceConfigVersion.cmake")
file(GLOB_RECURSE functions "${prefix}/*/BiAddPlugin.cmake")
if(NOT configs OR NOT versions OR NOT functions)
  message(FATAL_ERROR "package files missing under ${prefix}")
endif()

# Strict flags: the examples are what third parties copy.
run("${CMAKE_COMMAND}" -S "${SOURCE_DIR}/examples/${EXAMPLE}" -B "${build}" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
    "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_C_FLAGS=-Wall -Wextra -pedantic -Werror"
    "-DCMAKE_CXX_FLAGS=-Wall -Wextra -pedantic -Werror")
run("${CMAKE_COMMAND}" --build "${build}")
file(GLOB plugin "${build}/lib*.so")
list(LENGTH plugin count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one plugin in ${build}, found: ${plugin}")
endif()

run("${BI_RUN}" plugins --plugin "${plugin}")
expect("${run_output}" "\\(ABI 1\\.[0-9]+\\) ${plugin}")
if(EXAMPLE STREQUAL "scorer-c")
  expect("${run_output}" "scorer needle-c")
  run("${PROBE}" "${plugin}" needle-c "\"K7-ZULU\"" "The code was K7-ZULU, I believe.")
  expect("${run_output}" "\"passed\":true")
  expect("${run_output}" "\"extracted_answer\":\"K7-ZULU\"")
  run("${PROBE}" "${plugin}" needle-c "\"K7-ZULU\"" "I do not remember.")
  expect("${run_output}" "\"failure_mode\":\"no_answer\"")
elseif(EXAMPLE STREQUAL "scorer-cpp")
  expect("${run_output}" "scorer needle-cpp")
  run("${PROBE}" "${plugin}" needle-cpp "\"K7-ZULU\"" "It is **k7-zulu**.")
  expect("${run_output}" "\"passed\":true")
  # A blank completion: CMake would drop an empty argument.
  run("${PROBE}" "${plugin}" needle-cpp "\"K7-ZULU\"" " \n ")
  expect("${run_output}" "\"failure_mode\":\"empty\"")
elseif(EXAMPLE STREQUAL "generator")
  expect("${run_output}" "generator needle-rows")
  run("${BI_RUN}" workset --plugin "${plugin}" --generator needle-rows --ctx 2048 --seed 5
      --generator-param rows=4 --out "${WORK_DIR}/ws.json")
  file(READ "${WORK_DIR}/ws.json" workset)
  string(JSON rows LENGTH "${workset}")
  if(NOT rows EQUAL 4)
    message(FATAL_ERROR "expected 4 rows, got ${rows}:\n${workset}")
  endif()
  run("${BI_RUN}" workset --plugin "${plugin}" --generator needle-rows --ctx 2048 --seed 5
      --generator-param rows=4)
  if(NOT run_output STREQUAL workset)
    message(FATAL_ERROR "the same request gave different work-sets")
  endif()
else()
  message(FATAL_ERROR "unknown EXAMPLE ${EXAMPLE}")
endif()
message(STATUS "${EXAMPLE}: built against the installed SDK and loaded")
