// go-mysql (github.com/go-mysql-org/go-mysql, unmodified) reading binlogd's binary log, as
// Go CDC tools (canal, gh-ost, TiDB DM) do: from the files with its BinlogParser, and as a
// replica with its BinlogSyncer from a file position or a GTID set. tests/go_mysql_binlog.rs
// runs it and compares what it prints with the rows written.
//
// Usage:
//
//	binlogcheck file PATH...              every event of each file, parsed from offset 0
//	binlogcheck pos PORT FILE POS ROWS    stream from FILE:POS until ROWS row lines
//	binlogcheck gtid PORT GTIDSET ROWS    stream after GTIDSET until ROWS row lines
//
// Output: `event NAME` for each event type and `table db.t names=… enums=… sets=… unsigned=…`
// for each TABLE_MAP's metadata (file mode), `gtid SID:GNO` (stream modes); one line per row image:
// `insert db.t v|v|...`, `update db.t before -> after`, `delete db.t v|...`. Values: NULL,
// byte strings as 0x<hex> when not valid UTF-8, DECIMAL as its digits, FLOAT with 32-bit
// precision, JSON as `json:<text>`; everything else as fmt's %v. A failure exits 1.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/shopspring/decimal"
)

func value(v interface{}, colType byte) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		if colType == mysql.MYSQL_TYPE_JSON {
			return "json:" + string(x)
		}
		if utf8.Valid(x) {
			return string(x)
		}
		return "0x" + fmt.Sprintf("%x", x)
	case string:
		if colType == mysql.MYSQL_TYPE_JSON {
			return "json:" + x
		}
		if utf8.Valid([]byte(x)) {
			return x
		}
		return "0x" + fmt.Sprintf("%x", x)
	case decimal.Decimal:
		return x.String()
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return fmt.Sprintf("%v", x)
	}
}

func row(r []interface{}, types []byte, unsigned map[int]bool) string {
	out := make([]string, len(r))
	for i, v := range r {
		var t byte
		if i < len(types) {
			t = types[i]
		}
		// go-mysql decodes integers as signed; the TABLE_MAP's SIGNEDNESS metadata says
		// which columns are UNSIGNED (as canal applies it).
		if unsigned[i] {
			switch x := v.(type) {
			case int8:
				v = uint8(x)
			case int16:
				v = uint16(x)
			case int32:
				v = uint32(x)
			case int64:
				v = uint64(x)
			}
		}
		out[i] = value(v, t)
	}
	return strings.Join(out, "|")
}

// tableLine describes a TABLE_MAP's optional metadata (binlog_row_metadata=FULL).
func tableLine(e *replication.TableMapEvent) string {
	var sets, enums []string
	for _, v := range e.EnumStrValueString() {
		enums = append(enums, strings.Join(v, ","))
	}
	for _, v := range e.SetStrValueString() {
		sets = append(sets, strings.Join(v, ","))
	}
	var unsigned []string
	for i := 0; i < int(e.ColumnCount); i++ {
		if e.UnsignedMap()[i] {
			unsigned = append(unsigned, strconv.Itoa(i))
		}
	}
	return fmt.Sprintf("table %s.%s names=%s enums=%s sets=%s unsigned=%s", e.Schema, e.Table,
		strings.Join(e.ColumnNameString(), ","), strings.Join(enums, ";"), strings.Join(sets, ";"),
		strings.Join(unsigned, ","))
}

// rowLines turns a rows event into output lines.
func rowLines(h *replication.EventHeader, e *replication.RowsEvent) []string {
	name := string(e.Table.Schema) + "." + string(e.Table.Table)
	types := e.Table.ColumnType
	unsigned := e.Table.UnsignedMap()
	var lines []string
	switch h.EventType {
	case replication.WRITE_ROWS_EVENTv1, replication.WRITE_ROWS_EVENTv2:
		for _, r := range e.Rows {
			lines = append(lines, "insert "+name+" "+row(r, types, unsigned))
		}
	case replication.UPDATE_ROWS_EVENTv1, replication.UPDATE_ROWS_EVENTv2:
		for i := 0; i+1 < len(e.Rows); i += 2 {
			lines = append(lines, "update "+name+" "+row(e.Rows[i], types, unsigned)+" -> "+row(e.Rows[i+1], types, unsigned))
		}
	case replication.DELETE_ROWS_EVENTv1, replication.DELETE_ROWS_EVENTv2:
		for _, r := range e.Rows {
			lines = append(lines, "delete "+name+" "+row(r, types, unsigned))
		}
	}
	return lines
}

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL "+format+"\n", args...)
	os.Exit(1)
}

func stream(port uint16, start func(*replication.BinlogSyncer) (*replication.BinlogStreamer, error), want int) {
	syncer := replication.NewBinlogSyncer(replication.BinlogSyncerConfig{
		ServerID:   1001,
		Flavor:     "mysql",
		Host:       "127.0.0.1",
		Port:       port,
		User:       "root",
		UseDecimal: true,
	})
	defer syncer.Close()
	s, err := start(syncer)
	if err != nil {
		fail("start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got := 0
	for got < want {
		ev, err := s.GetEvent(ctx)
		if err != nil {
			fail("after %d rows: %v", got, err)
		}
		switch e := ev.Event.(type) {
		case *replication.RowsEvent:
			for _, l := range rowLines(ev.Header, e) {
				fmt.Println(l)
				got++
			}
		case *replication.GTIDEvent:
			fmt.Printf("gtid %s\n", gtidText(e))
		}
	}
}

func gtidText(e *replication.GTIDEvent) string {
	u := fmt.Sprintf("%x", e.SID)
	return fmt.Sprintf("%s-%s-%s-%s-%s:%d", u[0:8], u[8:12], u[12:16], u[16:20], u[20:32], e.GNO)
}

func main() {
	if len(os.Args) < 3 {
		fail("usage: binlogcheck file PATH... | pos PORT FILE POS ROWS | gtid PORT SET ROWS")
	}
	switch os.Args[1] {
	case "file":
		p := replication.NewBinlogParser()
		p.SetUseDecimal(true)
		p.SetVerifyChecksum(true)
		for _, path := range os.Args[2:] {
			err := p.ParseFile(path, 0, func(ev *replication.BinlogEvent) error {
				fmt.Printf("event %s\n", ev.Header.EventType)
				switch e := ev.Event.(type) {
				case *replication.RowsEvent:
					for _, l := range rowLines(ev.Header, e) {
						fmt.Println(l)
					}
				case *replication.TableMapEvent:
					fmt.Println(tableLine(e))
				}
				return nil
			})
			if err != nil {
				fail("%s: %v", path, err)
			}
		}
	case "pos":
		port, _ := strconv.Atoi(os.Args[2])
		pos, _ := strconv.Atoi(os.Args[4])
		want, _ := strconv.Atoi(os.Args[5])
		stream(uint16(port), func(s *replication.BinlogSyncer) (*replication.BinlogStreamer, error) {
			return s.StartSync(mysql.Position{Name: os.Args[3], Pos: uint32(pos)})
		}, want)
	case "gtid":
		port, _ := strconv.Atoi(os.Args[2])
		want, _ := strconv.Atoi(os.Args[4])
		set, err := mysql.ParseMysqlGTIDSet(os.Args[3])
		if err != nil {
			fail("gtid set: %v", err)
		}
		stream(uint16(port), func(s *replication.BinlogSyncer) (*replication.BinlogStreamer, error) {
			return s.StartSyncGTID(set)
		}, want)
	default:
		fail("unknown mode %s", os.Args[1])
	}
}
