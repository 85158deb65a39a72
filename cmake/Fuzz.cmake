# RDMABENCH_FUZZ: build the libFuzzer targets of tests/fuzz/ (clang only):
#   CC=clang CXX=clang++ cmake -S . -B build-fuzz -DRDMABENCH_FUZZ=ON -DRDMABENCH_BUILD_TESTS=OFF
#   cmake --build build-fuzz --target fuzz
# Every target (the library too, so its branches guide the fuzzer) is
# compiled with coverage instrumentation and ASan+UBSan; only the fuzz
# targets link libFuzzer's main (tests/fuzz/CMakeLists.txt).
option(RDMABENCH_FUZZ "Build the libFuzzer targets of tests/fuzz (needs clang)" OFF)

if(RDMABENCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR
      "RDMABENCH_FUZZ needs clang (libFuzzer), but the C++ compiler is ${CMAKE_CXX_COMPILER_ID} "
      "(${CMAKE_CXX_COMPILER}). Use a fresh build folder configured with clang, e.g.\n"
      "  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DRDMABENCH_FUZZ=ON -DRDMABENCH_BUILD_TESTS=OFF\n"
      "(Debian: apt-get install clang)")
  endif()
  if(RDMABENCH_SANITIZE)
    message(FATAL_ERROR "RDMABENCH_FUZZ builds with address,undefined already; "
                        "leave RDMABENCH_SANITIZE empty in the fuzz build")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  message(STATUS "Fuzz targets: on (libFuzzer, address, undefined)")
endif()
