# Where an installed bi-run keeps its parts, in FHS places under the install prefix (with
# CMAKE_INSTALL_PREFIX=/usr on Debian, CMAKE_INSTALL_LIBDIR is lib/<multiarch>). bi-run finds
# each relative to its own directory (bi_path_from_bindir), so one build works from the build
# tree (everything beside it in bin/), from any prefix and from /usr.
include(GNUInstallDirs)

set(BI_INSTALL_PKGLIBDIR "${CMAKE_INSTALL_LIBDIR}/bi-run")        # bi-plugin-host
set(BI_INSTALL_PLUGINDIR "${BI_INSTALL_PKGLIBDIR}/plugins")        # the bundled plugins
set(BI_INSTALL_KINDDIR "${CMAKE_INSTALL_DATADIR}/bi-run/kinds")    # server kind files
set(BI_INSTALL_DOCDIR "${CMAKE_INSTALL_DATAROOTDIR}/doc/bi-run")   # README, examples
set(BI_INSTALL_DEV_DOCDIR "${CMAKE_INSTALL_DATAROOTDIR}/doc/bi-run-dev")

# Everything bi-run and the SDK install without a COMPONENT of their own is bi-run's.
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME bi-run)

# bi_path_from_bindir(<var> <dir relative to the prefix>): that directory as seen from bindir.
function(bi_path_from_bindir out dir)
  file(RELATIVE_PATH relative "${CMAKE_INSTALL_FULL_BINDIR}" "${CMAKE_INSTALL_PREFIX}/${dir}")
  set(${out} "${relative}" PARENT_SCOPE)
endfunction()
