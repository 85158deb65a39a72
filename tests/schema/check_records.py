#!/usr/bin/env python3
"""Every writer's records against docs/records.schema.json, and the CSV
header against the columns docs/json-output.md documents.

usage: check_records.py DOCS_DIR SAMPLES_DIR

SAMPLES_DIR holds what the hidden "[.schema-samples]" unit cases wrote
through the real writers: pair.jsonl and pair.csv (lib/report), sweep.jsonl
(lib/sweep); the tools' common header comes from
tools/rdmabench_tools/records.py itself. Exits 77 (skipped) without python3-jsonschema.
"""
import copy
import csv
import json
import os
import re
import sys

try:
    import jsonschema
except ImportError:
    print("SKIPPED: needs python3-jsonschema (tools/install-deps test installs it)")
    sys.exit(77)


def fail(message):
    sys.exit(f"FAIL: {message}")


def lines_of(path):
    with open(path) as f:
        records = [json.loads(line) for line in f if line.strip()]
    if not records:
        fail(f"{path} holds no records: did the sample cases run?")
    return records


def validator(schema, definition):
    sub = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}
    cls = jsonschema.validators.validator_for(sub)
    cls.check_schema(schema)
    return cls(sub)


def check(v, records, path):
    for n, record in enumerate(records, 1):
        errors = sorted(v.iter_errors(record), key=lambda e: list(e.path))
        if errors:
            fail(f"{path} record {n}: " + "; ".join(f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message}"
                                                    for e in errors[:5]))
    print(f"ok: {len(records)} records of {os.path.basename(path)} match the schema")


def documented_csv_columns(json_output_md):
    with open(json_output_md) as f:
        text = f.read()
    section = text.split("## CSV", 1)[1]
    columns = []
    for line in section.splitlines():
        if line.startswith("| `"):
            columns += re.findall(r"`([^`]+)`", line.split("|")[1])
    return columns


def main():
    docs, samples = sys.argv[1], sys.argv[2]
    with open(os.path.join(docs, "records.schema.json")) as f:
        schema = json.load(f)
    pair, sweep = validator(schema, "pair_record"), validator(schema, "sweep_record")

    pair_path, sweep_path = os.path.join(samples, "pair.jsonl"), os.path.join(samples, "sweep.jsonl")
    pair_records, sweep_records = lines_of(pair_path), lines_of(sweep_path)
    check(pair, pair_records, pair_path)
    check(sweep, sweep_records, sweep_path)
    groups = {g for r in pair_records for g in ("latency", "load", "bandwidth", "bandwidth_server", "bandwidth_both")
              if g in r}
    if len(groups) != 5:
        fail(f"the pair samples cover the groups {sorted(groups)}, not all five")

    # The schema must refuse a figure under another name, or it proves nothing.
    renamed = copy.deepcopy(next(r for r in pair_records if "latency" in r))
    renamed["latency"]["p999_us"] = renamed["latency"].pop("p99_9_us")
    if pair.is_valid(renamed):
        fail("the schema took latency.p99_9_us renamed to p999_us")
    renamed = copy.deepcopy(sweep_records[0])
    renamed.setdefault("figures", {})["lat_p999_us"] = 1.0
    if sweep.is_valid(renamed):
        fail("the schema took a sweep figure named lat_p999_us")
    print("ok: the schema refuses a renamed figure")

    sys.path.insert(0, os.path.join(os.path.dirname(docs), "tools"))
    from rdmabench_tools import records
    check(validator(schema, "tool_header"), [records.header()], "the tools' records.header()")

    with open(os.path.join(samples, "pair.csv")) as f:
        rows = list(csv.reader(f))
    header, documented = rows[0], documented_csv_columns(os.path.join(docs, "json-output.md"))
    if header != documented:
        fail(f"the CSV header and docs/json-output.md differ:\n  written    {header}\n  documented {documented}")
    # One row per record, but none for a soak's summary (its periods have theirs).
    per_size = [r for r in pair_records if not r.get("soak", {}).get("summary")]
    if len(rows) != 1 + len(per_size) or any(len(r) != len(header) for r in rows[1:]):
        fail(f"pair.csv: {len(rows) - 1} rows for {len(per_size)} records, or a row of the wrong width")
    print(f"ok: the CSV's {len(header)} columns are the documented ones, in order")


if __name__ == "__main__":
    main()
