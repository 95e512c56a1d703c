# The installed SDK package: headers, bi::sdk, bi_add_plugin() and the package config, all in
# the "sdk" install component (`cmake --install build --component sdk` installs just these).
# bi-run and its bundled plugins install in the default component.
include(CMakePackageConfigHelpers)

# Under share/: the SDK is headers only, the same on every architecture.
set(bi_package_dir "${CMAKE_INSTALL_DATADIR}/cmake/BatchInvariance")
file(STRINGS "${PROJECT_SOURCE_DIR}/sdk/include/bi/plugin.h" bi_abi_line
     REGEX "^#define BI_PLUGIN_ABI_MAJOR [0-9]+$")
string(REGEX REPLACE ".* ([0-9]+)$" "\\1" BI_PLUGIN_ABI_MAJOR "${bi_abi_line}")

set_target_properties(bi_sdk PROPERTIES EXPORT_NAME sdk)
install(TARGETS bi_sdk EXPORT BatchInvarianceTargets COMPONENT sdk)
install(FILES "${PROJECT_SOURCE_DIR}/sdk/include/bi/plugin.h"
              "${PROJECT_SOURCE_DIR}/sdk/include/bi/plugin.hpp"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/bi" COMPONENT sdk)
install(EXPORT BatchInvarianceTargets NAMESPACE bi:: DESTINATION "${bi_package_dir}"
        COMPONENT sdk)

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/BatchInvarianceConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/BatchInvarianceConfig.cmake" INSTALL_DESTINATION "${bi_package_dir}")
# The package version is the project's; the plugin ABI has its own (BI_PLUGIN_ABI_MAJOR).
write_basic_package_version_file("${PROJECT_BINARY_DIR}/BatchInvarianceConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMajorVersion)
install(FILES "${PROJECT_BINARY_DIR}/BatchInvarianceConfig.cmake"
              "${PROJECT_BINARY_DIR}/BatchInvarianceConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/BiAddPlugin.cmake"
        DESTINATION "${bi_package_dir}" COMPONENT sdk)
