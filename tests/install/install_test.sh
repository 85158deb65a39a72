#!/usr/bin/env bash
# install_test.sh - the suite installs and runs from where it is installed,
# both ways a user gets it: `cmake --install --prefix` and the .deb from
# `cpack -G DEB` unpacked with `dpkg -x`. From each root, outside the source
# tree: the binaries are there (and no test-only one), none carries an
# RPATH/RUNPATH, `rdma_write_bw --help` prints its help, `rdma_topo --json`
# prints valid JSON, and the docs are there. The .deb's Depends names
# libibverbs1 and librdmacm1 (and, with dpkg-shlibdeps, libc6 and
# libstdc++6), its file name is Debian's, its section is net, and its
# binaries name neither the source nor the build tree.
#
# Usage: install_test.sh CMAKE CPACK BUILD_DIR SOURCE_DIR SHLIBDEPS(ON|OFF)
#
# Writes only under one temporary folder, removed on exit. Prints every
# failed check and exits 1 if there was one.
#
# RDMABENCH_TEST_EMULATOR, when set, is the command line that runs the
# installed binaries (a cross build's qemu-user, from tests/CMakeLists.txt).
set -uo pipefail

[ $# -eq 5 ] || { echo "usage: $0 CMAKE CPACK BUILD_DIR SOURCE_DIR SHLIBDEPS" >&2; exit 2; }
cmake=$1 cpack=$2 build=$3 source=$4 shlibdeps=$5

# What must be installed, and what must not (test and investigation builds).
installed=(rdma_write_bw rdma_write_lat rdma_read_bw rdma_read_lat
           rdma_send_bw rdma_send_lat rdma_atomic_bw rdma_atomic_lat
           rdma_topo rdma_devices tcp_baseline)
not_installed=(unit_tests lab_tests gpu_check bare_send_lat libcuda-standin.so)

read -ra emulator <<<"${RDMABENCH_TEST_EMULATOR:-}"

failures=()
fail() { failures+=("$*"); echo "FAIL: $*" >&2; }
ok() { echo "ok: $*"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-install-test.XXXXXX") || { echo "mktemp failed" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
# Run everything from a folder outside the source and build trees, so that
# nothing found there by a relative path can make a check pass.
cd "$tmp" || exit 1
mkdir -p work

# Check one installed tree: PREFIX holds bin/ and share/. LABEL names it.
check_root() {
  local label=$1 prefix=$2 name out rc
  for name in "${installed[@]}"; do
    [ -x "$prefix/bin/$name" ] || fail "$label: bin/$name is not installed"
  done
  for name in "${not_installed[@]}"; do
    if [ -n "$(find "$prefix" -name "$name" -print -quit)" ]; then
      fail "$label: $name is installed (it is test-only)"
    fi
  done
  for name in "${installed[@]}"; do
    [ -x "$prefix/bin/$name" ] || continue
    if readelf -d "$prefix/bin/$name" | grep -qE '\((RPATH|RUNPATH)\)'; then
      fail "$label: bin/$name has an RPATH/RUNPATH: $(readelf -d "$prefix/bin/$name" | grep -E 'R(UN)?PATH')"
    fi
  done
  [ -f "$prefix/share/doc/rdmabench/README.md" ] || fail "$label: share/doc/rdmabench/README.md is not installed"

  out=$(cd work && "${emulator[@]}" "$prefix/bin/rdma_write_bw" --help 2>&1); rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$label: bin/rdma_write_bw --help exited $rc: $(head -c 2000 <<<"$out")"
  elif ! grep -q -- '--ib-dev' <<<"$out"; then
    fail "$label: bin/rdma_write_bw --help printed no help (no --ib-dev in it): $(head -c 2000 <<<"$out")"
  else
    ok "$label: bin/rdma_write_bw --help"
  fi

  out=$(cd work && "${emulator[@]}" "$prefix/bin/rdma_topo" --json 2>"$tmp/topo.err"); rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$label: bin/rdma_topo --json exited $rc: $(head -c 2000 "$tmp/topo.err")"
  elif ! python3 -c 'import json,sys; json.load(sys.stdin)' <<<"$out" 2>"$tmp/json.err"; then
    fail "$label: bin/rdma_topo --json printed no valid JSON ($(tail -n 1 "$tmp/json.err")): $(head -c 2000 <<<"$out")"
  else
    ok "$label: bin/rdma_topo --json"
  fi
}

# (a) cmake --install into a prefix.
if "$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then
  ok "cmake --install --prefix"
  check_root "cmake --install" "$tmp/prefix"
else
  fail "cmake --install $build --prefix $tmp/prefix failed: $(tail -n 20 "$tmp/install.log")"
fi

# (b) the .deb, built into the temporary folder (-B: cpack's staging folder
# _CPack_Packages goes there too, not into the build tree), then unpacked.
if "$cpack" -G DEB -B "$tmp/pkg" --config "$build/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1; then
  debs=("$tmp"/pkg/*.deb)
  if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    fail "cpack -G DEB made ${#debs[@]} .deb files, not one: $(ls "$tmp/pkg")"
  else
    deb=${debs[0]}
    ok "cpack -G DEB: $(basename "$deb")"
    field() { dpkg-deb -f "$deb" "$1"; }
    expected="$(field Package)_$(field Version)_$(field Architecture).deb"
    [ "$(basename "$deb")" = "$expected" ] || fail ".deb is named $(basename "$deb"), not $expected"
    [ "$(field Package)" = rdmabench ] || fail ".deb Package is '$(field Package)', not rdmabench"
    [ "$(field Section)" = net ] || fail ".deb Section is '$(field Section)', not net"
    [ -n "$(field Maintainer)" ] || fail ".deb has no Maintainer"
    depends=$(field Depends)
    wanted=(libibverbs1 librdmacm1)
    [ "$shlibdeps" = ON ] && wanted+=(libc6 libstdc++6)
    for package in "${wanted[@]}"; do
      grep -qE "(^|, )${package//+/\\+}( |,|$)" <<<"$depends" ||
        fail ".deb Depends does not name $package: $depends"
    done
    ok ".deb Depends: $depends"
    if dpkg -x "$deb" "$tmp/root" 2>"$tmp/dpkg.err"; then
      check_root "dpkg -x" "$tmp/root/usr"
      # The .deb's binaries are built without debug information, which is
      # where the source and build paths would be.
      for file in "$tmp"/root/usr/bin/*; do
        for path in "$source" "$build"; do
          if grep -qaF -- "$path" "$file"; then
            fail "dpkg -x: ${file#"$tmp"/root/} names $path"
          fi
        done
      done
    else
      fail "dpkg -x $deb failed: $(cat "$tmp/dpkg.err")"
    fi
  fi
else
  fail "cpack -G DEB --config $build/CPackConfig.cmake failed: $(tail -n 20 "$tmp/cpack.log")"
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
