#!/usr/bin/env bash
# install_test.sh - the suite installs and runs from where it is installed,
# every way a user or a cluster admin gets it: `cmake --install --prefix`,
# the two .debs from `cpack -G DEB` (unpacked with `dpkg -x`) and the two
# .rpms from `cpack -G RPM` (unpacked with rpm2cpio; where rpmbuild is
# present). From each root, outside the source tree:
#   - every program in bin/ (binaries and rdmabench-<tool> links) answers
#     --help and --version (first line "NAME (rdmabench) VERSION", then the
#     rdma-core it was built against), and `man -l` renders its man page;
#   - no test-only or development program is installed (unit_tests, the
#     lab, install-deps, ...), no binary has an RPATH/RUNPATH;
#   - rdma_topo --json prints valid JSON; the docs, the licence and the bash
#     completion are there.
# Packages: rdmabench (the node package) and rdmabench-sweep (rdma_sweep,
# when it was built); the node package's dependencies name no MPI library
# (nor UCX, libfabric, PMIx, hwloc); rdmabench-sweep depends on rdmabench;
# each names libibverbs; file names are the distributions' own; packaged
# binaries name neither the source nor the build tree; the .debs carry
# Debian's copyright file.
#
# Usage: install_test.sh CMAKE CPACK BUILD_DIR SOURCE_DIR SHLIBDEPS(ON|OFF)
#
# Writes only under one temporary folder, removed on exit. Prints every
# failed check and exits 1 if there was one.
#
# RDMABENCH_TEST_EMULATOR, when set, is the command line that runs the
# installed binaries (a cross build's qemu-user, from tests/CMakeLists.txt);
# a cross build has no man pages or completion, and checks none.
set -uo pipefail

[ $# -eq 5 ] || { echo "usage: $0 CMAKE CPACK BUILD_DIR SOURCE_DIR SHLIBDEPS" >&2; exit 2; }
cmake=$1 cpack=$2 build=$3 source=$4 shlibdeps=$5

# What must be installed, and what must not (test, lab and development).
node_programs=(rdma_write_bw rdma_write_lat rdma_read_bw rdma_read_lat
               rdma_send_bw rdma_send_lat rdma_atomic_bw rdma_atomic_lat
               rdma_topo rdma_devices rdma_compare tcp_baseline
               rdmabench-transport-shootout rdmabench-gdr-affinity-study
               rdmabench-compare-perftest rdmabench-run-pair)
sweep_programs=()
[ -x "$build/bench/rdma_sweep" ] && sweep_programs=(rdma_sweep rdmabench-sweep-heatmaps)
not_installed=(unit_tests lab_tests gpu_check bare_send_lat libcuda-standin.so libhip-standin.so
               rdmabench-rdma-lab rdma-lab rdmabench-install-deps install-deps run-tests quickstart)
mpi_pattern='mpi|pmix|ucx|fabric|hwloc'

read -ra emulator <<<"${RDMABENCH_TEST_EMULATOR:-}"
with_man=1
[ -n "${RDMABENCH_TEST_EMULATOR:-}" ] && with_man=0
version=$(sed -n 's/^project(rdmabench VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")

failures=()
fail() { failures+=("$*"); echo "FAIL: $*" >&2; }
ok() { echo "ok: $*"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-install-test.XXXXXX") || { echo "mktemp failed" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
# Run everything from a folder outside the source and build trees, so that
# nothing found there by a relative path can make a check pass.
cd "$tmp" || exit 1
mkdir -p work

# Runs installed program $1 with the rest as arguments: an ELF binary
# through the emulator when there is one, a script (the tools) as it is.
run_installed() {
  local program=$1 magic
  shift
  magic=$(head -c 4 "$program" | od -An -tx1 | tr -d ' ')
  if [ "$magic" = 7f454c46 ]; then
    "${emulator[@]}" "$program" "$@"
  else
    "$program" "$@"
  fi
}

# One program of PREFIX/bin: --help, --version and its man page.
check_program() {
  local label=$1 prefix=$2 name=$3 out rc page
  out=$(cd work && run_installed "$prefix/bin/$name" --help 2>&1); rc=$?
  if [ "$rc" -ne 0 ] || [ "$(wc -l <<<"$out")" -lt 3 ]; then
    fail "$label: bin/$name --help exited $rc with: $(head -c 1000 <<<"$out")"
  fi
  out=$(cd work && run_installed "$prefix/bin/$name" --version 2>&1); rc=$?
  if [ "$rc" -ne 0 ] || ! head -n 1 <<<"$out" | grep -qxF "$name (rdmabench) $version" ||
     ! grep -q 'rdma-core' <<<"$out"; then
    fail "$label: bin/$name --version exited $rc, not '$name (rdmabench) $version' and its rdma-core: $out"
  fi
  [ "$with_man" = 1 ] || return 0
  # rpmbuild of newer rpm (Debian 13's 4.20) compresses man pages.
  page=$prefix/share/man/man1/$name.1
  [ -f "$page" ] || [ ! -f "$page.gz" ] || page=$page.gz
  if [ ! -f "$page" ]; then
    fail "$label: no man page share/man/man1/$name.1"
  else
    out=$(MANPAGER=cat MANWIDTH=80 man -l "$page" 2>&1); rc=$?
    if [ "$rc" -ne 0 ] || ! grep -q "^NAME" <<<"$out" || ! grep -q -- "--version" <<<"$out"; then
      fail "$label: man -l share/man/man1/$name.1 exited $rc or shows no NAME and options: $(head -c 600 <<<"$out")"
    fi
    # The pair binaries' pages list perftest's spellings in a section of their
    # own. (Matched on an alias that starts its line: Debian 13's groff
    # hyphenates "--report_gbits" across two lines in the middle of one.)
    case $name in
      rdma_*_bw|rdma_*_lat)
        grep -q "spellings, taken as ours:" <<<"$out" && grep -q -- "--use_cuda=N" <<<"$out" ||
          fail "$label: man -l share/man/man1/$name.1 has no section of perftest's spellings" ;;
    esac
  fi
  [ -f "$prefix/share/bash-completion/completions/$name" ] || [[ $name == rdmabench-* ]] ||
    fail "$label: no bash completion share/bash-completion/completions/$name"
}

# Check one installed tree: PREFIX holds bin/ and share/. LABEL names it;
# the rest are the programs it must hold.
check_root() {
  local label=$1 prefix=$2 name out rc
  shift 2
  for name in "$@"; do
    if [ ! -x "$prefix/bin/$name" ]; then
      fail "$label: bin/$name is not installed"
      continue
    fi
    check_program "$label" "$prefix" "$name"
    if [ ! -L "$prefix/bin/$name" ] && readelf -d "$prefix/bin/$name" 2>/dev/null | grep -qE '\((RPATH|RUNPATH)\)'; then
      fail "$label: bin/$name has an RPATH/RUNPATH"
    fi
  done
  for name in "${not_installed[@]}"; do
    if [ -n "$(find "$prefix" -name "$name" -print -quit)" ]; then
      fail "$label: $name is installed (it is for tests or development)"
    fi
  done
  for name in README.md LICENSE LICENSES/BSD-2-Clause.txt LICENSES/GPL-2.0.txt; do
    [ -f "$prefix/share/doc/rdmabench/$name" ] || fail "$label: share/doc/rdmabench/$name is not installed"
  done
  out=$(cd work && "${emulator[@]}" "$prefix/bin/rdma_topo" --json 2>"$tmp/topo.err"); rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$label: bin/rdma_topo --json exited $rc: $(head -c 2000 "$tmp/topo.err")"
  elif ! python3 -c 'import json,sys; json.load(sys.stdin)' <<<"$out" 2>"$tmp/json.err"; then
    fail "$label: bin/rdma_topo --json printed no valid JSON ($(tail -n 1 "$tmp/json.err"))"
  fi
  ok "$label: $# programs checked"
}

# Packaged binaries lose their debug information, which is where the source
# and build paths would be.
check_no_tree_paths() {
  local label=$1 root=$2 file path
  for file in "$root"/usr/bin/*; do
    [ -L "$file" ] && continue
    for path in "$source" "$build"; do
      grep -qaF -- "$path" "$file" && fail "$label: ${file#"$root"/} names $path"
    done
  done
}

# (a) cmake --install into a prefix: both components.
if "$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then
  ok "cmake --install --prefix"
  check_root "cmake --install" "$tmp/prefix" "${node_programs[@]}" "${sweep_programs[@]}"
else
  fail "cmake --install $build --prefix $tmp/prefix failed: $(tail -n 20 "$tmp/install.log")"
fi

# (b) the .debs, built into the temporary folder (-B: cpack's staging folder
# _CPack_Packages goes there too, not into the build tree), then unpacked:
# the node package alone first (it must work without rdmabench-sweep), then
# both.
expected_packages=1
[ ${#sweep_programs[@]} -gt 0 ] && expected_packages=2
if "$cpack" -G DEB -B "$tmp/deb" --config "$build/CPackConfig.cmake" >"$tmp/cpack-deb.log" 2>&1; then
  debs=("$tmp"/deb/*.deb)
  [ ${#debs[@]} -eq "$expected_packages" ] ||
    fail "cpack -G DEB made ${#debs[@]} .deb files, not $expected_packages: $(ls "$tmp/deb")"
  for deb in "${debs[@]}"; do
    [ -f "$deb" ] || continue
    field() { dpkg-deb -f "$deb" "$1"; }
    package=$(field Package)
    expected="${package}_$(field Version)_$(field Architecture).deb"
    [ "$(basename "$deb")" = "$expected" ] || fail ".deb is named $(basename "$deb"), not $expected"
    [ "$(field Section)" = net ] || fail "$package.deb Section is '$(field Section)', not net"
    [ -n "$(field Maintainer)" ] || fail "$package.deb has no Maintainer"
    depends=$(field Depends)
    contents=$(dpkg-deb -c "$deb")  # whole: grep -q would stop reading it early
    grep -q "/usr/share/doc/$package/copyright$" <<<"$contents" ||
      fail "$package.deb has no /usr/share/doc/$package/copyright"
    case "$package" in
      rdmabench)
        wanted=(libibverbs1 librdmacm1 python3)
        [ "$shlibdeps" = ON ] && wanted+=(libc6 libstdc++6)
        grep -qiE "$mpi_pattern" <<<"$depends" && fail "rdmabench.deb Depends names MPI: $depends"
        node_deb=$deb ;;
      rdmabench-sweep)
        wanted=(rdmabench)
        [ "$shlibdeps" = ON ] && wanted+=(libibverbs1)
        sweep_deb=$deb ;;
      *) fail "cpack -G DEB made an unexpected package $package"; wanted=() ;;
    esac
    for dependency in "${wanted[@]}"; do
      # Debian 13 renamed libraries for 64-bit time_t: librdmacm1t64.
      grep -qE "(^|, )${dependency//+/\\+}(t64)?( |,|$)" <<<"$depends" ||
        fail "$package.deb Depends does not name $dependency: $depends"
    done
    ok "$package.deb Depends: $depends"
  done
  if [ -n "${node_deb:-}" ] && dpkg -x "$node_deb" "$tmp/deb-node" 2>"$tmp/dpkg.err"; then
    check_root "dpkg -x rdmabench" "$tmp/deb-node/usr" "${node_programs[@]}"
    check_no_tree_paths "dpkg -x rdmabench" "$tmp/deb-node"
    [ -e "$tmp/deb-node/usr/bin/rdma_sweep" ] && fail "rdmabench.deb holds rdma_sweep (rdmabench-sweep's)"
  else
    fail "dpkg -x of the node .deb failed: $(cat "$tmp/dpkg.err" 2>/dev/null)"
  fi
  if [ -n "${sweep_deb:-}" ]; then
    dpkg -x "$node_deb" "$tmp/deb-all" && dpkg -x "$sweep_deb" "$tmp/deb-all" &&
      check_root "dpkg -x both" "$tmp/deb-all/usr" "${sweep_programs[@]}"
    check_no_tree_paths "dpkg -x rdmabench-sweep" "$tmp/deb-all"
  fi
else
  fail "cpack -G DEB --config $build/CPackConfig.cmake failed: $(tail -n 20 "$tmp/cpack-deb.log")"
fi

# (c) the .rpms, where rpmbuild is (Debian's rpm package has it).
if ! command -v rpmbuild >/dev/null || ! command -v rpm2cpio >/dev/null; then
  echo "note: no rpmbuild/rpm2cpio here (tools/install-deps package installs them): the .rpm checks are skipped"
elif [ -n "${RDMABENCH_TEST_EMULATOR:-}" ]; then
  echo "note: a cross build: the .rpm checks are left to the native build (rpmbuild here builds for this host)"
elif "$cpack" -G RPM -B "$tmp/rpm" --config "$build/CPackConfig.cmake" >"$tmp/cpack-rpm.log" 2>&1; then
  mapfile -t rpms < <(find "$tmp/rpm" -maxdepth 1 -name '*.rpm' | sort)
  [ ${#rpms[@]} -eq "$expected_packages" ] ||
    fail "cpack -G RPM made ${#rpms[@]} .rpm files, not $expected_packages: $(ls "$tmp/rpm")"
  mkdir -p "$tmp/rpm-all"
  for rpm_file in "${rpms[@]}"; do
    name=$(rpm -qp --qf '%{NAME}' "$rpm_file" 2>/dev/null)
    expected="$(rpm -qp --qf '%{NAME}-%{VERSION}-%{RELEASE}.%{ARCH}' "$rpm_file" 2>/dev/null).rpm"
    [ "$(basename "$rpm_file")" = "$expected" ] || fail ".rpm is named $(basename "$rpm_file"), not $expected"
    [ "$(rpm -qp --qf '%{LICENSE}' "$rpm_file" 2>/dev/null)" = "BSD-2-Clause OR GPL-2.0-only" ] ||
      fail "$name.rpm License is '$(rpm -qp --qf '%{LICENSE}' "$rpm_file" 2>/dev/null)'"
    requires=$(rpm -qpR "$rpm_file" 2>/dev/null | tr '\n' ' ')
    files=$(rpm -qpl "$rpm_file" 2>/dev/null)
    case "$name" in
      rdmabench)
        grep -qiE "$mpi_pattern" <<<"$requires" && fail "rdmabench.rpm requires MPI: $requires"
        grep -q 'libibverbs' <<<"$requires" || fail "rdmabench.rpm does not require libibverbs: $requires"
        grep -qx '/usr/bin/rdma_write_bw' <<<"$files" || fail "rdmabench.rpm has no /usr/bin/rdma_write_bw"
        grep -qx '/usr/bin/rdma_sweep' <<<"$files" && fail "rdmabench.rpm holds rdma_sweep" ;;
      rdmabench-sweep)
        grep -qE '(^| )rdmabench = ' <<<"$requires" || fail "rdmabench-sweep.rpm does not require rdmabench: $requires"
        grep -qx '/usr/bin/rdma_sweep' <<<"$files" || fail "rdmabench-sweep.rpm has no /usr/bin/rdma_sweep" ;;
      *) fail "cpack -G RPM made an unexpected package '$name'" ;;
    esac
    # Folders that the distribution's filesystem package owns.
    for owned in /usr /usr/bin /usr/share /usr/share/man /usr/share/man/man1 /usr/share/doc; do
      grep -qx "$owned" <<<"$files" && fail "$name.rpm claims $owned"
    done
    ok "$name.rpm Requires: $requires"
    # Through a file, not a pipe: cpio stops reading at the archive's
    # trailer, and under pipefail rpm2cpio's write of the padding after it
    # then fails with EPIPE now and then (a CI run on Debian 13 failed so,
    # with no message from either tool).
    if ! rpm2cpio "$rpm_file" >"$tmp/payload.cpio" 2>"$tmp/rpm2cpio.err"; then
      fail "rpm2cpio $rpm_file failed: $(cat "$tmp/rpm2cpio.err")"
    elif ! (cd "$tmp/rpm-all" && cpio -idm --quiet <"$tmp/payload.cpio") 2>"$tmp/cpio.err"; then
      fail "cpio could not unpack $rpm_file's payload: $(cat "$tmp/cpio.err")"
    fi
  done
  check_root "rpm2cpio" "$tmp/rpm-all/usr" "${node_programs[@]}" "${sweep_programs[@]}"
  check_no_tree_paths "rpm2cpio" "$tmp/rpm-all"
else
  fail "cpack -G RPM --config $build/CPackConfig.cmake failed: $(tail -n 20 "$tmp/cpack-rpm.log")"
fi

# Nothing may have been written into the source tree.
if [ -e "$source/_CPack_Packages" ]; then
  fail "$source/_CPack_Packages exists: cpack wrote into the source tree"
fi

if [ ${#failures[@]} -gt 0 ]; then
  echo "install test: ${#failures[@]} check(s) failed:" >&2
  printf '  %s\n' "${failures[@]}" >&2
  exit 1
fi
echo "install test: all checks passed"
