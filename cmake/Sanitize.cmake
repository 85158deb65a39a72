# RDMABENCH_SANITIZE: build everything (library, binaries, tests and the
# dlopen'ed GPU stand-ins) under the given sanitizers, e.g.
#   cmake -S . -B build-asan -DRDMABENCH_SANITIZE=address,undefined
# Any UBSan report aborts the process (-fno-sanitize-recover=all), so a test
# that triggers one fails instead of printing a warning and passing.
set(RDMABENCH_SANITIZE "" CACHE STRING
    "Comma-separated -fsanitize= list for every target (e.g. address,undefined); empty: none")

if(RDMABENCH_SANITIZE)
  set(_rdmabench_sanitize_flags -fsanitize=${RDMABENCH_SANITIZE} -fno-omit-frame-pointer
                                -fno-sanitize-recover=all)
  add_compile_options(${_rdmabench_sanitize_flags})
  # Line tables are all a sanitizer's report needs (function, file:line);
  # full debug info made about a fifth of the sanitizer build's time.
  add_compile_options($<$<CONFIG:RelWithDebInfo>:-g1>)
  add_link_options(${_rdmabench_sanitize_flags})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # gcc 12 with -fsanitize=address reports -Wmaybe-uninitialized inside
    # libstdc++'s <regex> (the std::function of std::__detail::_State, in
    # every file that builds a std::regex: topology, cpu_governor,
    # memory_choice): the instrumentation hides from the flow analysis the
    # stores that initialise it. The ordinary build keeps the warning and is
    # clean; only this configuration drops it, so -Werror stays usable here.
    add_compile_options(-Wno-maybe-uninitialized)
  endif()
  # The sanitizers' compiled-in defaults (a report aborts the process),
  # linked into every executable and shared library defined after this.
  add_library(rdmabench_sanitizer_options OBJECT ${CMAKE_CURRENT_LIST_DIR}/sanitizer_default_options.cpp)
  set_target_properties(rdmabench_sanitizer_options PROPERTIES POSITION_INDEPENDENT_CODE ON)
  link_libraries(rdmabench_sanitizer_options)
  message(STATUS "Sanitizers: ${RDMABENCH_SANITIZE}")
endif()
