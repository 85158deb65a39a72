# shellcheck shell=bash
# Sourced first by the dev scripts, with their arguments: -h or --help
# prints the script's header comment, --version the version and the
# rdma-core; either exits 0 before the script does anything. The logic is
# tools/rdmabench_tools/usage.sh, shared with the user tools.
# shellcheck source=../rdmabench_tools/usage.sh
. "$(dirname "${BASH_SOURCE[0]}")/../rdmabench_tools/usage.sh" "$@"
