//! Expressions that see a string's bytes in its own character set: `CONVERT(x USING cs)`,
//! `CONVERT(x, CHAR CHARACTER SET cs)`, and LENGTH/OCTET_LENGTH, HEX, MD5, SHA1, SHA2 and
//! CAST(... AS BINARY) of a latin1 or ascii string (mysqld's `Item_func_conv_charset` and
//! `String::length()` of the argument's `val_str`: `LENGTH('é')` is 1 in a latin1 column,
//! `HEX` is `E9`).
//!
//! Why a rewrite at binding: the SQL layer holds text as UTF-8 (collations translate
//! latin1/ascii, `eval/collate.rs`), so a byte-level function of a latin1 argument gets the
//! argument through `BytesFunc::Convert(Some(latin1), binary)`, which yields its latin1 bytes;
//! the argument's character set is known only once it is bound (`Binder::dt`).
//!
//! Invariant: `Convert(from, to)` with `to` a character set returns UTF-8 text whose every
//! character `to` holds (others became `?`, as `copy_and_convert`); with `to = binary` it
//! returns the bytes of the text in `from`.

use collation::Charset;

use crate::ast::{BytesFunc, Expr, Func};
use crate::error::Result;
use crate::eval::collate::{Dt, IMPLICIT};
use crate::exec::Binder;

/// The collation of `CONVERT(x USING to)`: `to`'s default, implicit (mysqld's
/// `Item_func_conv_charset::resolve_type`).
pub(crate) fn convert_dt(to: Charset) -> Dt {
    Dt::new(to.default_collation(), IMPLICIT, false)
}

/// Whether `f` reads its first argument's bytes.
fn reads_bytes(f: Func) -> bool {
    matches!(
        f,
        Func::Length
            | Func::Bytes(
                BytesFunc::Hex
                    | BytesFunc::Md5
                    | BytesFunc::Sha1
                    | BytesFunc::Sha2
                    | BytesFunc::AesEncrypt
                    | BytesFunc::AesDecrypt
                    | BytesFunc::CastBinary(_)
            )
    )
}

impl Binder<'_> {
    /// `f(args)` with the argument character sets the functions above need.
    pub(crate) fn charset_args(&self, f: Func, mut args: Vec<Expr>) -> Result<Expr> {
        let first_charset = |b: &Self, args: &[Expr]| -> Result<Option<Charset>> {
            let Some(a) = args.first() else { return Ok(None) };
            let d = b.dt(a)?;
            Ok(if d.is_string() { collation::by_id(d.id).map(|c| c.charset) } else { None })
        };
        match f {
            Func::Bytes(BytesFunc::Convert(None, to)) => {
                let from = first_charset(self, &args)?;
                return Ok(Expr::Func(Func::Bytes(BytesFunc::Convert(from, to)), args));
            }
            f if reads_bytes(f) => {
                if let Some(cs @ (Charset::Latin1 | Charset::Ascii)) = first_charset(self, &args)? {
                    let a = args.remove(0);
                    let bytes = Func::Bytes(BytesFunc::Convert(Some(cs), Charset::Binary));
                    args.insert(0, Expr::Func(bytes, vec![a]));
                }
            }
            _ => {}
        }
        Ok(Expr::Func(f, args))
    }
}
