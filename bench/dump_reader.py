#!/usr/bin/env python3
"""A minimal binlog dump client for bench/dump-readers.sh: connects with PyMySQL, asks for the
stream with COM_BINLOG_DUMP (file FILE from position POS) and then only receives bytes into one
buffer until the server closes or the process gets SIGTERM; then it prints how many bytes it
received. It does not parse events, so the client side costs almost no CPU and the figures show
the server's dump threads. With NONBLOCK=1 (BINLOG_DUMP_NON_BLOCK) the server sends what is
there and an EOF: the script's reference for what a caught-up reader must have received.
(mariadb-binlog --read-from-remote-server refuses servers whose version starts with 8.)

Usage: dump_reader.py PORT SERVER_ID FILE POS [NONBLOCK [READY_FILE]]
"""
import signal
import struct
import sys

import pymysql

port, server_id, fname, pos = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
non_block = len(sys.argv) > 5 and sys.argv[5] == "1"
total = 0


def done(*_):
    print(total, flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, done)
conn = pymysql.connect(host="127.0.0.1", port=port, user="root", password="")
with conn.cursor() as cur:
    cur.execute("SET @master_binlog_checksum = @@global.binlog_checksum")
# COM_BINLOG_DUMP: command 0x12, binlog-pos u32, flags u16 (1: BINLOG_DUMP_NON_BLOCK, 0: block),
# server-id u32, file name (MySQL's protocol documentation, COM_BINLOG_DUMP).
payload = bytes([0x12]) + struct.pack("<IHI", pos, 1 if non_block else 0, server_id) + fname.encode()
conn._sock.sendall(struct.pack("<I", len(payload))[:3] + b"\x00" + payload)
if len(sys.argv) > 6:
    open(sys.argv[6], "w").close()  # READY_FILE: the dump was asked for
buf = bytearray(1 << 20)
while True:
    n = conn._sock.recv_into(buf)
    if n == 0:
        break
    total += n
done()
