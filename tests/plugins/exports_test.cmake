# Asserts that each plugin in PLUGINS (paths separated by '|') exports exactly one dynamic
# symbol, bi_plugin_entry: what bi_add_plugin() promises. Run with cmake -P -D NM=... -D PLUGINS=...
string(REPLACE "|" ";" plugins "${PLUGINS}")
foreach(plugin IN LISTS plugins)
  execute_process(COMMAND "${NM}" -D --defined-only "${plugin}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${plugin}: ${err}")
  endif()
  string(STRIP "${out}" out)
  string(REGEX REPLACE "\n" ";" symbols "${out}")
  list(LENGTH symbols count)
  if(NOT count EQUAL 1 OR NOT out MATCHES " T bi_plugin_entry$")
    message(FATAL_ERROR "${plugin} must export only bi_plugin_entry, exports:\n${out}")
  endif()
endforeach()
