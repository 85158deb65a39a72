# Bash completion for the binaries, generated at build time by
# cmake/bash_completion.py from each binary's --help (the option table as
# Boost prints it), so that it offers exactly the options the binary takes.
# Installed once per command name, as bash-completion loads a command's
# completion by its name from share/bash-completion/completions/. Off in a
# cross build (the target's binaries do not run here).
if(RDMABENCH_SANITIZE)
  # Not packaged (the install test skips it), and its binaries would run
  # under the sanitizers at build time.
  message(STATUS "Bash completion: off (a RDMABENCH_SANITIZE build is not packaged)")
  return()
endif()
if(CMAKE_CROSSCOMPILING)
  message(STATUS "Bash completion: off (cross build: the ${CMAKE_SYSTEM_PROCESSOR} binaries do not run here)")
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: no bash completion")
  return()
endif()

set(completed ${RDMABENCH_BINARIES} rdma_topo rdma_devices rdma_compare tcp_baseline)
if(TARGET rdma_sweep)
  list(APPEND completed rdma_sweep)
endif()
set(completion ${PROJECT_BINARY_DIR}/bash-completion/rdmabench)
set(programs)
foreach(binary IN LISTS completed)
  list(APPEND programs $<TARGET_FILE:${binary}>)
endforeach()
add_custom_command(OUTPUT ${completion}
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/bash_completion.py ${completion} ${programs}
  DEPENDS ${completed} ${PROJECT_SOURCE_DIR}/cmake/bash_completion.py
  COMMENT "Bash completion for ${completed}" VERBATIM)
add_custom_target(bash-completion ALL DEPENDS ${completion})
foreach(binary IN LISTS completed)
  set(component node)
  if(binary STREQUAL rdma_sweep)
    set(component sweep)
  endif()
  install(FILES ${completion} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME ${binary} COMPONENT ${component})
endforeach()
