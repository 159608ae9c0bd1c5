//! Character sets and collations by name and id, as far as the wire needs them: the collation
//! id a client sends in its handshake or names in `SET NAMES`, and the `mbmaxlen` mysqld uses to
//! size a text column's `column_length` in a result set (`Protocol_classic::send_field_metadata`:
//! `column_length = characters × mbmaxlen` of `character_set_results`).
//!
//! The table holds the ids of MySQL 8.0's `SHOW COLLATION` (strings/ctype-*.cc and
//! `information_schema.COLLATIONS`) for the character sets clients commonly ask for. Data is
//! stored as utf8mb4 whatever the client's character set; the ids only describe the session.
//!
//! Invariant: every character set named here has exactly one default collation in [`COLLATIONS`].

/// One collation: id, name, character set, whether it is the set's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Collation {
    pub id: u16,
    pub name: &'static str,
    pub charset: &'static str,
    pub is_default: bool,
}

const fn c(id: u16, name: &'static str, charset: &'static str, is_default: bool) -> Collation {
    Collation { id, name, charset, is_default }
}

/// MySQL 8.0's ids (`SELECT ID, COLLATION_NAME FROM information_schema.COLLATIONS`).
pub const COLLATIONS: &[Collation] = &[
    c(255, "utf8mb4_0900_ai_ci", "utf8mb4", true),
    c(45, "utf8mb4_general_ci", "utf8mb4", false),
    c(46, "utf8mb4_bin", "utf8mb4", false),
    c(224, "utf8mb4_unicode_ci", "utf8mb4", false),
    c(246, "utf8mb4_unicode_520_ci", "utf8mb4", false),
    c(278, "utf8mb4_0900_as_cs", "utf8mb4", false),
    c(305, "utf8mb4_0900_as_ci", "utf8mb4", false),
    c(309, "utf8mb4_0900_bin", "utf8mb4", false),
    c(33, "utf8mb3_general_ci", "utf8mb3", true),
    c(83, "utf8mb3_bin", "utf8mb3", false),
    c(192, "utf8mb3_unicode_ci", "utf8mb3", false),
    c(8, "latin1_swedish_ci", "latin1", true),
    c(47, "latin1_bin", "latin1", false),
    c(48, "latin1_general_ci", "latin1", false),
    c(5, "latin1_german1_ci", "latin1", false),
    c(9, "latin2_general_ci", "latin2", true),
    c(11, "ascii_general_ci", "ascii", true),
    c(65, "ascii_bin", "ascii", false),
    c(63, "binary", "binary", true),
    c(35, "ucs2_general_ci", "ucs2", true),
    c(54, "utf16_general_ci", "utf16", true),
    c(56, "utf16le_general_ci", "utf16le", true),
    c(60, "utf32_general_ci", "utf32", true),
    c(51, "cp1251_general_ci", "cp1251", true),
    c(57, "cp1256_general_ci", "cp1256", true),
    c(26, "cp1250_general_ci", "cp1250", true),
    c(28, "gbk_chinese_ci", "gbk", true),
    c(248, "gb18030_chinese_ci", "gb18030", true),
    c(1, "big5_chinese_ci", "big5", true),
    c(13, "sjis_japanese_ci", "sjis", true),
    c(95, "cp932_japanese_ci", "cp932", true),
    c(12, "ujis_japanese_ci", "ujis", true),
    c(19, "euckr_korean_ci", "euckr", true),
    c(24, "gb2312_chinese_ci", "gb2312", true),
    c(7, "koi8r_general_ci", "koi8r", true),
    c(25, "greek_general_ci", "greek", true),
    c(16, "hebrew_general_ci", "hebrew", true),
    c(30, "latin5_turkish_ci", "latin5", true),
    c(20, "latin7_estonian_cs", "latin7", true),
];

/// The longest encoding of one character in `charset` (`CHARSET_INFO::mbmaxlen`).
pub fn mbmaxlen(charset: &str) -> Option<u32> {
    Some(match canonical_charset(charset)? {
        "utf8mb4" | "utf16" | "utf16le" | "utf32" | "gb18030" => 4,
        "utf8mb3" | "ujis" => 3,
        "ucs2" | "gbk" | "big5" | "sjis" | "cp932" | "euckr" | "gb2312" => 2,
        _ => 1,
    })
}

/// The charset's name as mysqld reports it (`utf8` is `utf8mb3`), if known.
pub fn canonical_charset(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let lower = if lower == "utf8" { "utf8mb3".to_string() } else { lower };
    COLLATIONS.iter().find(|c| c.charset == lower).map(|c| c.charset)
}

/// The collation named `name` (`utf8_general_ci` is `utf8mb3_general_ci`).
pub fn by_name(name: &str) -> Option<&'static Collation> {
    let lower = name.to_ascii_lowercase();
    let lower = match lower.strip_prefix("utf8_") {
        Some(rest) => format!("utf8mb3_{rest}"),
        None => lower,
    };
    COLLATIONS.iter().find(|c| c.name == lower)
}

/// The collation with id `id`.
pub fn by_id(id: u16) -> Option<&'static Collation> {
    COLLATIONS.iter().find(|c| c.id == id)
}

/// The default collation of `charset`.
pub fn default_of(charset: &str) -> Option<&'static Collation> {
    let cs = canonical_charset(charset)?;
    COLLATIONS.iter().find(|c| c.charset == cs && c.is_default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_charset_has_one_default() {
        for col in COLLATIONS {
            let defaults =
                COLLATIONS.iter().filter(|c| c.charset == col.charset && c.is_default).count();
            assert_eq!(defaults, 1, "{}", col.charset);
            assert_eq!(by_id(col.id), Some(col), "ids are unique");
        }
        assert_eq!(default_of("UTF8MB4").map(|c| c.id), Some(255));
        assert_eq!(default_of("utf8").map(|c| c.id), Some(33));
        assert_eq!(by_name("utf8_bin").map(|c| c.id), Some(83));
        assert_eq!(mbmaxlen("latin1"), Some(1));
        assert_eq!(mbmaxlen("nope"), None);
    }
}
