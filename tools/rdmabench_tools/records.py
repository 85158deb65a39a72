"""What every record our tools write carries, as the pair JSON does
(docs/json-output.md, docs/records.schema.json's tool_header): the schema
version, a run id, when it started (ISO 8601 UTC) and the host. A tool's figures keep the pair JSON's names (`median_us`,
`average_MBps`), so one vocabulary reads them all."""

import datetime
import platform
import secrets

# Schema 2: the figures took the names of include/rdmabench/report/figure_names.hpp.
SCHEMA_VERSION = 2


def utc_now():
    """"2026-12-04T13:10:27Z", as the pair JSON's started_utc."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_id():
    """14 hex digits, as the pair binaries' run_id: names one run of a tool."""
    return secrets.token_hex(7)


def header():
    """The fields that lead a tool's results: schema_version, run_id, started_utc, host."""
    return {"schema_version": SCHEMA_VERSION, "run_id": run_id(), "started_utc": utc_now(), "host": platform.node()}
