use std::cmp::Ordering::{self, *};

use super::*;

fn cmp(coll: &str, a: &str, b: &str) -> Ordering {
    compare(by_name(coll).expect("known").id, a.as_bytes(), b.as_bytes())
}

const SAMPLES: &[&str] = &[
    "", " ", "  ", "a", "A", "a ", "a  ", "a\t", "a\0", "\0", "á", "Á", "à", "ä", "å", "b", "B",
    "ab", "aB", "a b", "ss", "ß", "SS", "s", "æ", "ae", "e", "é", "ё", "е", "я", "Я", "日本", "日",
    "😀", "😁", "z", "Z", "zz", "a\u{300}", "-", "_", "%", "1", "10", "2", "ÿ", "Ø", "ø", "ı", "i",
    "I", "ﬁ", "fi", "\u{FFFD}", "€", "\u{7F}", "~", "Alice", "ALICE", "alice ", "Ålice",
];

#[test]
fn sort_keys_order_as_compare_does() {
    for c in COLLATIONS {
        let conv = |s: &str| -> Vec<u8> {
            match c.charset {
                Charset::Latin1 | Charset::Ascii => s.bytes().collect(),
                _ => s.as_bytes().to_vec(),
            }
        };
        for a in SAMPLES {
            for b in SAMPLES {
                let (x, y) = (conv(a), conv(b));
                let direct = compare(c.id, &x, &y);
                let keys = sort_key_of(c.id, &x).cmp(&sort_key_of(c.id, &y));
                assert_eq!(direct, keys, "{} {a:?} {b:?}", c.name);
                assert_eq!(direct, compare(c.id, &y, &x).reverse(), "{} antisymmetric", c.name);
                // Keys are self-delimiting: a following component never changes the order of
                // unequal strings.
                let mut kx = sort_key_of(c.id, &x);
                kx.push(0xFE);
                let mut ky = sort_key_of(c.id, &y);
                ky.push(0x01);
                if direct != Equal {
                    assert_eq!(kx.cmp(&ky), direct, "{} {a:?} {b:?} delimited", c.name);
                }
            }
        }
    }
}

#[test]
fn mysql_documented_examples() {
    // "Unicode Character Sets" (MySQL 8.0 manual, 10.10.1).
    assert_eq!(cmp("utf8mb4_0900_ai_ci", "a", "A"), Equal);
    assert_eq!(cmp("utf8mb4_0900_ai_ci", "a", "á"), Equal);
    assert_eq!(cmp("utf8mb4_0900_ai_ci", "ß", "ss"), Equal);
    assert_eq!(cmp("utf8mb4_unicode_ci", "ß", "ss"), Equal);
    assert_eq!(cmp("utf8mb4_general_ci", "ß", "s"), Equal);
    assert_ne!(cmp("utf8mb4_general_ci", "ß", "ss"), Equal);
    assert_eq!(cmp("utf8mb4_0900_ai_ci", "æ", "ae"), Equal);
    assert_eq!(cmp("utf8mb4_general_ci", "é", "E"), Equal);
    // general_ci gives every supplementary character one weight.
    assert_eq!(cmp("utf8mb4_general_ci", "😀", "😁"), Equal);
    assert_ne!(cmp("utf8mb4_0900_ai_ci", "😀", "😁"), Equal);
    // "Collation Pad Attributes": NO PAD counts trailing spaces, PAD SPACE does not.
    assert_eq!(cmp("utf8mb4_0900_ai_ci", "a ", "a"), Greater);
    assert_eq!(cmp("utf8mb4_bin", "a ", "a"), Equal);
    assert_eq!(cmp("utf8mb4_general_ci", "a ", "A"), Equal);
    assert_eq!(cmp("utf8mb4_0900_bin", "a ", "a"), Greater);
    assert_eq!(cmp("latin1_swedish_ci", "a ", "A"), Equal);
    // PAD SPACE: a character below the space sorts the longer string first.
    assert_eq!(cmp("utf8mb4_bin", "a\t", "a"), Less);
    // Case and accent sensitivity.
    assert_eq!(cmp("utf8mb4_0900_as_cs", "a", "A"), Less);
    assert_eq!(cmp("utf8mb4_0900_as_cs", "a", "á"), Less);
    assert_eq!(cmp("utf8mb4_0900_as_ci", "a", "A"), Equal);
    assert_eq!(cmp("utf8mb4_0900_as_ci", "a", "á"), Less);
    assert_eq!(cmp("utf8mb4_bin", "a", "A"), Greater);
    assert_eq!(cmp("binary", "a ", "a"), Greater);
    assert_eq!(cmp("utf8mb4_0900_ai_ci", "Alice", "ALICE"), Equal);
    assert_eq!(sort_key_of(255, b"Alice"), sort_key_of(255, b"ALICE"));
}

#[test]
fn latin1_swedish_orders_swedish_letters_after_z() {
    let l = |s: &str| convert_from_utf8(Charset::Latin1, s.as_bytes()).expect("latin1");
    let c = |a: &str, b: &str| compare(8, &l(a), &l(b));
    assert_eq!(c("z", "å"), Less);
    assert_eq!(c("å", "ä"), Less);
    assert_eq!(c("ä", "ö"), Less);
    assert_eq!(c("ü", "y"), Equal);
    assert_eq!(c("é", "E"), Equal);
}

#[test]
fn like_follows_the_collation() {
    let l =
        |coll: u16, t: &str, p: &str| like(coll, t.as_bytes(), p.as_bytes(), Some(u32::from('\\')));
    assert!(l(255, "Ålice", "a%"));
    assert!(!l(255, "ß", "ss"));
    assert!(l(255, "ß", "_"));
    assert!(!l(63, "ß", "_"));
    assert!(l(63, "ß", "__"));
    assert!(!l(46, "Alice", "a%"));
    assert!(l(45, "Alice", "A%E"));
    assert!(l(255, "a%b", "a\\%b"));
    assert!(!l(255, "axb", "a\\%b"));
    assert!(l(255, "abcabd", "%ab_"));
    assert!(!l(255, "abc ", "abc"));
    assert!(l(255, "", "%"));
    assert!(!l(255, "", "_"));
}

#[test]
fn charset_conversion() {
    assert_eq!(convert_from_utf8(Charset::Latin1, "é€".as_bytes()), Ok(vec![0xE9, 0x80]));
    assert_eq!(convert_to_utf8(Charset::Latin1, &[0xE9, 0x80]), "é€".as_bytes());
    let e = convert_from_utf8(Charset::Latin1, "aé日".as_bytes()).expect_err("not latin1");
    assert_eq!(e.position, 2);
    assert_eq!(e.hex_text(), "\\xE6\\x97\\xA5");
    assert!(convert_from_utf8(Charset::Ascii, "é".as_bytes()).is_err());
    assert!(convert_from_utf8(Charset::Utf8mb3, "😀".as_bytes()).is_err());
    assert!(convert_from_utf8(Charset::Utf8mb4, "😀".as_bytes()).is_ok());
    assert_eq!(Charset::by_name("UTF8"), Some(Charset::Utf8mb3));
    assert_eq!(by_name("utf8_general_ci").map(|c| c.id), Some(33));
    assert_eq!(to_upper("straße"), "STRAßE");
}

#[test]
fn unicode_ci_weighs_every_supplementary_character_as_fffd() {
    // UCA 4.0.0 stops at U+FFFF: mysqld (strings/ctype-uca.cc, characters above `maxchar`)
    // weighs them all 0xFFFD, above every BMP character, CJK included.
    assert_eq!(cmp("utf8mb4_unicode_ci", "😀", "😁"), Equal);
    assert_eq!(cmp("utf8mb4_unicode_ci", "a😀", "a𝄞 "), Equal);
    assert_eq!(cmp("utf8mb4_unicode_ci", "日", "😀"), Less);
    // The weight 0xFFFD, not U+FFFD's own (0x0DC6 in UCA 4.0.0).
    assert_eq!(cmp("utf8mb4_unicode_ci", "😀", "\u{FFFD}"), Greater);
    let id = by_name("utf8mb4_unicode_ci").expect("known").id;
    assert_eq!(sort_key_of(id, "😀".as_bytes()), sort_key_of(id, "😁".as_bytes()));
    // LIKE compares characters above U+FFFF by code point (`my_uca_charcmp`).
    assert!(!char_equal(id, 0x1F600, 0x1F601));
    assert!(!like(id, "😀".as_bytes(), "😁".as_bytes(), None));
    assert!(like(id, "😀".as_bytes(), "_".as_bytes(), None));
    // 0900 collations are UCA 9.0.0 with implicit weights: emoji differ there.
    assert_ne!(cmp("utf8mb4_0900_ai_ci", "😀", "😁"), Equal);
}

#[test]
fn compare_no_pad_counts_trailing_spaces() {
    // mysqld's strnncoll (FIND_IN_SET): no PAD SPACE, unlike strnncollsp.
    for coll in ["utf8mb4_general_ci", "utf8mb4_unicode_ci", "utf8mb4_bin", "latin1_swedish_ci"] {
        let id = by_name(coll).expect("known").id;
        assert_eq!(compare(id, b"a ", b"a"), Equal, "{coll}");
        assert_eq!(compare_no_pad(id, b"a ", b"a"), Greater, "{coll}");
        assert_eq!(compare_no_pad(id, b"a", b"a"), Equal, "{coll}");
    }
    assert_eq!(compare_no_pad(45, b"a", b"A"), Equal);
    assert_eq!(compare_no_pad(8, &[0xE1], b"A"), Equal);
}

#[test]
fn general_ci_weighs_as_mysqlds_unicase_table() {
    // strings/ctype-utf8.cc `my_unicase_pages_default` ("sort"), as MariaDB 10.11 answers.
    let w = |c: char| general::weight(u32::from(c));
    assert_eq!(w('é'), u32::from('E'));
    assert_eq!(w('ß'), u32::from('S'));
    assert_eq!(w('ё'), u32::from('Е'));
    assert_eq!(w('ά'), u32::from('Α'));
    assert_eq!(w('ς'), u32::from('Σ'));
    // Case pairs and letters Unicode added after mysqld's table weigh themselves.
    assert_eq!(w('ƀ'), 0x180);
    assert_eq!(w('\u{371}'), 0x371);
    assert_eq!(w('\u{1EFB}'), 0x1EFB);
    // Singleton decompositions are not followed; kana keep their voicing.
    assert_eq!(w('\u{37E}'), 0x37E);
    assert_eq!(w('が'), u32::from('が'));
    assert_eq!(w('😀'), 0xFFFD);
    assert_ne!(cmp("utf8mb4_general_ci", "が", "か"), Equal);
    assert_eq!(cmp("utf8mb4_general_ci", "ΆΛΦΑ", "αλφα"), Equal);
}

#[test]
fn unicode_ci_is_uca_4_0_0() {
    // strings/ctype-uca.cc `my_uca_v400` at the primary level, as MariaDB 10.11 answers: the
    // stroke letters are letters of their own (CLDR root makes them accented D, H, L, O),
    // `æ` sorts after every word starting with `a`.
    let u = |a: &str, b: &str| cmp("utf8mb4_unicode_ci", a, b);
    for (stroke, plain) in [("Đ", "D"), ("Ħ", "H"), ("Ł", "L"), ("Ø", "O"), ("ø", "o")] {
        assert_eq!(u(stroke, plain), Greater, "{stroke}");
    }
    assert_eq!(u("Đ", "đ"), Equal);
    assert_eq!(u("æ", "alice"), Greater);
    assert_eq!(u("æ", "b"), Less);
    assert_eq!(u("a", "Á"), Equal);
    assert_eq!(u("ß", "ss"), Equal);
    assert_eq!(u("a ", "a"), Equal);
    assert_eq!(u("a\t", "a"), Less);
    assert_eq!(u("日", "本"), Less);
}

#[test]
fn lossy_encoding_for_results_and_row_images() {
    assert_eq!(&*encode_lossy(Charset::Latin1, "aé€日".as_bytes()), &[b'a', 0xE9, 0x80, b'?']);
    assert_eq!(&*encode_lossy(Charset::Ascii, "aé".as_bytes()), b"a?");
    assert_eq!(&*encode_lossy(Charset::Latin1, &[b'a', 0xFF]), b"a?");
    assert_eq!(&*encode_lossy(Charset::Utf8mb4, "日".as_bytes()), "日".as_bytes());
    assert_eq!(&*decode(Charset::Latin1, &[0xE9, 0x80]), "é€".as_bytes());
    assert!(matches!(decode(Charset::Latin1, b"abc"), std::borrow::Cow::Borrowed(_)));
}
