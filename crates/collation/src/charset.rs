//! The character sets binlogd stores: utf8mb4, utf8mb3 (`utf8`), latin1 (mysqld's latin1 is
//! Windows cp1252: 0x80–0x9F are `€`, `‚`, ... and the five unassigned bytes map to the C1
//! controls, as `latin1_uni` in ctype-latin1.cc), ascii and binary; conversion between them
//! and UTF-8 (mysqld's `my_convert` with `ER_TRUNCATED_WRONG_VALUE_FOR_FIELD` on a character
//! the target cannot hold).

/// A supported character set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    Utf8mb4,
    Utf8mb3,
    Latin1,
    Ascii,
    Binary,
}

/// The supported character sets, in `SHOW CHARACTER SET` order.
pub const CHARSETS: &[Charset] =
    &[Charset::Ascii, Charset::Binary, Charset::Latin1, Charset::Utf8mb3, Charset::Utf8mb4];

impl Charset {
    /// The name mysqld reports.
    pub fn name(self) -> &'static str {
        match self {
            Charset::Utf8mb4 => "utf8mb4",
            Charset::Utf8mb3 => "utf8mb3",
            Charset::Latin1 => "latin1",
            Charset::Ascii => "ascii",
            Charset::Binary => "binary",
        }
    }

    /// `SHOW CHARACTER SET`'s Description.
    pub fn description(self) -> &'static str {
        match self {
            Charset::Utf8mb4 => "UTF-8 Unicode",
            Charset::Utf8mb3 => "UTF-8 Unicode",
            Charset::Latin1 => "cp1252 West European",
            Charset::Ascii => "US ASCII",
            Charset::Binary => "Binary pseudo charset",
        }
    }

    /// The longest character in bytes (`mbmaxlen`).
    pub fn mbmaxlen(self) -> u32 {
        match self {
            Charset::Utf8mb4 => 4,
            Charset::Utf8mb3 => 3,
            _ => 1,
        }
    }

    /// The id of the character set's default collation.
    pub fn default_collation(self) -> u16 {
        match self {
            Charset::Utf8mb4 => 255,
            Charset::Utf8mb3 => 33,
            Charset::Latin1 => 8,
            Charset::Ascii => 11,
            Charset::Binary => 63,
        }
    }

    /// The character set named `name` (`utf8` is utf8mb3), if supported.
    pub fn by_name(name: &str) -> Option<Charset> {
        let lower = name.to_ascii_lowercase();
        CHARSETS
            .iter()
            .copied()
            .find(|c| c.name() == lower || (lower == "utf8" && *c == Charset::Utf8mb3))
    }

    /// Whether values are UTF-8 (multi-byte characters).
    pub fn is_utf8(self) -> bool {
        matches!(self, Charset::Utf8mb4 | Charset::Utf8mb3)
    }
}

const CP1252_HIGH: [u16; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

fn latin1_to_char(b: u8) -> char {
    let cp = match b {
        0x80..=0x9F => u32::from(CP1252_HIGH[usize::from(b - 0x80)]),
        _ => u32::from(b),
    };
    char::from_u32(cp).unwrap_or('?')
}

fn char_to_latin1(c: char) -> Option<u8> {
    let cp = u32::from(c);
    match cp {
        0..=0x7F | 0xA0..=0xFF => Some(cp as u8),
        _ => CP1252_HIGH.iter().position(|&u| u32::from(u) == cp).map(|i| 0x80 + i as u8),
    }
}

/// A character the target character set cannot hold: its position (in characters) and the
/// bytes that mysqld quotes in the message (`\xE2\x82\xAC`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    pub position: usize,
    pub bytes: Vec<u8>,
}

impl ConvertError {
    /// The `'\xE2\x82\xAC...'` text mysqld puts in error 1366.
    pub fn hex_text(&self) -> String {
        self.bytes.iter().map(|b| format!("\\x{b:02X}")).collect()
    }
}

/// Decodes UTF-8 into code points; `None` for each byte of an invalid sequence.
pub(crate) fn utf8_chars(s: &[u8]) -> impl Iterator<Item = Option<u32>> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= s.len() {
            return None;
        }
        let b = s[i];
        let len = match b {
            0x00..=0x7F => 1,
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 0,
        };
        if len == 0 || i + len > s.len() {
            i += 1;
            return Some(None);
        }
        match std::str::from_utf8(&s[i..i + len]) {
            Ok(t) => {
                i += len;
                Some(t.chars().next().map(u32::from))
            }
            Err(_) => {
                i += 1;
                Some(None)
            }
        }
    })
}

/// Whether `s` is well-formed in `cs` (utf8mb3 has no 4-byte characters; ascii no byte above
/// 0x7F).
pub fn is_valid(cs: Charset, s: &[u8]) -> bool {
    match cs {
        Charset::Utf8mb4 => std::str::from_utf8(s).is_ok(),
        Charset::Utf8mb3 => {
            std::str::from_utf8(s).is_ok_and(|t| t.chars().all(|c| c.len_utf8() < 4))
        }
        Charset::Ascii => s.is_ascii(),
        Charset::Latin1 | Charset::Binary => true,
    }
}

/// Converts UTF-8 text to `cs`'s bytes; the first character `cs` cannot hold is an error.
pub fn convert_from_utf8(cs: Charset, s: &[u8]) -> Result<Vec<u8>, ConvertError> {
    match cs {
        Charset::Binary => Ok(s.to_vec()),
        Charset::Utf8mb4 | Charset::Utf8mb3 => {
            // The common case, checked at memory speed: valid, and (utf8mb3) no 4-byte lead.
            if std::str::from_utf8(s).is_ok()
                && (cs == Charset::Utf8mb4 || !s.iter().any(|&b| b >= 0xF0))
            {
                return Ok(s.to_vec());
            }
            let mut pos = 0;
            let mut at = 0;
            for cp in utf8_chars(s) {
                let len = match cp.and_then(char::from_u32) {
                    Some(c) if cs == Charset::Utf8mb4 || c.len_utf8() < 4 => {
                        at += c.len_utf8();
                        pos += 1;
                        continue;
                    }
                    Some(c) => c.len_utf8(),
                    None => 1,
                };
                let end = (at + len.max(4)).min(s.len());
                return Err(ConvertError { position: pos, bytes: s[at..end].to_vec() });
            }
            Ok(s.to_vec())
        }
        Charset::Latin1 | Charset::Ascii => {
            let mut out = Vec::with_capacity(s.len());
            let mut at = 0;
            for (pos, cp) in utf8_chars(s).enumerate() {
                let c = cp.and_then(char::from_u32);
                let b = c.and_then(char_to_latin1).filter(|&b| cs == Charset::Latin1 || b < 0x80);
                match b {
                    Some(b) => out.push(b),
                    None => {
                        let len = c.map_or(1, char::len_utf8);
                        let end = (at + len.max(4)).min(s.len());
                        return Err(ConvertError { position: pos, bytes: s[at..end].to_vec() });
                    }
                }
                at += c.map_or(1, char::len_utf8);
            }
            Ok(out)
        }
    }
}

/// Converts `cs`'s bytes to UTF-8 (bytes that are not characters of `cs` become `?`).
pub fn convert_to_utf8(cs: Charset, s: &[u8]) -> Vec<u8> {
    match cs {
        Charset::Latin1 if !s.is_ascii() => {
            s.iter().map(|&b| latin1_to_char(b)).collect::<String>().into_bytes()
        }
        Charset::Ascii if !s.is_ascii() => {
            s.iter().map(|&b| if b < 0x80 { b } else { b'?' }).collect()
        }
        _ => s.to_vec(),
    }
}

/// UTF-8 text in `cs`'s bytes, each character `cs` cannot hold (and each invalid UTF-8
/// sequence) becoming `?`, as mysqld's `copy_and_convert` sends a value to a client whose
/// `character_set_results` lacks the character. Unicode sets and binary are the bytes as given
/// (borrowed); so is ASCII text in any set (the common case costs one scan).
pub fn encode_lossy(cs: Charset, s: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !matches!(cs, Charset::Latin1 | Charset::Ascii) || s.is_ascii() {
        return std::borrow::Cow::Borrowed(s);
    }
    let text = String::from_utf8_lossy(s);
    let mut out = Vec::with_capacity(s.len());
    let mut buf = [0u8; 4];
    for c in text.chars() {
        match convert_from_utf8(cs, c.encode_utf8(&mut buf).as_bytes()) {
            Ok(b) if c != char::REPLACEMENT_CHARACTER => out.extend_from_slice(&b),
            _ => out.push(b'?'),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `cs`'s bytes as UTF-8 text (see [`convert_to_utf8`]), borrowed when nothing changes.
pub fn decode(cs: Charset, s: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !matches!(cs, Charset::Latin1 | Charset::Ascii) || s.is_ascii() {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(convert_to_utf8(cs, s))
}
