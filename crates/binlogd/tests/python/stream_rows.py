"""Streams binlogd's binlog with python-mysql-replication (unmodified) and prints each row
change as `KIND db.table [v1,v2,...]` (`UPDATE ... [before] -> [after]`), one per line.

Usage: stream_rows.py PORT gtid GTID_SET   (auto-position: the transactions not in GTID_SET)
       stream_rows.py PORT file FILE       (from FILE at position 4)
The stream is non-blocking: it ends at the end of the binlog.
"""

import sys

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent


def text(values):
    def one(v):
        if v is None:
            return "NULL"
        if isinstance(v, bytes):
            return v.decode()
        return str(v)

    return "[" + ",".join(one(v) for v in values.values()) + "]"


def main():
    port, mode, where = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    position = {"auto_position": where} if mode == "gtid" else {
        "log_file": where, "log_pos": 4, "resume_stream": True}
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": port, "user": "root", "passwd": ""},
        server_id=4242,
        blocking=False,
        only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent],
        **position,
    )
    try:
        for event in stream:
            table = f"{event.schema}.{event.table}"
            for row in event.rows:
                if isinstance(event, WriteRowsEvent):
                    print(f"INSERT {table} {text(row['values'])}")
                elif isinstance(event, DeleteRowsEvent):
                    print(f"DELETE {table} {text(row['values'])}")
                else:
                    print(f"UPDATE {table} {text(row['before_values'])} -> "
                          f"{text(row['after_values'])}")
    finally:
        stream.close()


main()
