# shellcheck shell=bash disable=SC2119,SC2120
# -h, --help and --version of the bash tools. Sourced first, with the
# tool's arguments, before it does anything:
#   . "$(dirname "$(readlink -f "$0")")/rdmabench_tools/usage.sh" "$@"
# -h or --help as the first argument prints the sourcing script's header
# comment (its leading # lines after the #! line); exactly --version prints
#   TOOL (rdmabench) VERSION
#   built against rdma-core 44.0 (libibverbs 1.14.44.0, librdmacm 1.3.44.0)
# as the binaries and the Python tools do (rdmabench_tools/version.py);
# either exits 0. Anything else falls through to the tool. Sourced with
# --define-only, it only defines rdmabench_usage [FILE] and
# rdmabench_version [NAME], for tools that parse their own arguments.
#
# TOOL is the name the tool was invoked as ($0: rdmabench-rdma-lab when
# installed as that link), or the script's own name when it was sourced.
# VERSION: installed, _installed.py's VERSION (beside this file), else the
# installed rdma_write_bw --version's; in a source tree, the project() of
# the CMakeLists.txt two folders up. The rdma-core: _installed.py's
# RDMA_CORE, else the installed or built rdma_write_bw --version
# (RDMABENCH_BUILD, default build/ of the tree), else this host's libibverbs
# (pkg-config), else "unknown". Safe under set -euo pipefail and an ERR trap.

_rdmabench_usage_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)

# The script that sourced this (through any shim also named usage.sh, as
# tools/dev/usage.sh), and the name to print for it.
_rdmabench_usage_caller=$0
for _rdmabench_usage_i in "${BASH_SOURCE[@]:1}"; do
  if [ "$(basename "$_rdmabench_usage_i")" != usage.sh ]; then
    _rdmabench_usage_caller=$_rdmabench_usage_i
    break
  fi
done
unset _rdmabench_usage_i
if [ "${BASH_SOURCE[${#BASH_SOURCE[@]}-1]}" = "$0" ]; then
  _rdmabench_usage_name=$(basename "$0")                       # run: as invoked
else
  _rdmabench_usage_name=$(basename "$_rdmabench_usage_caller")  # sourced
fi

# The header comment of FILE (default: the sourcing script).
rdmabench_usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${1:-$_rdmabench_usage_caller}"
}

# The second line of BINARY --version, if it runs and says rdma-core.
_rdmabench_binary_line() {
  local out line
  [ -x "$1" ] || return 1
  out=$(timeout 20 "$1" --version 2>/dev/null) || return 1
  line=$(sed -n 2p <<< "$out")
  case "$line" in *rdma-core*) printf '%s\n' "$line" ;; *) return 1 ;; esac
}

# VAR = "value" of _installed.py, if it has it.
_rdmabench_installed_value() {
  [ -f "$_rdmabench_usage_dir/_installed.py" ] || return 1
  sed -n -E "s/^$1[[:space:]]*=[[:space:]]*[\"']([^\"']*)[\"'].*/\\1/p" "$_rdmabench_usage_dir/_installed.py" | head -n 1
}

rdmabench_version() {
  local name=${1:-$_rdmabench_usage_name} version core bindir build mod
  version=$(_rdmabench_installed_value VERSION) || version=
  if [ -z "$version" ] && [ -f "$_rdmabench_usage_dir/../../CMakeLists.txt" ]; then
    version=$(sed -n -E 's/^[[:space:]]*project[[:space:]]*\([[:space:]]*rdmabench[[:space:]]+VERSION[[:space:]]+([0-9][0-9.]*).*/\1/p' \
              "$_rdmabench_usage_dir/../../CMakeLists.txt" | head -n 1) || version=
  fi
  if [ -z "$version" ] && [ -f "$_rdmabench_usage_dir/_installed.py" ]; then
    bindir=$(_rdmabench_installed_value BINDIR_FROM_TOOLS) || bindir=
    if [ -n "$bindir" ] && [ -x "$_rdmabench_usage_dir/../$bindir/rdma_write_bw" ]; then
      version=$(timeout 20 "$_rdmabench_usage_dir/../$bindir/rdma_write_bw" --version 2>/dev/null |
                sed -n -E '1s/.*\(rdmabench\) ([^ ]+)$/\1/p') || version=
    fi
  fi
  core=$(_rdmabench_installed_value RDMA_CORE) || core=
  if [ -n "$core" ]; then
    case "$core" in *rdma-core*) ;; *) core="built against rdma-core $core" ;; esac
  fi
  if [ -z "$core" ] && [ -f "$_rdmabench_usage_dir/_installed.py" ]; then
    bindir=$(_rdmabench_installed_value BINDIR_FROM_TOOLS) || bindir=
    [ -z "$bindir" ] || core=$(_rdmabench_binary_line "$_rdmabench_usage_dir/../$bindir/rdma_write_bw") || core=
  fi
  if [ -z "$core" ]; then
    build=${RDMABENCH_BUILD:-}
    if [ -z "$build" ] && [ -f "$_rdmabench_usage_dir/../../CMakeLists.txt" ]; then
      build=$_rdmabench_usage_dir/../../build
    fi
    [ -z "$build" ] || core=$(_rdmabench_binary_line "$build/bench/rdma_write_bw") || core=
  fi
  if [ -z "$core" ] && command -v pkg-config > /dev/null 2>&1; then
    mod=$(pkg-config --modversion libibverbs 2>/dev/null) || mod=
    case "$mod" in
      *.*) core="rdma-core $(awk -F. '{ print $(NF-1) "." $NF }' <<< "$mod") (this host's libibverbs; not built yet)" ;;
    esac
  fi
  printf '%s (rdmabench) %s\n%s\n' "$name" "${version:-unknown}" "${core:-rdma-core: unknown}"
}

case "${1:-}" in
  -h|--help) rdmabench_usage; exit 0 ;;
  --version) if [ $# -eq 1 ]; then rdmabench_version; exit 0; fi ;;
esac
