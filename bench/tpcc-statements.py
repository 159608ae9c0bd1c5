#!/usr/bin/env python3
"""Server CPU per execution of each of go-tpc's statement shapes (go-tpc v1.0.7's tpcc/*.go),
run as server-side prepared statements (COM_STMT_EXECUTE, as go-tpc runs them) against a
database `go-tpc tpcc prepare` loaded. For each shape: N executions with random parameters in
TPC-C's ranges, the server's utime+stime over them (/proc/PID/stat) divided by N. Reads run in
autocommit; each write runs inside a transaction that is rolled back every 10 executions, so
the figures are the statements' own cost, not the commit's.

Usage: bench/tpcc-statements.py PORT SERVER_PID [N] [WAREHOUSES]   (N default 2000)
Needs mysql-connector-python (installed on this machine)."""
import os, random, sys, time
import mysql.connector

port, pid = int(sys.argv[1]), int(sys.argv[2])
n = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
wh = int(sys.argv[4]) if len(sys.argv) > 4 else 2
hz = os.sysconf("SC_CLK_TCK")


def cpu():
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / hz


cn = mysql.connector.connect(host="127.0.0.1", port=port, user="root", database="tpcc",
                             autocommit=True)
plain = cn.cursor()
plain.execute("SELECT DISTINCT c_last FROM customer WHERE c_w_id = 1 AND c_d_id = 1")
lasts = [r[0] for r in plain.fetchall()]
plain.execute("SELECT MIN(no_o_id), MAX(no_o_id) FROM new_order")
no_lo, no_hi = plain.fetchone()
cur = cn.cursor(prepared=True)
W = lambda: random.randint(1, wh)
D = lambda: random.randint(1, 10)
C = lambda: random.randint(1, 3000)
I = lambda: random.randint(1, 100000)
O = lambda: random.randint(1, 3000)


def items(k):
    return [I() for _ in range(k)]


def rows_in(k):
    return ", ".join(["(?,?,?)"] * k)


SHAPES = [
    ("NewOrder customer join warehouse", False,
     "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?",
     lambda: (W(), D(), C())),
    ("NewOrder district FOR UPDATE", True,
     "SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ? FOR UPDATE",
     lambda: (D(), W())),
    ("NewOrder update district", True,
     "UPDATE district SET d_next_o_id = ? + 1 WHERE d_id = ? AND d_w_id = ?",
     lambda: (3001, D(), W())),
    ("NewOrder items IN (10)", False,
     "SELECT i_price, i_name, i_data, i_id FROM item WHERE i_id IN (" + ",".join(["?"] * 10) + ")",
     lambda: tuple(items(10))),
    ("NewOrder stock (w,i) IN (10) FOR UPDATE", True,
     "SELECT s_i_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE (s_w_id, s_i_id) IN (" + ",".join(["(?,?)"] * 10) + ") FOR UPDATE",
     lambda: tuple(v for i in items(10) for v in (W(), i))),
    ("NewOrder update stock", True,
     "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?",
     lambda: (50, 5, 0, I(), W())),
    ("Payment customer FOR UPDATE", True,
     "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE",
     lambda: (W(), D(), C())),
    ("Payment update customer", True,
     "UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
     lambda: (10.5, 10.5, W(), D(), C())),
    ("Payment customers by last name", False,
     "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first",
     lambda: (W(), D(), random.choice(lasts))),
    ("Payment insert history", True,
     "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
     lambda: (D(), W(), C(), D(), W(), "2026-11-27 00:00:00", 10.5, "abcdefgh")),
    ("OrderStatus count by last name", False,
     "SELECT count(c_id) namecnt FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ?",
     lambda: (W(), D(), random.choice(lasts))),
    ("OrderStatus latest order", False,
     "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT 1",
     lambda: (W(), D(), C())),
    ("OrderStatus order lines", False,
     "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?",
     lambda: (W(), D(), O())),
    ("Delivery oldest new_order FOR UPDATE", True,
     "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id ASC LIMIT 1 FOR UPDATE",
     lambda: (W(), D())),
    ("Delivery orders (w,d,o) IN (10)", False,
     "SELECT o_d_id, o_c_id FROM orders WHERE (o_w_id, o_d_id, o_id) IN (" + rows_in(10) + ")",
     lambda: tuple(v for d in range(1, 11) for v in (1, d, random.randint(no_lo, no_hi)))),
    ("Delivery update order_line (w,d,o) IN (10)", True,
     "UPDATE order_line SET ol_delivery_d = ? WHERE (ol_w_id, ol_d_id, ol_o_id) IN (" + rows_in(10) + ")",
     lambda: ("2026-11-27 00:00:00",) + tuple(v for d in range(1, 11) for v in (1, d, random.randint(no_lo, no_hi)))),
    ("Delivery sum order_line GROUP BY (10)", False,
     "SELECT ol_d_id, SUM(ol_amount) FROM order_line WHERE (ol_w_id, ol_d_id, ol_o_id) IN (" + rows_in(10) + ") GROUP BY ol_d_id",
     lambda: tuple(v for d in range(1, 11) for v in (1, d, random.randint(no_lo, no_hi)))),
    ("StockLevel count distinct join", False,
     "SELECT COUNT(DISTINCT (s_i_id)) stock_count FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? - 20 AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?",
     lambda: (1, D(), 3001, 3001, 1, 15)),
    ("StockLevel district", False,
     "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?",
     lambda: (W(), D())),
]

only = os.environ.get("ONLY")
print("# port=%d n=%d load=%s" % (port, n, open("/proc/loadavg").read().split()[0]))
for name, write, sql, gen in SHAPES:
    if only and only.lower() not in name.lower():
        continue
    args = [gen() for _ in range(n)]
    for a in args[:20]:  # warm up (prepares the statement)
        if write:
            cur.execute("BEGIN") if False else plain.execute("BEGIN")
        cur.execute(sql, a)
        if cur.with_rows:
            cur.fetchall()
        if write:
            plain.execute("ROLLBACK")
    c0, t0 = cpu(), time.time()
    for i, a in enumerate(args):
        if write and i % 10 == 0:
            plain.execute("BEGIN")
        cur.execute(sql, a)
        if cur.with_rows:
            cur.fetchall()
        if write and i % 10 == 9:
            plain.execute("ROLLBACK")
    if write:
        plain.execute("ROLLBACK")
    c1, t1 = cpu(), time.time()
    print("%-45s %8.1f us/exec server CPU  %8.1f us/exec wall" % (name, (c1 - c0) * 1e6 / n, (t1 - t0) * 1e6 / n))
