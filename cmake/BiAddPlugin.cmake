# bi_add_plugin(<name> [BUNDLED] SOURCES ...): a MODULE library lib<name>.so exporting only
# bi_plugin_entry. The same function serves the bundled plugins and third parties (installed
# with the SDK); BUNDLED also installs it where bi-run looks for its own plugins.
function(bi_add_plugin name)
  cmake_parse_arguments(ARG "BUNDLED" "" "SOURCES" ${ARGN})
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE bi::sdk)
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
    # Hidden visibility still lets template instantiations from the standard library through;
    # the version script leaves exactly one exported symbol.
    set(exports "${CMAKE_BINARY_DIR}/bi_plugin_exports.map")
    file(CONFIGURE OUTPUT "${exports}" CONTENT "{\n  global: bi_plugin_entry;\n  local: *;\n};\n")
    target_link_options(${name} PRIVATE "LINKER:--version-script=${exports}")
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${exports}")
  endif()
  if(ARG_BUNDLED)
    if(NOT DEFINED CMAKE_INSTALL_LIBDIR)
      include(GNUInstallDirs)
    endif()
    if(NOT DEFINED BI_INSTALL_PLUGINDIR)
      set(BI_INSTALL_PLUGINDIR "${CMAKE_INSTALL_LIBDIR}/bi-run/plugins")
    endif()
    install(TARGETS ${name} LIBRARY DESTINATION "${BI_INSTALL_PLUGINDIR}")
  endif()
endfunction()
