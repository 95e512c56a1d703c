# `cpack -G DEB`: two packages from the install components. bi-run (component bi-run) holds the
# tool, its plugin host, the bundled plugins, kind files, man pages, completions and examples;
# bi-run-dev (component sdk) holds the plugin SDK, so find_package(BatchInvariance) works from
# /usr. Runtime dependencies come from dpkg-shlibdeps, not from a typed list. Configure with
# -DCMAKE_INSTALL_PREFIX=/usr so that the library directory is Debian's multiarch one
# (scripts/build-packages.sh does).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bi-run)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# Each package's description below starts with its own synopsis. CPackDeb prepends the summary
# to it unless the summary is CPack's default text, so the summary is exactly that.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_CONTACT "${BI_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL bi-run sdk)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${BI_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)

set(CPACK_DEBIAN_BI-RUN_PACKAGE_NAME bi-run)
set(CPACK_DEBIAN_BI-RUN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_BI-RUN_DESCRIPTION
  "does batching change an LLM server's answers?
bi-run verifies, for one cell (model, context, N), whether continuous
batching changes the scored outputs of a local LLM server (llama.cpp's
llama-server and work-alikes). It runs the same work-set serially and N at a
time against servers it launches itself, scores every completion with a
plugin scorer, compares exactly and writes one signed JSON cert.
.
This package holds bi-run, its plugin host, the bundled exact and spark
plugins, the server kind files, man pages, shell completions and examples.")

set(CPACK_DEBIAN_SDK_PACKAGE_NAME bi-run-dev)
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_SDK_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_SDK_PACKAGE_DEPENDS "bi-run (>= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_SDK_DESCRIPTION
  "plugin SDK for bi-run scorers and work-set generators
The C contract header (bi/plugin.h), its C++ helper (bi/plugin.hpp), the
CMake package config and bi_add_plugin(), so that a scorer or generator
plugin builds with find_package(BatchInvariance) against this package and
loads into the installed bi-run.")

include(CPack)
