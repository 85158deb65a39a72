# Installing and packaging: `cmake --install build --prefix P` and, from the
# build folder, `cpack -G DEB` or `cpack -G RPM`, which make two packages a
# cluster admin installs the way they install perftest:
#
#   rdmabench        (component node)  the eight pair binaries, rdma_topo,
#                    rdma_devices, rdma_compare, tcp_baseline, the user tools that run
#                    against real devices, docs, man pages, bash completion,
#                    the licence. No MPI dependency: every node takes it.
#   rdmabench-sweep  (component sweep) rdma_sweep and its heatmap tool; it
#                    depends on MPI (Open MPI's libmpi, or the site's).
#
# The lab and the development tools (rdma-lab, install-deps, run-tests, ...)
# are in neither: they build and test a source tree. Every install() rule
# names one of the two components.

set(RDMABENCH_PACKAGE_MAINTAINER "rdmabench developers (unofficial build)"
    CACHE STRING "Maintainer field of the packages: a site's packager sets 'Name <address>'")

# The docs a user reads next to the binaries, and the licence.
file(GLOB RDMABENCH_DOCS CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/docs/*.md ${PROJECT_SOURCE_DIR}/docs/*.png ${PROJECT_SOURCE_DIR}/docs/*.json)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE ${RDMABENCH_DOCS}
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT node)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/LICENSES DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT node)
# Debian's copyright file, in each package's own doc folder (RPM's licence
# is the License tag and the files above).
# Without rdma_sweep (no MPI, a cross build) there is no sweep package.
set(RDMABENCH_PACKAGED_COMPONENTS node)
set(package_components rdmabench:node)
if(TARGET rdma_sweep)
  list(APPEND RDMABENCH_PACKAGED_COMPONENTS sweep)
  list(APPEND package_components rdmabench-sweep:sweep)
endif()
foreach(package_component IN LISTS package_components)
  string(REPLACE ":" ";" pair ${package_component})
  list(GET pair 0 PACKAGE)
  list(GET pair 1 component)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/packaging/copyright.in
                 ${PROJECT_BINARY_DIR}/packaging/${PACKAGE}/copyright @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/packaging/${PACKAGE}/copyright
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${PACKAGE} COMPONENT ${component})
endforeach()

set(CPACK_PACKAGE_NAME rdmabench)
set(CPACK_PACKAGE_VENDOR "rdmabench developers")
set(CPACK_PACKAGE_CONTACT "${RDMABENCH_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "RDMA verbs microbenchmarks in the spirit of perftest")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_COMPONENTS_ALL ${RDMABENCH_PACKAGED_COMPONENTS})
set(CPACK_COMPONENT_NODE_DESCRIPTION
"Latency with every sample kept (median, P99, P99.9, P99.99), bandwidth and
message rate for RDMA write, read, send and atomics over InfiniBand, RoCEv2
and iWARP, with perftest's server/client habits and JSON Lines output;
rdma_topo shows how NICs and GPUs sit on the PCIe tree.")
set(CPACK_COMPONENT_SWEEP_DESCRIPTION
"rdma_sweep runs the rdmabench pair tests across a fabric, launched by
mpirun or srun (MPI only coordinates), and writes heatmaps, a report and the
suspect links.")
set(CPACK_COMPONENT_SWEEP_DEPENDS node)

# Debian: rdmabench_<version>_<arch>.deb and rdmabench-sweep_..., section net.
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_NODE_PACKAGE_NAME rdmabench)
set(CPACK_DEBIAN_SWEEP_PACKAGE_NAME rdmabench-sweep)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${RDMABENCH_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# A cross build's package is for its target: cpack would ask this host's
# dpkg and label arm64 binaries amd64.
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
  set(CPACK_RPM_PACKAGE_ARCHITECTURE aarch64)
endif()
# Dependencies: dpkg-shlibdeps names every library the binaries link, with
# versions (libibverbs1, librdmacm1, libc6, libstdc++6, Boost, fmt, and
# for rdma_sweep libopenmpi3). Without it, libibverbs1 and librdmacm1 are
# named outright.
set(rdmabench_depends python3)  # the user tools (standard library only)
find_program(RDMABENCH_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(RDMABENCH_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
  list(APPEND rdmabench_depends libibverbs1 librdmacm1)
  message(WARNING "dpkg-shlibdeps not found (package dpkg-dev; tools/install-deps package "
                  "installs it): the .deb will not name Boost, fmt, libstdc++6, ...")
endif()
list(JOIN rdmabench_depends ", " CPACK_DEBIAN_NODE_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_SWEEP_PACKAGE_DEPENDS "rdmabench (= ${PROJECT_VERSION})")
# Without a provider (mlx5, rxe, siw, ...) libibverbs sees no device.
set(CPACK_DEBIAN_NODE_PACKAGE_RECOMMENDS ibverbs-providers)
set(CPACK_DEBIAN_SWEEP_PACKAGE_RECOMMENDS "openmpi-bin, python3-matplotlib")

# RPM (RHEL, Rocky; rpmbuild from Debian's rpm package works too):
# rdmabench-<version>-1.<arch>.rpm. rpmbuild finds the library requirements
# itself (libibverbs.so.1, libmpi.so.40, ...).
set(CPACK_RPM_COMPONENT_INSTALL ON)
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_NODE_PACKAGE_NAME rdmabench)
set(CPACK_RPM_SWEEP_PACKAGE_NAME rdmabench-sweep)
set(CPACK_RPM_PACKAGE_LICENSE "BSD-2-Clause OR GPL-2.0-only")
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_PACKAGE_URL "")
set(CPACK_RPM_PACKAGE_RELEASE 1)
set(CPACK_RPM_NODE_PACKAGE_REQUIRES "python3")
set(CPACK_RPM_SWEEP_PACKAGE_REQUIRES "rdmabench = ${PROJECT_VERSION}")
# Folders the distribution's filesystem package owns: not ours to claim.
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
    /usr/share/man /usr/share/man/man1 /usr/share/doc /usr/share/bash-completion
    /usr/share/bash-completion/completions /usr/${CMAKE_INSTALL_LIBDIR})
# No debug-info packages or /usr/lib/.build-id links: the binaries keep
# their symbols (see StripDebugInfo.cmake) and nothing else.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none\n%define debug_package %{nil}")

# The packages' binaries without debug information, symbols kept: see
# StripDebugInfo.cmake. `cmake --install` installs them as built.
# CPack runs pre-build scripts from CMake 3.19 on; an older one (Debian 11's
# 3.18) strips the packages' binaries whole, symbols too.
if(CMAKE_VERSION VERSION_LESS 3.19)
  set(CPACK_STRIP_FILES ON)
  message(STATUS "Packages: binaries stripped whole, symbols too (CMake ${CMAKE_VERSION}; "
                 "3.19 or later keeps the symbols and drops only the debug information)")
else()
  set(CPACK_RDMABENCH_OBJCOPY "${CMAKE_OBJCOPY}")
  set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/StripDebugInfo.cmake)
endif()

# `cpack -G TGZ --config CPackSourceConfig.cmake`: the sources, not the builds.
set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/\\\\.cache/" "__pycache__")

include(CPack)
