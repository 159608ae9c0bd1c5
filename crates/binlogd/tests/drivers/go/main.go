// go-sql-driver/mysql against a server (tests/drivers_go.rs runs it against binlogd and MariaDB).
//
// Usage: driverscheck <port> <socket> <types.tsv> <phase,...> [user password]...
// Phases as DriverCheck.java's: conn (TCP with RSA / fast path, TLS, Unix socket, per account),
// types (every row of types.tsv through text queries (interpolateParams) and server-side
// prepared statements, the driver's default; ColumnTypes printed as "meta" lines), pool
// (database/sql's pool: SetMaxOpenConns with concurrent use, Ping, Conn, transactions).
// A line starting with FAIL makes the exit status 1.
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

type col struct{ name, sqlType, kind, value string }

var (
	port, socket string
	cols         []col
	failures     int
	mu           sync.Mutex
)

func fail(format string, args ...any) {
	mu.Lock()
	defer mu.Unlock()
	failures++
	fmt.Println("FAIL " + fmt.Sprintf(format, args...))
}

func eq(got, want any, what string) {
	if !reflect.DeepEqual(got, want) {
		fail("%s: got <%v> want <%v>", what, got, want)
	}
}

func dsn(transport, user, password, extra string) string {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = user, password
	cfg.Timeout = 10 * time.Second
	cfg.AllowNativePasswords = true
	cfg.ParseTime = true
	cfg.Params = map[string]string{"charset": "utf8mb4"}
	switch transport {
	case "socket":
		cfg.Net, cfg.Addr = "unix", socket
	default:
		cfg.Net, cfg.Addr = "tcp", "127.0.0.1:"+port
	}
	if transport == "tls" {
		cfg.TLSConfig = "skip-verify"
	} else {
		cfg.TLSConfig = "false"
	}
	s := cfg.FormatDSN()
	if extra != "" {
		if strings.Contains(s, "?") {
			s += "&" + extra
		} else {
			s += "?" + extra
		}
	}
	return s
}

func open(transport, user, password, extra string) *sql.DB {
	db, err := sql.Open("mysql", dsn(transport, user, password, extra))
	if err != nil {
		panic(err)
	}
	return db
}

func status(db *sql.DB, name string) string {
	var n, v string
	if err := db.QueryRow("SHOW SESSION STATUS LIKE '" + name + "'").Scan(&n, &v); err != nil {
		return ""
	}
	return v
}

func conn(accounts [][2]string) {
	for _, a := range accounts {
		// tcp twice: the first caching_sha2 login is a full authentication (RSA key exchange
		// without TLS), the second the fast path.
		for _, transport := range []string{"tcp", "tcp", "tls", "socket"} {
			db := open(transport, a[0], a[1], "")
			db.SetMaxOpenConns(1)
			var user string
			if err := db.QueryRow("SELECT CURRENT_USER()").Scan(&user); err != nil {
				fail("connect %s %s: %v", a[0], transport, err)
				db.Close()
				continue
			}
			cipher, version := status(db, "Ssl_cipher"), status(db, "Ssl_version")
			tls := cipher != ""
			eq(tls, transport == "tls", a[0]+" "+transport+" Ssl_cipher")
			eq(version != "", tls, a[0]+" "+transport+" Ssl_version")
			fmt.Printf("conn %s %s %s tls=%v\n", a[0], transport, user, tls)
			db.Close()
		}
	}
}

func literal(c col) string {
	if c.kind == "string" || c.kind == "datetime" {
		return "'" + strings.ReplaceAll(strings.ReplaceAll(c.value, `\`, `\\`), "'", "''") + "'"
	}
	return c.value
}

// The value bound as a parameter, as a Go program would hold it.
func param(c col) any {
	switch c.kind {
	case "int":
		v, _ := strconv.ParseInt(c.value, 10, 64)
		return v
	case "uint":
		v, _ := strconv.ParseUint(c.value, 10, 64)
		return v
	case "bool":
		return c.value != "0"
	case "double":
		v, _ := strconv.ParseFloat(c.value, 64)
		return v
	case "datetime":
		t, _ := time.Parse("2006-01-02 15:04:05", c.value)
		return t
	default:
		return c.value
	}
}

// The value read back (scanned into the column's ScanType), in types.tsv's text form; nil for
// NULL.
func canonical(c col, v any) *string {
	rv := reflect.ValueOf(v).Elem().Interface()
	if valuer, ok := rv.(driver.Valuer); ok {
		x, err := valuer.Value()
		if err != nil || x == nil {
			return nil
		}
		rv = x
	}
	var s string
	switch x := rv.(type) {
	case float64:
		want, _ := strconv.ParseFloat(c.value, 64)
		if want == x {
			s = c.value
		} else {
			s = strconv.FormatFloat(x, 'g', -1, 64)
		}
	case time.Time:
		s = x.Format("2006-01-02 15:04:05")
	case sql.RawBytes:
		if x == nil {
			return nil
		}
		s = string(x)
	case []byte:
		s = string(x)
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

func meta(mode string, cts []*sql.ColumnType) {
	for _, ct := range cts {
		length, hasLength := ct.Length()
		p, sc, hasDec := ct.DecimalSize()
		nullable, hasNull := ct.Nullable()
		fmt.Printf("meta %s %s databaseTypeName=%s length=%d/%v decimalSize=%d,%d/%v nullable=%v/%v scanType=%v\n",
			mode, ct.Name(), ct.DatabaseTypeName(), length, hasLength, p, sc, hasDec, nullable, hasNull, ct.ScanType())
	}
}

func checkRows(mode string, rows *sql.Rows) {
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		fail("%s ColumnTypes: %v", mode, err)
		return
	}
	meta(mode, cts)
	n := 0
	for rows.Next() {
		n++
		dest := make([]any, len(cts))
		for i, ct := range cts {
			dest[i] = reflect.New(ct.ScanType()).Interface()
			// The driver's ScanType of a nullable BIGINT UNSIGNED is sql.NullInt64, which
			// cannot hold values past 2^63 (against any server): scan those into strings.
			if i > 0 && cols[i-1].kind == "uint" && ct.ScanType() == reflect.TypeOf(sql.NullInt64{}) {
				dest[i] = new(sql.NullString)
			}
		}
		if err := rows.Scan(dest...); err != nil {
			fail("%s scan: %v", mode, err)
			return
		}
		id := *canonical(col{kind: "int"}, dest[0])
		for i, c := range cols {
			got := canonical(c, dest[i+1])
			var want *string
			if id == "1" || id == "2" {
				want = &c.value
			}
			if (got == nil) != (want == nil) || (got != nil && *got != *want) {
				g, w := "NULL", "NULL"
				if got != nil {
					g = *got
				}
				if want != nil {
					w = *want
				}
				fail("%s row %s %s (%s): got <%s> want <%s>", mode, id, c.name, c.sqlType, g, w)
			}
		}
	}
	eq(n, 4, mode+" rows")
}

func types(user, password string) {
	db := open("tcp", user, password, "")
	defer db.Close()
	db.SetMaxOpenConns(1)
	must := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			fail("%s: %v", q, err)
		}
	}
	must("DROP DATABASE IF EXISTS drv_go")
	must("CREATE DATABASE drv_go")
	must("USE drv_go")
	names, lits, nulls, marks, defs := []string{"id"}, []string{"1"}, []string{"4"}, []string{"?"}, []string{}
	for _, c := range cols {
		names = append(names, c.name)
		lits = append(lits, literal(c))
		nulls = append(nulls, "NULL")
		marks = append(marks, "?")
		defs = append(defs, c.name+" "+c.sqlType)
	}
	must("CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, " + strings.Join(defs, ", ") + ") DEFAULT CHARSET=utf8mb4")
	insert := "INSERT INTO t (" + strings.Join(names, ", ") + ") VALUES ("
	must(insert + strings.Join(lits, ", ") + ")")
	must(insert + strings.Join(nulls, ", ") + ")")
	args := []any{2}
	nullArgs := []any{3}
	for _, c := range cols {
		args = append(args, param(c))
		nullArgs = append(nullArgs, nil)
	}
	must(insert+strings.Join(marks, ", ")+")", args...)
	must(insert+strings.Join(marks, ", ")+")", nullArgs...)
	// Text protocol: a query without arguments; prepared: the driver's default for arguments.
	rows, err := db.Query("SELECT * FROM t ORDER BY id")
	if err != nil {
		fail("text SELECT: %v", err)
	} else {
		checkRows("text", rows)
	}
	rows, err = db.Query("SELECT * FROM t WHERE id > ? ORDER BY id", 0)
	if err != nil {
		fail("prepared SELECT: %v", err)
	} else {
		checkRows("prepared", rows)
	}
	for _, c := range cols {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM t WHERE "+c.name+" = ?", param(c)).Scan(&n); err != nil {
			fail("WHERE %s = ?: %v", c.name, err)
		}
		eq(n, 2, "WHERE "+c.name+" = ? ("+c.sqlType+")")
	}
	// Client-side interpolation (interpolateParams=true): text protocol with arguments.
	idb := open("tcp", user, password, "interpolateParams=true")
	defer idb.Close()
	for _, c := range cols {
		var n int
		if err := idb.QueryRow("SELECT COUNT(*) FROM drv_go.t WHERE "+c.name+" = ?", param(c)).Scan(&n); err != nil {
			fail("interpolated WHERE %s = ?: %v", c.name, err)
		}
		eq(n, 2, "interpolated WHERE "+c.name+" = ? ("+c.sqlType+")")
	}
	rows, err = db.Query("SELECT COUNT(*) AS n, SUM(ii) AS s, MAX(vc) AS mx, 'héllo' AS lit, UPPER(vc) AS up, id + 1 AS plus FROM t")
	if err != nil {
		fail("expr: %v", err)
	} else {
		cts, _ := rows.ColumnTypes()
		meta("expr", cts)
		rows.Close()
	}
}

func pool(user, password string) {
	db := open("tcp", user, password, "")
	defer db.Close()
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(2)
	db.SetConnMaxLifetime(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		fail("ping: %v", err)
	}
	if _, err := db.Exec("CREATE TABLE drv_go.p (id INT PRIMARY KEY, v VARCHAR(20))"); err != nil {
		fail("create: %v", err)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					fail("begin: %v", err)
					return
				}
				if _, err := tx.Exec("INSERT INTO drv_go.p VALUES (?, ?)", w*100+i, fmt.Sprintf("w%dü", w)); err != nil {
					fail("insert: %v", err)
				}
				if i%5 == 4 {
					err = tx.Rollback()
				} else {
					err = tx.Commit()
				}
				if err != nil {
					fail("end: %v", err)
				}
			}
		}(w)
	}
	wg.Wait()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM drv_go.p").Scan(&n); err != nil {
		fail("count: %v", err)
	}
	eq(n, 16*8, "committed rows")
	eq(db.Stats().MaxOpenConnections, 4, "max open")
	// One pinned connection: session state and isolation.
	c, err := db.Conn(ctx)
	if err != nil {
		fail("conn: %v", err)
		return
	}
	defer c.Close()
	tx, err := c.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted, ReadOnly: true})
	if err != nil {
		fail("begin read committed read only: %v", err)
	} else {
		var got int
		if err := tx.QueryRow("SELECT COUNT(*) FROM drv_go.p").Scan(&got); err != nil {
			fail("read only select: %v", err)
		}
		if _, err := tx.Exec("INSERT INTO drv_go.p VALUES (9999, 'x')"); err == nil {
			fail("an INSERT in a READ ONLY transaction succeeded")
		} else if me, ok := err.(*mysql.MySQLError); !ok || me.Number != 1792 {
			fail("INSERT in a READ ONLY transaction: %v (want 1792)", err)
		}
		tx.Rollback()
	}
	if err := c.PingContext(ctx); err != nil {
		fail("conn ping: %v", err)
	}
	fmt.Println("pool ok")
}

func main() {
	port, socket = os.Args[1], os.Args[2]
	data, err := os.ReadFile(os.Args[3])
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "\t", 4)
		cols = append(cols, col{f[0], f[1], f[2], f[3]})
	}
	phases := os.Args[4]
	var accounts [][2]string
	for i := 5; i+1 < len(os.Args); i += 2 {
		accounts = append(accounts, [2]string{os.Args[i], os.Args[i+1]})
	}
	started := time.Now()
	if strings.Contains(phases, "conn") {
		conn(accounts)
	}
	if strings.Contains(phases, "types") {
		types(accounts[0][0], accounts[0][1])
	}
	if strings.Contains(phases, "pool") {
		pool(accounts[0][0], accounts[0][1])
	}
	fmt.Printf("took %d ms\n", time.Since(started).Milliseconds())
	if failures > 0 {
		os.Exit(1)
	}
}
