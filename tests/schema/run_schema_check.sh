#!/bin/sh
# ctest unit.schema: the real writers write their sample records (the hidden
# "[.schema-samples]" Catch cases), then check_records.py validates them
# against docs/records.schema.json. usage: run_schema_check.sh DOCS_DIR UNIT_TESTS [EMULATOR...]
set -eu
docs=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
samples=$(mktemp -d)
trap 'rm -rf "$samples"' EXIT
RDMABENCH_SCHEMA_SAMPLES=$samples "$@" '[.schema-samples]' >/dev/null ||
  { echo "FAIL: the sample cases failed: rerun $* '[.schema-samples]' with RDMABENCH_SCHEMA_SAMPLES set"; exit 1; }
exec /usr/bin/python3 "$here/check_records.py" "$docs" "$samples"
