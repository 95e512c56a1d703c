# Writes the man pages and the shell completions with the bi-run just built, compressed as Debian
# wants them (gzip -9n: no name, no time stamp, so the same build gives the same bytes).
# Run with cmake -P and -D BI_RUN, OUT.

include("${CMAKE_CURRENT_LIST_DIR}/../cmake/CheckedProcess.cmake")

file(REMOVE_RECURSE "${OUT}/man" "${OUT}/completion")
file(MAKE_DIRECTORY "${OUT}/completion")
run("${BI_RUN}" help --man "${OUT}/man")
file(GLOB pages "${OUT}/man/*.[15]")
foreach(page IN LISTS pages)
  run(gzip -9nf "${page}")
endforeach()
foreach(shell_file IN ITEMS "bash;bi-run.bash" "zsh;_bi-run" "fish;bi-run.fish")
  list(GET shell_file 0 shell)
  list(GET shell_file 1 name)
  run("${BI_RUN}" completion "${shell}")
  file(WRITE "${OUT}/completion/${name}" "${run_output}")
endforeach()
file(TOUCH "${OUT}/stamp")
