# CPack pre-build script: the .deb's binaries lose their debug information
# (about 27 MB each, and it holds the source and build paths) but keep their
# symbol table, so perf still names functions. Runs on CPack's staging copy.
if(NOT CPACK_RDMABENCH_OBJCOPY)
  message(FATAL_ERROR "StripDebugInfo: no objcopy (CMAKE_OBJCOPY is empty)")
endif()
# <staging>/usr/bin/, or with one package per component <staging>/<component>/usr/bin/.
file(GLOB_RECURSE staged LIST_DIRECTORIES false "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*")
list(FILTER staged INCLUDE REGEX "/bin/[^/]+$")
if(NOT staged)
  message(FATAL_ERROR "StripDebugInfo: no bin/ files under ${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
endif()
foreach(file IN LISTS staged)
  # Only ELF files: the user tools' entry points in bin/ are scripts or links.
  if(IS_SYMLINK "${file}")
    continue()
  endif()
  file(READ "${file}" magic LIMIT 4 HEX)
  if(NOT magic STREQUAL "7f454c46")
    continue()
  endif()
  execute_process(COMMAND "${CPACK_RDMABENCH_OBJCOPY}" --strip-debug "${file}"
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "StripDebugInfo: objcopy --strip-debug ${file} failed (${rc})")
  endif()
endforeach()
