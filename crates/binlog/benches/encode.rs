//! Micro benchmark of the commit path's encoding: one transaction's events (GTID, BEGIN,
//! TABLE_MAP, a one-row UPDATE_ROWS of an sysbench-like table, XID) into a reused buffer,
//! and decoding them back.

use binlog::event::{
    decode_event, rows_flags, ColumnDef, ColumnType, Event, EventBody, EventHeader, FormatContext,
    GtidEvent, LogicalClock, QueryEvent, RowMetadata, RowsEvent, RowsKind, StatusVars, TableMap,
    Value, XidEvent,
};
use binlog::gtid::Gtid;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn column(name: &str, column_type: ColumnType, meta: u16, collation: Option<u16>) -> ColumnDef {
    ColumnDef { name: name.into(), column_type, meta, nullable: false, unsigned: false, collation }
}

/// sysbench's `sbtest` table: id INT, k INT, c CHAR(120), pad CHAR(60).
fn sbtest() -> TableMap {
    let cols = [
        column("id", ColumnType::LONG, 0, None),
        column("k", ColumnType::LONG, 0, None),
        column("c", ColumnType::STRING, 0xee00 | (480 & 0xff), Some(255)),
        column("pad", ColumnType::STRING, 0xfe00 | 240, Some(255)),
    ];
    TableMap::new(108, "sbtest", "sbtest1", &cols, &[0], RowMetadata::Minimal)
}

fn row(k: i64) -> Vec<Value> {
    vec![
        Value::Int(42),
        Value::Int(k),
        Value::Bytes(b"68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441".to_vec()),
        Value::Bytes(b"22195207048-70116052123-74140395089-76317954521-98694025897".to_vec()),
    ]
}

fn transaction(n: u64) -> Vec<Event> {
    let header = EventHeader::new(1_700_000_000, 1, 0);
    let sid = "3e11fa47-71ca-11e1-9e33-c80aa9429562".parse().expect("uuid");
    let table = sbtest();
    let mut rows = RowsEvent::new(RowsKind::Update, &table, rows_flags::STMT_END_F);
    rows.push_row(&table, Some(&row(5)), Some(&row(6))).expect("row");
    let clock = LogicalClock { last_committed: n as i64, sequence_number: n as i64 + 1 };
    let gtid = GtidEvent::mysql80(Gtid { sid, gno: n }, clock, 1_700_000_000_000_000, 600, 80040);
    let begin = QueryEvent::begin(7, "sbtest", &StatusVars::mysql80_default()).expect("begin");
    [
        EventBody::Gtid(gtid),
        EventBody::Query(begin),
        EventBody::TableMap(table),
        EventBody::Rows(rows),
        EventBody::Xid(XidEvent { xid: n }),
    ]
    .into_iter()
    .map(|body| Event::new(header, body))
    .collect()
}

fn bench(c: &mut Criterion) {
    let ctx = FormatContext::mysql80();
    let events = transaction(1);
    let mut buf = Vec::with_capacity(4096);
    for e in &events {
        e.encode(&ctx, buf.len() as u64, &mut buf).expect("encode");
    }
    let encoded_len = buf.len() as u64;

    let mut group = c.benchmark_group("transaction");
    group.throughput(Throughput::Bytes(encoded_len));
    group.bench_function("encode", |b| {
        b.iter(|| {
            buf.clear();
            for e in &events {
                e.encode(&ctx, 4 + buf.len() as u64, &mut buf).expect("encode");
            }
            buf.len()
        })
    });
    let mut encoded = Vec::new();
    for e in &events {
        e.encode(&ctx, encoded.len() as u64, &mut encoded).expect("encode");
    }
    group.bench_function("decode", |b| {
        b.iter(|| {
            let mut pos = 0;
            while pos < encoded.len() {
                let e = decode_event(&encoded[pos..], &ctx, pos as u64).expect("decode");
                pos += e.header.event_size as usize;
            }
            pos
        })
    });
    group.bench_function("build_rows_and_encode", |b| {
        let table = sbtest();
        let (before, after) = (row(5), row(6));
        b.iter(|| {
            let mut rows = RowsEvent::new(RowsKind::Update, &table, rows_flags::STMT_END_F);
            rows.push_row(&table, Some(&before), Some(&after)).expect("row");
            buf.clear();
            Event::new(EventHeader::new(1, 1, 0), EventBody::Rows(rows))
                .encode(&ctx, 4, &mut buf)
                .expect("encode")
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
