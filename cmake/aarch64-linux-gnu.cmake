# Cross-building for aarch64 (Grace, GH200, BlueField) on a Debian x86-64
# host: Debian's cross compiler and the arm64 multiarch libraries under /usr
# (tools/cross-test-arm64 installs both), and qemu-user to run what is built,
# so that ctest runs the unit tier under emulation:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# find_library and find_package look in /usr/lib/aarch64-linux-gnu, where
# the :arm64 packages put their libraries and CMake configs.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config must see the arm64 .pc files, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

# The binaries run on the multiarch runtime (libc6:arm64, which the :arm64
# libraries bring, puts the loader at /lib/ld-linux-aarch64.so.1). Not with
# `-L /usr/aarch64-linux-gnu`: that loader is the cross toolchain's glibc
# build, which then loads the multiarch libc.so.6 (the ld.so.cache lists
# it), and the two builds disagree: the first pthread_create spins forever.
# -L is only for a machine without the multiarch runtime.
find_program(RDMABENCH_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static REQUIRED)
if(EXISTS /lib/ld-linux-aarch64.so.1)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${RDMABENCH_QEMU_AARCH64})
else()
  set(CMAKE_CROSSCOMPILING_EMULATOR ${RDMABENCH_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
