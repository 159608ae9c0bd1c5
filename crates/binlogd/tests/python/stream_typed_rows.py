"""Streams binlogd's binlog with python-mysql-replication (unmodified) from FILE at position 4
and prints each inserted row as `db.table col=value ...`, one per line, each value in a form
that keeps its decoded type: bytes as `0x<hex>`, sets as `{a,b}` (sorted), JSON documents
(dicts/lists/scalars decoded from binary JSON) as `json:<compact JSON, keys sorted>`, strings
as themselves, NULL as `NULL`.

Usage: stream_typed_rows.py PORT FILE
"""

import json
import sys

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import WriteRowsEvent


def show(v, column):
    if v is None:
        return "NULL"
    if column is not None and getattr(column, "type", None) == 245:  # MYSQL_TYPE_JSON
        def plain(x):
            if isinstance(x, bytes):
                return x.decode()
            if isinstance(x, dict):
                return {plain(k): plain(val) for k, val in x.items()}
            if isinstance(x, list):
                return [plain(i) for i in x]
            return x
        return "json:" + json.dumps(plain(v), sort_keys=True, separators=(",", ":"))
    if isinstance(v, bytes):
        return "0x" + v.hex()
    if isinstance(v, set):
        return "{" + ",".join(sorted(v)) + "}"
    return str(v)


def main():
    port, where = int(sys.argv[1]), sys.argv[2]
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": port, "user": "root", "passwd": ""},
        server_id=4243,
        blocking=False,
        only_events=[WriteRowsEvent],
        log_file=where,
        log_pos=4,
        resume_stream=True,
    )
    try:
        for event in stream:
            columns = {c.name: c for c in event.columns}
            for row in event.rows:
                values = row["values"]
                parts = [f"{k}={show(v, columns.get(k))}" for k, v in values.items()]
                print(f"{event.schema}.{event.table} " + " ".join(parts))
    finally:
        stream.close()


main()
