"""What every record our tools write carries, as the pair JSON does
(docs/json-output.md): the schema version, when it started (ISO 8601 UTC)
and the host. A tool's figures keep the pair JSON's names (`median_us`,
`average_MBps`), so one vocabulary reads them all."""

import datetime
import platform

# Schema 2: the figures took the names of include/rdmabench/report/figure_names.hpp.
SCHEMA_VERSION = 2


def utc_now():
    """"2026-12-04T13:10:27Z", as the pair JSON's started_utc."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def header():
    """The fields that lead a tool's results: schema_version, started_utc, host."""
    return {"schema_version": SCHEMA_VERSION, "started_utc": utc_now(), "host": platform.node()}
