# Installing and packaging: `cmake --install build --prefix P` and, from the
# build folder, `cpack -G DEB` -> rdmabench_<version>_amd64.deb, which a
# cluster installs on every node the way it installs perftest. The package
# holds every install() rule of the project (binaries from bench/, the user
# tools from tools/, the docs below): no components, so nothing is left out.

# The docs a user reads next to the binaries.
file(GLOB RDMABENCH_DOCS CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.png)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${RDMABENCH_DOCS}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(RDMABENCH_PACKAGE_MAINTAINER
    "rdmabench maintainers <maintainers@users.noreply.a-seed-e5e83a4f.example>"
    CACHE STRING "Maintainer field of the .deb")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rdmabench)
set(CPACK_PACKAGE_CONTACT "${RDMABENCH_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "RDMA verbs microbenchmarks in the spirit of perftest")
set(CPACK_PACKAGE_DESCRIPTION
"Latency with every sample kept (median, P99, P99.9, P99.99), bandwidth and
message rate for RDMA write, read, send and atomics over InfiniBand, RoCEv2
and iWARP, with perftest's server/client habits and JSON Lines output;
rdma_topo shows how NICs and GPUs sit on the PCIe tree.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${RDMABENCH_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# A cross build's package is for its target: cpack would ask this host's
# dpkg and label arm64 binaries amd64.
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
endif()

# Dependencies: dpkg-shlibdeps names every library the binaries link, with
# versions (libibverbs1, librdmacm1, libc6, libstdc++6, Boost, fmt, ...).
# Without it, libibverbs1 and librdmacm1 are named outright.
set(rdmabench_depends)
find_program(RDMABENCH_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(RDMABENCH_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  list(APPEND rdmabench_depends libibverbs1 librdmacm1)
  message(WARNING "dpkg-shlibdeps not found (package dpkg-dev; tools/install-deps "
                  "installs it): the .deb will not name Boost, fmt, libstdc++6, ...")
endif()
# The user tools are Python (standard library only).
if(EXISTS ${PROJECT_SOURCE_DIR}/tools/CMakeLists.txt)
  list(APPEND rdmabench_depends python3)
endif()
list(JOIN rdmabench_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
# Without a provider (mlx5, rxe, siw, ...) libibverbs sees no device.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS ibverbs-providers)

# The .deb's binaries without debug information, symbols kept: see
# StripDebugInfo.cmake. `cmake --install` installs them as built.
set(CPACK_RDMABENCH_OBJCOPY "${CMAKE_OBJCOPY}")
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/StripDebugInfo.cmake)

# `cpack -G TGZ --config CPackSourceConfig.cmake`: the sources, not the builds.
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/\\\\.cache/" "__pycache__")

include(CPack)
