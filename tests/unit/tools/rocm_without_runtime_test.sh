#!/usr/bin/env bash
# --mem rocm:N (and perftest's --use_rocm=N) on a machine without ROCm: the
# binary says that the HIP runtime libamdhip64.so was not found and what to
# install or use instead, and exits 1 (an error it reports: no crash, no
# hang), as a server before it listens and as a client before it connects.
# SKIPPED (77) where a HIP runtime is installed: there the message differs.
# Usage: rocm_without_runtime_test.sh [EMULATOR...] BINARY
set -uo pipefail
if ldconfig -p 2>/dev/null | grep -q 'libamdhip64\.so' || [ -e /opt/rocm/lib/libamdhip64.so ]; then
  echo "SKIPPED: a HIP runtime is installed here (ldconfig or /opt/rocm), so its absence cannot be shown"
  exit 77
fi
failed=0
for args in "--mem rocm:0" "--mem rocm:1 -p 1 127.0.0.1" "--use_rocm=0"; do
  # shellcheck disable=SC2086 # the arguments are words on purpose
  err=$(env -u RDMABENCH_HIP_RUNTIME timeout 30 "$@" $args 2>&1 >/dev/null)
  rc=$?
  what="${*: -1} $args"
  if [ "$rc" != 1 ]; then
    echo "FAIL: $what exited $rc (expected 1: an error it reports): $err"; failed=1
  fi
  for expected in "no HIP runtime: libamdhip64.so was not found (tried libamdhip64.so" \
                  "install ROCm (its hip-runtime-amd package)" "RDMABENCH_HIP_RUNTIME" "use --mem host"; do
    grep -qF -- "$expected" <<< "$err" || { echo "FAIL: $what does not say '$expected': $err"; failed=1; }
  done
  [ "$failed" = 0 ] && echo "ok: $what: $err"
done
exit "$failed"
