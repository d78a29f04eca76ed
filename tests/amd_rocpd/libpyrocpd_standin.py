"""TEST DOUBLE -- not AMD's libpyrocpd.

AMD's `rocpd` Python package (rocprofiler-sdk, source/lib/python/rocpd/) imports a compiled extension,
`libpyrocpd` (pybind11 over librocprofiler-sdk-rocpd), that Debian does not package. Most of the package's
analysis (the importer that unions databases into temporary views, `summary`, `query`, `time_window`) is
Python over the standard sqlite3 module and uses the extension only for small services. This module stands
in for those services so that AMD's own Python runs unmodified on our databases:

  connect          sqlite3.connect (the extension also maps the connection into C++; not needed here)
  RocpdImportData  the base class: holds `connection` and `databases`
  load_schema      reads a schema file (rocpd_tables.sql, data_views.sql, ...) from $ROCPD_SCHEMA_PATH
                   and fills in its {{uuid}} / {{guid}} placeholders as librocprofiler-sdk-rocpd's
                   rocpd_sql_load_schema does (uuid: '-' becomes '_', a leading '_' is added)
  output_config    a plain record of the output settings the Python reads and writes
  format_path      returns the path unchanged (the C++ expands %tag% placeholders; the tests use none)

The converters (write_csv, write_perfetto, write_otf2) and read_agents/... are C++ in the extension and are
NOT emulated: calling them raises NotImplementedError, so nothing can pass for AMD's converters here.
"""

import enum
import os
import sqlite3


class sql_engine(enum.Enum):
    sqlite3 = 1


class sql_schema(enum.Enum):
    rocpd_tables = "rocpd_tables.sql"
    rocpd_indexes = "rocpd_indexes.sql"
    rocpd_views = "rocpd_views.sql"
    data_views = "data_views.sql"
    summary_views = "summary_views.sql"
    marker_views = "marker_views.sql"


class sql_option(enum.Flag):
    none = 0
    sqlite3_pragma_foreign_keys = 1


class agent_indexing(enum.Enum):
    node = 0
    logical_node = 1
    logical_node_type = 2


class schema_jinja_variables:
    def __init__(self):
        self.uuid = None
        self.guid = None


def _table_suffix(uuid):
    if not uuid:
        return ""
    suffix = uuid.replace("-", "_")
    return suffix if suffix.startswith("_") else "_" + suffix


def load_schema(engine, kind, options, variables):
    if engine is not sql_engine.sqlite3:
        raise ValueError(f"unsupported SQL engine {engine}")
    directories = [d for d in os.environ.get("ROCPD_SCHEMA_PATH", "").split(":") if d]
    for directory in directories:
        path = os.path.join(directory, kind.value)
        if os.path.isfile(path):
            break
    else:
        raise FileNotFoundError(f"{kind.value} not found in ROCPD_SCHEMA_PATH={directories}")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if sql_option.sqlite3_pragma_foreign_keys in options:
        text = "PRAGMA foreign_keys = ON;\n\n" + text
    if variables is not None:
        if variables.uuid is not None:
            text = text.replace("{{uuid}}", _table_suffix(str(variables.uuid)))
        if variables.guid is not None:
            text = text.replace("{{guid}}", str(variables.guid))
    return text


def connect(path, *args, **kwargs):
    return sqlite3.connect(path, *args, **kwargs)


class RocpdImportData:
    # Class-level defaults: AMD's subclass forwards unknown attributes to `connection` via __getattr__,
    # which must never recurse while the instance is being built.
    connection = None
    databases = ()

    def __init__(self, source=None, databases=None):
        if isinstance(source, RocpdImportData):
            self.connection = source.connection
            self.databases = list(source.databases)
        elif source is not None:
            self.connection = source
            self.databases = list(databases or [])


class output_config:
    def __init__(self):
        self.output_path = "./rocpd-output-data"
        self.output_file = "out"
        self.tmp_directory = ""
        self.csv = False
        self.pftrace = False
        self.otf2 = False
        self.kernel_rename = False
        self.agent_index_value = agent_indexing.logical_node
        self.group_by_queue = False
        self.perfetto_shmem_size_hint = 0
        self.perfetto_buffer_size = 0
        self.perfetto_backend = ""
        self.perfetto_buffer_fill_policy = ""


def format_path(path, tag=""):
    return path


def _compiled_only(name):
    def call(*args, **kwargs):
        raise NotImplementedError(
            f"libpyrocpd.{name} is compiled C++ (rocprofiler-sdk); this stand-in does not emulate it")

    return call


write_csv = _compiled_only("write_csv")
write_perfetto = _compiled_only("write_perfetto")
write_otf2 = _compiled_only("write_otf2")
read_agents = _compiled_only("read_agents")
read_nodes = _compiled_only("read_nodes")
read_processes = _compiled_only("read_processes")
read_threads = _compiled_only("read_threads")
