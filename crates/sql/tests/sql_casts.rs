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

#[test]
fn numbers_past_time_range_are_null() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // MySQL 8.0: a number past what TIME's conversion reads is NULL with warning 1292
    // (double2lldiv_t / my_decimal2lldiv_t overflow, number_to_time past TIME_MAX_VALUE:
    // sql/sql_time.cc lldiv_t_to_time); MariaDB clips to 838:59:59.
    assert_eq!(one(&mut s, "SELECT HOUR(1e300)"), "NULL");
    assert_eq!(warnings(&mut s), ["1292"]);
    assert_eq!(one(&mut s, "SELECT TIME(-9223372036854775808)"), "NULL");
    assert_eq!(one(&mut s, "SELECT TIME_TO_SEC(99999999999999999999999999999.99)"), "NULL");
    assert_eq!(one(&mut s, "SELECT TIME(8390000)"), "NULL");
    assert_eq!(one(&mut s, "SELECT TIME(8385959)"), "838:59:59");
    // `Item::get_time_from_int` reads val_int(): BIGINT UNSIGNED's maximum is -1, the TIME
    // -00:00:01 (MariaDB clips it to 838:59:59).
    assert_eq!(one(&mut s, "SELECT TIME(18446744073709551615)"), "-00:00:01");
    assert_eq!(
        rows(
            &mut s,
            "SELECT HOUR(18446744073709551615), SECOND(18446744073709551615), \
             TIME_TO_SEC(18446744073709551615), CAST(18446744073709551615 AS TIME)"
        )[0],
        ["0", "1", "-1", "-00:00:01"]
    );
    // A negative fraction keeps its sign (lldiv_t_to_time: the remainder's sign).
    let (ty, dec, v) = typed(&mut s, "SELECT TIME(-2.5)");
    assert_eq!((ty, dec, v), (MysqlType::Time, 1, Value::Time(-2_500_000)));
    assert_eq!(typed(&mut s, "SELECT TIME(-0.5)").2, Value::Time(-500_000));
    // MySQL 8.0 rounds fraction digits past the target's precision (manual 13.2.6), MariaDB
    // truncates them.
    assert_eq!(one(&mut s, "SELECT CAST(2.5 AS TIME)"), "00:00:03");
    assert_eq!(one(&mut s, "SELECT CAST(-2.5 AS TIME)"), "-00:00:03");
    // MySQL 8.0 prints a DOUBLE -0 with its sign (my_gcvt); MariaDB prints 0.
    assert_eq!(one(&mut s, "SELECT -2 * ''"), "-0");
}

#[test]
fn double_text_follows_my_gcvt() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // `String::set_real` calls my_gcvt: the shortest digits, in `e` form below 1e-15 and
    // from 1e15 for a whole number, else in `f` form.
    assert_eq!(one(&mut s, "SELECT LENGTH(1e300)"), "5");
    assert_eq!(one(&mut s, "SELECT CONCAT(1e300)"), "1e300");
    assert_eq!(one(&mut s, "SELECT CONCAT(1e-16)"), "1e-16");
    assert_eq!(one(&mut s, "SELECT CONCAT(1e-7)"), "0.0000001");
    assert_eq!(one(&mut s, "SELECT CONCAT(1e15)"), "1e15");
    assert_eq!(one(&mut s, "SELECT CONCAT(1e14)"), "100000000000000");
    assert_eq!(one(&mut s, "SELECT CONCAT(1234567890123456.8e0)"), "1234567890123456.8");
    // The wire prints the same digits.
    assert_eq!(one(&mut s, "SELECT 1e300"), "1e300");
    assert_eq!(one(&mut s, "SELECT 1e-7"), "0.0000001");
}

#[test]
fn integer_operators_and_counts_as_mysqld() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // The unary minus binds tighter than `^` (mysqld's grammar): (-2) ^ 0.
    assert_eq!(one(&mut s, "SELECT -2 ^ 0"), "18446744073709551614");
    assert_eq!(one(&mut s, "SELECT -2 ^ 3"), "18446744073709551613");
    // `Item_func_neg::int_op`: a BIGINT UNSIGNED negates into BIGINT up to 2^63, 1690 beyond.
    assert_eq!(one(&mut s, "SELECT -CAST(2 AS UNSIGNED)"), "-2");
    assert_eq!(
        one(&mut s, "SELECT -CAST(9223372036854775808 AS UNSIGNED)"),
        "-9223372036854775808"
    );
    assert_eq!(code(&mut s, "SELECT -CAST(9223372036854775809 AS UNSIGNED)"), 1690);
    // `Item_func_int_div::val_int`: a DOUBLE operand divides as DECIMAL; past BIGINT 1690.
    assert_eq!(one(&mut s, "SELECT 7.5e0 DIV 2"), "3");
    assert_eq!(one(&mut s, "SELECT -7.5e0 DIV 2"), "-3");
    assert_eq!(code(&mut s, "SELECT 1e20 DIV 1"), 1690);
    // CEIL/FLOOR read a hex literal as its integer (Item_hex_string::val_int).
    assert_eq!(rows(&mut s, "SELECT CEIL(0x41), FLOOR(X'00FF')")[0], ["65", "255"]);
    // SPACE/REPEAT/LPAD counts read a temporal as its number (`val_int`: TIME '00:00:03' is
    // 3).
    assert_eq!(one(&mut s, "SELECT LENGTH(REPEAT('ab', TIME '00:00:03'))"), "6");
    assert_eq!(one(&mut s, "SELECT LPAD('x', TIME '00:00:05', '-')"), "----x");
    assert_eq!(one(&mut s, "SELECT LENGTH(SPACE(TIME '00:00:04'))"), "4");
    // DATE_FORMAT with an empty format is NULL (Item_func_date_format::val_str).
    assert_eq!(one(&mut s, "SELECT DATE_FORMAT('2024-01-31', '')"), "NULL");
    assert_eq!(one(&mut s, "SELECT DATE_FORMAT('2024-01-31', '%Y')"), "2024");
}

#[test]
fn temporals_in_rounding_functions_are_doubles() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // MySQL 8.0: FLOOR/CEIL/ROUND/TRUNCATE switch on the argument's `result_type()`, a
    // temporal's being STRING_RESULT, so they answer a DOUBLE of its number
    // (Item_func_int_val::resolve_type, Item_func_round::resolve_type); MariaDB keeps the
    // temporal type ('2024-03-10 02:30:00').
    let (ty, dec, v) = typed(&mut s, "SELECT FLOOR(TIMESTAMP '2024-03-10 02:30:00')");
    assert_eq!((ty, dec, v), (MysqlType::Double, 0, Value::Double(20240310023000.0)));
    assert_eq!(one(&mut s, "SELECT CEIL(TIME '100:00:00')"), "1000000");
    assert_eq!(one(&mut s, "SELECT ROUND(TIMESTAMP '2024-03-10 02:30:00')"), "20240310023000");
    assert_eq!(typed(&mut s, "SELECT ROUND(TIME '100:00:00')").0, MysqlType::Double);
    assert_eq!(one(&mut s, "SELECT ROUND(TIME '00:00:01.5')"), "2");
    let (ty, dec, v) = typed(&mut s, "SELECT TRUNCATE(DATE '2024-01-31', 1)");
    assert_eq!((ty, dec, v), (MysqlType::Double, 1, Value::Double(20240131.0)));
}

#[test]
fn round_places_are_the_constants_val_int() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // Item_func_round::resolve_type: the places are args[1]->val_int() (2.5 is 3, '7x' 7,
    // 'abc' 0, 1e20 BIGINT's maximum), a DECIMAL's scale that clamped to 0..=30.
    assert_eq!(one(&mut s, "SELECT ROUND(2.5, 2.5)"), "2.500");
    assert_eq!(one(&mut s, "SELECT TRUNCATE(2.5, 2.5)"), "2.500");
    assert_eq!(one(&mut s, "SELECT ROUND(2.5, '7x')"), "2.5000000");
    assert_eq!(one(&mut s, "SELECT ROUND(2.5, '')"), "3");
    assert_eq!(one(&mut s, "SELECT TRUNCATE(2.5, 'abc')"), "2");
    // MySQL 8.0 stops at DECIMAL_MAX_SCALE (30); MariaDB at 38.
    let thirty = format!("2.5{}", "0".repeat(29));
    assert_eq!(one(&mut s, "SELECT ROUND(2.5, 1e20)"), thirty);
    assert_eq!(one(&mut s, "SELECT TRUNCATE(2.5, '2024-02-29 12:00:00')"), thirty);
    let (ty, dec, _) = typed(&mut s, "SELECT ROUND(2.5, 2.5)");
    assert_eq!((ty, dec), (MysqlType::NewDecimal, 3));
}

#[test]
fn time_functions_answer_as_mysql8() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // MySQL 8.0's TIME_TO_SEC is an integer function (Item_func_time_to_sec::val_int drops
    // the fraction); MariaDB answers a DECIMAL with it.
    let (ty, _, v) = typed(&mut s, "SELECT TIME_TO_SEC('2023-12-31 23:59:59.999999')");
    assert_eq!((ty, v), (MysqlType::LongLong, Value::Int(86399)));
    assert_eq!(one(&mut s, "SELECT TIME_TO_SEC(-2.5)"), "-2");
    assert_eq!(one(&mut s, "SELECT TIME_TO_SEC(-1e-300)"), "0");
    // Item_func_sec_to_time::get_time: past BIGINT (set_max_time) or past TIME's range
    // (sec_to_time's set_max_hhmmss) the result is 838:59:59 with no fraction, warning 1292;
    // MariaDB keeps .999999.
    let (ty, dec, v) = typed(&mut s, "SELECT SEC_TO_TIME(1e300)");
    assert_eq!((ty, dec, v), (MysqlType::Time, 6, Value::Time(3_020_399_000_000)));
    assert_eq!(warnings(&mut s), ["1292"]);
    assert_eq!(one(&mut s, "SELECT SEC_TO_TIME(18446744073709551615)"), "838:59:59");
    let (_, dec, v) = typed(&mut s, "SELECT SEC_TO_TIME(-99999999999999999999999999999.99)");
    assert_eq!((dec, v), (2, Value::Time(-3_020_399_000_000)));
    assert_eq!(one(&mut s, "SELECT SEC_TO_TIME(3020400)"), "838:59:59");
    // The argument is read by val_decimal: -1e-300 is zero with no sign (MariaDB
    // '-00:00:00.000000'); a string's numeric prefix with warning 1292.
    assert_eq!(typed(&mut s, "SELECT SEC_TO_TIME(-1e-300)").2, Value::Time(0));
    // A string's numeric prefix includes its exponent (my_strtod): -7.5e2 seconds.
    assert_eq!(one(&mut s, "SELECT SEC_TO_TIME('-7.5e2x')"), "-00:12:30");
    // val_int of a DOUBLE or DECIMAL past BIGINT is its maximum: FROM_DAYS past
    // MAX_DAY_NUMBER is the zero date (get_date_from_daynr); MAKEDATE's day past the
    // calendar is NULL.
    assert_eq!(one(&mut s, "SELECT FROM_DAYS(1e300)"), "0000-00-00");
    assert_eq!(one(&mut s, "SELECT FROM_DAYS(99999999999999999999999999999.99)"), "0000-00-00");
    assert_eq!(one(&mut s, "SELECT MAKEDATE(2024, 1e20)"), "NULL");
    // ADDTIME/SUBTIME of a non-temporal first argument is a string, printed with six fraction
    // digits when there is a fraction and none otherwise
    // (Item_temporal_hybrid_func::val_str_ascii); MariaDB keeps the arguments' digits.
    assert_eq!(one(&mut s, "SELECT ADDTIME(0, 2.5)"), "00:00:02.500000");
    assert_eq!(one(&mut s, "SELECT ADDTIME(2.5, 2.5)"), "00:00:05");
    assert_eq!(one(&mut s, "SELECT SUBTIME(3, 2.5)"), "00:00:00.500000");
    let (ty, dec, v) = typed(&mut s, "SELECT ADDTIME(TIME '00:00:01', 2.5)");
    assert_eq!((ty, dec, v), (MysqlType::Time, 1, Value::Time(3_500_000)));
    // PERIOD_ADD computes in mysqld's 64-bit `ulong` (convert_period_to_month /
    // convert_month_to_period), wrapping where MariaDB's 32-bit months do not.
    assert_eq!(one(&mut s, "SELECT PERIOD_ADD(3, 1e20)"), "3074457345618458546");
    assert_eq!(one(&mut s, "SELECT PERIOD_ADD(1e20, 3)"), "-9223372036854775806");
    assert_eq!(one(&mut s, "SELECT PERIOD_ADD(1e20, 0)"), "9223372036854775807");
    assert_eq!(one(&mut s, "SELECT PERIOD_ADD(202401, -1)"), "202312");
    // LOWER/UPPER leave a binary string as it is (my_charset_bin's case functions copy).
    assert_eq!(
        rows(&mut s, "SELECT LOWER(0x41), UPPER(X'61'), LCASE(b'1000001')")[0],
        ["A", "a", "A"]
    );
    assert_eq!(one(&mut s, "SELECT LOWER('A')"), "a");
    // FROM_DAYS past MAX_DAY_NUMBER is the zero date (get_date_from_daynr).
    assert_eq!(one(&mut s, "SELECT FROM_DAYS(3652424)"), "9999-12-31");
    assert_eq!(one(&mut s, "SELECT FROM_DAYS(3652425)"), "0000-00-00");
    // A binary string that is no utf8mb4 cast to CHAR: warning 1300 and NULL in strict mode
    // (Item::check_well_formed_result); MariaDB answers '\0?'.
    assert_eq!(one(&mut s, "SELECT CAST(X'00FF' AS CHAR)"), "NULL");
    assert_eq!(warnings(&mut s), ["1300"]);
    assert_eq!(one(&mut s, "SELECT CAST(X'41' AS CHAR)"), "A");
    q(&mut s, "SET sql_mode = ''");
    assert_eq!(one(&mut s, "SELECT HEX(CAST(X'41FF42' AS CHAR))"), "41");
}
