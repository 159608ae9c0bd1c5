//! `CONVERT(v USING to)` on values (mysqld's `Item_func_conv_charset::val_str`,
//! `copy_and_convert`): the evaluation half of charset_exprs.rs, here so that the evaluator
//! does not depend on the binder.

use collation::Charset;
use engine::Value;

/// The value of `CONVERT(v USING to)` for an argument in character set `from`.
pub(crate) fn convert(v: Value, from: Option<Charset>, to: Charset) -> Value {
    let b = match v {
        Value::Null => return Value::Null,
        Value::Bytes(b) => b,
        other => super::to_text(&other),
    };
    let from = from.unwrap_or(Charset::Utf8mb4);
    // The argument as UTF-8 text: a binary string's bytes are read as `to`'s.
    let text: Vec<u8> = match (from, to) {
        (Charset::Binary, Charset::Binary) => return Value::Bytes(b),
        (Charset::Binary, Charset::Latin1 | Charset::Ascii) => {
            collation::decode(to, &b).into_owned()
        }
        (Charset::Binary, _) => String::from_utf8_lossy(&b).replace('\u{FFFD}', "?").into_bytes(),
        _ => b,
    };
    Value::Bytes(match to {
        Charset::Binary => collation::encode_lossy(from, &text).into_owned(),
        Charset::Latin1 | Charset::Ascii => {
            collation::decode(to, &collation::encode_lossy(to, &text)).into_owned()
        }
        Charset::Utf8mb3 => String::from_utf8_lossy(&text)
            .chars()
            .map(|c| if c.len_utf8() == 4 { '?' } else { c })
            .collect::<String>()
            .into_bytes(),
        Charset::Utf8mb4 => text,
    })
}
