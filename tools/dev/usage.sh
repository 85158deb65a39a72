# Sourced first by the dev scripts, with their arguments: -h or --help
# prints the script's header comment and exits 0 before it does anything.
case "${1:-}" in
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[1]}"; exit 0 ;;
esac
