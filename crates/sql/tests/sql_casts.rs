//! CAST/CONVERT to the numeric types (`eval/castnum.rs`) and the numeric results whose shape
//! the generated differential sweep (`binlogd/tests/differential_sweep.rs`) checks: mysqld
//! 8.0's answers, with the ones where MariaDB 10.11 answers otherwise (and the sweep lists the
//! call in `differential/sweep_mysql.txt`) marked "MySQL 8.0" and the mysqld source cited.

mod common;

use common::{code, q, rows, server};
use engine::Value;
use sql::output::MysqlType;

fn one(s: &mut sql::Session, sql: &str) -> String {
    rows(s, sql).remove(0).remove(0)
}

/// The codes of the last statement's warnings.
fn warnings(s: &mut sql::Session) -> Vec<String> {
    rows(s, "SHOW WARNINGS").into_iter().map(|r| r[1].clone()).collect()
}

/// The (type, decimals) of `sql`'s first column and its first value.
fn typed(s: &mut sql::Session, sql: &str) -> (MysqlType, u8, Value) {
    match q(s, sql) {
        sql::Output::Rows { columns, rows } => {
            (columns[0].mysql_type, columns[0].decimals, rows[0][0].clone())
        }
        other => panic!("{sql}: {other:?}"),
    }
}

#[test]
fn casts_to_integers_read_as_val_int() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // Item_typecast_signed::val_int: a string's integer prefix (my_strtoll10) with warning
    // 1292 "Truncated incorrect INTEGER value".
    assert_eq!(one(&mut s, "SELECT CAST('12abc' AS SIGNED)"), "12");
    assert_eq!(warnings(&mut s), ["1292"]);
    assert_eq!(one(&mut s, "SELECT CAST('  42  ' AS SIGNED INTEGER)"), "42");
    assert_eq!(one(&mut s, "SELECT CAST('-7.5e2x' AS UNSIGNED)"), "18446744073709551609");
    assert_eq!(one(&mut s, "SELECT CAST(18446744073709551615 AS SIGNED)"), "-1");
    // A DECIMAL rounds half away from zero, a DOUBLE half to even (rint).
    assert_eq!(
        rows(&mut s, "SELECT CAST(2.5 AS SIGNED), CAST(-2.5 AS SIGNED), CAST(2.5e0 AS SIGNED)")[0],
        ["3", "-3", "2"]
    );
    assert_eq!(
        one(&mut s, "SELECT CAST(TIMESTAMP '2024-03-10 02:30:00' AS SIGNED)"),
        "20240310023000"
    );
    assert_eq!(one(&mut s, "SELECT CAST(TIME '100:00:00' AS UNSIGNED)"), "1000000");
    assert_eq!(one(&mut s, "SELECT CONVERT('5', UNSIGNED INTEGER)"), "5");
    assert_eq!(one(&mut s, "SELECT CAST(NULL AS SIGNED)"), "NULL");
    // MySQL 8.0: UNSIGNED of a negative DECIMAL is the signed value's two's complement
    // (Item_typecast_unsigned::val_int calls my_decimal2int with unsigned_flag =
    // !dec->sign(); MariaDB answers 0).
    assert_eq!(one(&mut s, "SELECT CAST(-2.5 AS UNSIGNED)"), "18446744073709551613");
    // MySQL 8.0: a DOUBLE's val_int stops at BIGINT's maximum (Item_float::val_int), also
    // for UNSIGNED (MariaDB: 18446744073709551615).
    assert_eq!(one(&mut s, "SELECT CAST(1e300 AS UNSIGNED)"), "9223372036854775807");
    // MySQL 8.0: a hex literal is a number in numeric context (Item_hex_string::val_int;
    // manual 11.1.4 "Hexadecimal Literals": CAST(X'41' AS UNSIGNED) is 65). MariaDB reads an
    // X'' literal as a string (0 and warning 1292).
    assert_eq!(one(&mut s, "SELECT CAST(X'00FF' AS SIGNED)"), "255");
    assert_eq!(one(&mut s, "SELECT CAST(0x41 AS UNSIGNED)"), "65");
    let (ty, _, v) = typed(&mut s, "SELECT CAST('1' AS UNSIGNED)");
    assert_eq!((ty, v), (MysqlType::LongLong, Value::UInt(1)));
}

#[test]
fn casts_to_decimal_round_and_clamp() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // Item_typecast_decimal::val_decimal: rounded to D digits; a string read with its
    // exponent, warning 1292 for the rest.
    assert_eq!(one(&mut s, "SELECT CAST('192.168.0.1' AS DECIMAL(10,2))"), "192.17");
    assert_eq!(warnings(&mut s), ["1292"]);
    assert_eq!(one(&mut s, "SELECT CAST('-7.5e2x' AS DECIMAL(10,2))"), "-750.00");
    // Beyond M digits: the largest DECIMAL(M,D) of the sign, warning 1264.
    assert_eq!(one(&mut s, "SELECT CAST(1e300 AS DECIMAL(10,2))"), "99999999.99");
    assert_eq!(warnings(&mut s), ["1264"]);
    assert_eq!(one(&mut s, "SELECT CAST(-9223372036854775808 AS DECIMAL(10,2))"), "-99999999.99");
    // DECIMAL is DECIMAL(10,0), DECIMAL(M) is DECIMAL(M,0).
    assert_eq!(one(&mut s, "SELECT CAST(1.5 AS DECIMAL)"), "2");
    assert_eq!(one(&mut s, "SELECT CAST(123.456 AS DECIMAL(5))"), "123");
    assert_eq!(one(&mut s, "SELECT CAST(DATE '2024-01-31' AS DECIMAL(10,2))"), "20240131.00");
    let (ty, dec, _) = typed(&mut s, "SELECT CAST(1 AS DECIMAL(10,2))");
    assert_eq!((ty, dec), (MysqlType::NewDecimal, 2));
    // The target's checks: precision 1426, scale 1425, M < D 1427.
    assert_eq!(code(&mut s, "SELECT CAST(1 AS DECIMAL(66,2))"), 1426);
    assert_eq!(code(&mut s, "SELECT CAST(1 AS DECIMAL(40,31))"), 1425);
    assert_eq!(code(&mut s, "SELECT CAST(1 AS DECIMAL(2,3))"), 1427);
}

#[test]
fn casts_to_floating_point() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    assert_eq!(one(&mut s, "SELECT CAST('12abc' AS DOUBLE)"), "12");
    assert_eq!(warnings(&mut s), ["1292"]);
    assert_eq!(one(&mut s, "SELECT CAST(DATE '2024-01-31' AS DOUBLE)"), "20240131");
    let (ty, _, v) = typed(&mut s, "SELECT CAST(1.5 AS REAL)");
    assert_eq!((ty, v), (MysqlType::Double, Value::Double(1.5)));
    // FLOAT (8.0.17): single precision up to FLOAT(24), DOUBLE to FLOAT(53), 1426 beyond;
    // a value beyond FLOAT's range is 1690.
    let (ty, _, v) = typed(&mut s, "SELECT CAST(1.1 AS FLOAT)");
    assert_eq!((ty, v), (MysqlType::Float, Value::Float(1.1)));
    assert_eq!(typed(&mut s, "SELECT CAST(1.1 AS FLOAT(30))").0, MysqlType::Double);
    assert_eq!(code(&mut s, "SELECT CAST(1 AS FLOAT(54))"), 1426);
    assert_eq!(code(&mut s, "SELECT CAST(1e39 AS FLOAT)"), 1690);
}

#[test]
fn rounding_functions_shape_their_results_as_mysqld() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // Item_func_round::resolve_type: a DOUBLE with constant places prints that many digits,
    // up to DECIMAL_NOT_SPECIFIED (31, not fixed).
    assert_eq!(typed(&mut s, "SELECT ROUND('7x', 3)").1, 3);
    assert_eq!(typed(&mut s, "SELECT TRUNCATE(2.5e0, '')").1, 0);
    assert_eq!(typed(&mut s, "SELECT ROUND(2.5e0, 1e20)").1, 31);
    // Item_func_int_val: FLOOR/CEIL of a DOUBLE is a DOUBLE of no decimals, of a DECIMAL too
    // wide for BIGINT a DECIMAL.
    let (ty, dec, v) = typed(&mut s, "SELECT FLOOR(1e300)");
    assert_eq!((ty, dec, v), (MysqlType::Double, 0, Value::Double(1e300)));
    assert_eq!(
        one(&mut s, "SELECT CEIL(99999999999999999999999999999.99)"),
        "100000000000000000000000000000"
    );
    assert_eq!(rows(&mut s, "SELECT FLOOR(-2.5), CEIL(-2.5)")[0], ["-3", "-2"]);
    // Item_func_abs::int_op: ABS of BIGINT's minimum overflows.
    assert_eq!(code(&mut s, "SELECT ABS(-9223372036854775808)"), 1690);
    // NULLIF(a, b) has a's type and scale.
    assert_eq!(one(&mut s, "SELECT NULLIF(2.5, 3)"), "2.5");
}

#[test]
fn mysql8_answers_the_sweep_classifies() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // MySQL 8.0: SHA2 with a NULL length is NULL (Item_func_sha2::val_str_ascii sets
    // hash_length = -1 when args[1] is NULL; MariaDB hashes with SHA-256).
    assert_eq!(one(&mut s, "SELECT SHA2('abc', NULL)"), "NULL");
    // MySQL 8.0: PERIOD_ADD checks its period (valid_period: 1210 for 0, a negative one or a
    // month outside 1..12; MariaDB answers 0 or a period).
    assert_eq!(code(&mut s, "SELECT PERIOD_ADD(0, 3)"), 1210);
    assert_eq!(code(&mut s, "SELECT PERIOD_ADD(-2, 3)"), 1210);
    assert_eq!(code(&mut s, "SELECT PERIOD_ADD('2024-02-29 12:00:00', 1)"), 1210);
}
