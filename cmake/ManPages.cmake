# Man pages, generated at build time by help2man from each binary's and
# each installed tool's --help and --version (so they cannot drift from the
# option table), installed in the package of the program they describe.
# Without help2man (tools/install-deps build installs it) or in a cross
# build (the target's binaries do not run here) there are none, and the
# configure step says so.

find_program(RDMABENCH_HELP2MAN help2man)
if(RDMABENCH_SANITIZE)
  # Not packaged (the install test skips it), and its binaries would run
  # under the sanitizers at build time.
  message(STATUS "Man pages: off (a RDMABENCH_SANITIZE build is not packaged)")
  return()
endif()
if(CMAKE_CROSSCOMPILING)
  message(STATUS "Man pages: off (cross build: the ${CMAKE_SYSTEM_PROCESSOR} binaries do not run here)")
  return()
elseif(NOT RDMABENCH_HELP2MAN)
  message(WARNING "help2man not found (tools/install-deps build installs it): no man pages")
  return()
endif()

set(man_dir ${PROJECT_BINARY_DIR}/man)
set(man_pages)
# rdmabench_man_page(NAME PROGRAM DEPENDS COMPONENT SUMMARY): man1/NAME.1
# from PROGRAM (a path), rebuilt when DEPENDS (a target or file) changes.
function(rdmabench_man_page name program depends component summary)
  set(page ${man_dir}/man1/${name}.1)
  add_custom_command(OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir}/man1
    COMMAND ${CMAKE_COMMAND} -E env LANG=C.UTF-8 ${RDMABENCH_HELP2MAN} --no-info --section=1
            "--name=${summary}" --output=${page} ${program}
    DEPENDS ${depends}
    COMMENT "Man page ${name}(1)" VERBATIM)
  install(FILES ${page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT ${component})
  set(man_pages ${man_pages} ${page} PARENT_SCOPE)
endfunction()

set(summaries
  "rdma_write_bw=RDMA write bandwidth and message rate, server and client"
  "rdma_write_lat=RDMA write latency with every sample kept (P99 and beyond)"
  "rdma_read_bw=RDMA read bandwidth and message rate, server and client"
  "rdma_read_lat=RDMA read latency with every sample kept (P99 and beyond)"
  "rdma_send_bw=RDMA send/receive bandwidth and message rate, server and client"
  "rdma_send_lat=RDMA send/receive latency with every sample kept (P99 and beyond)"
  "rdma_atomic_bw=RDMA atomic (fetch-and-add, compare-and-swap) message rate"
  "rdma_atomic_lat=RDMA atomic (fetch-and-add, compare-and-swap) latency"
  "rdma_topo=RDMA devices, GPUs and how each GPU reaches each NIC, from sysfs"
  "rdma_devices=every RDMA device and port with its transport (IB, RoCE, iWARP)"
  "rdma_compare=two sets of rdmabench results side by side, with the noise taken into account"
  "tcp_baseline=TCP bandwidth and latency over the same links, for comparison"
  "rdma_sweep=fabric-wide RDMA pair sweeps under mpirun or srun, with heatmaps"
  "rdmabench-transport-shootout=RoCEv2, iWARP, InfiniBand and TCP side by side on one host"
  "rdmabench-gdr-affinity-study=GPUDirect RDMA bandwidth by GPU-NIC PCIe distance"
  "rdmabench-compare-perftest=rdmabench beside perftest on the same device, as ratios"
  "rdmabench-run-pair=run one rdmabench server/client pair on one device"
  "rdmabench-sweep-heatmaps=draw rdma_sweep's heatmap PNGs from its CSV matrices")
function(summary_of name out)
  foreach(entry IN LISTS summaries)
    if(entry MATCHES "^${name}=(.*)$")
      set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "ManPages.cmake: no summary for ${name}")
endfunction()

foreach(binary IN LISTS RDMABENCH_BINARIES ITEMS rdma_topo rdma_devices rdma_compare tcp_baseline rdma_sweep)
  if(NOT TARGET ${binary})
    continue()  # rdma_sweep without MPI
  endif()
  set(component node)
  if(binary STREQUAL rdma_sweep)
    set(component sweep)
  endif()
  summary_of(${binary} summary)
  rdmabench_man_page(${binary} $<TARGET_FILE:${binary}> ${binary} ${component} "${summary}")
endforeach()
# The tools under their installed names: a link rdmabench-<tool> into the
# source tree, so that --version's first line names the command as a user
# types it.
foreach(tool IN LISTS RDMABENCH_NODE_TOOLS RDMABENCH_SWEEP_TOOLS)
  set(component node)
  if(tool IN_LIST RDMABENCH_SWEEP_TOOLS)
    set(component sweep)
  endif()
  set(link ${man_dir}/bin/rdmabench-${tool})
  file(MAKE_DIRECTORY ${man_dir}/bin)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/tools/${tool} ${link} SYMBOLIC)
  summary_of(rdmabench-${tool} summary)
  rdmabench_man_page(rdmabench-${tool} ${link} ${PROJECT_SOURCE_DIR}/tools/${tool} ${component} "${summary}")
endforeach()
add_custom_target(man-pages ALL DEPENDS ${man_pages})
