//! The session's character sets at the wire: statement text arrives in
//! `character_set_client` and text values leave in `character_set_results` (mysqld's
//! `THD::convert_string` on the query, `Protocol_text::store_string` with
//! `copy_and_convert` on each value; a character the results set cannot hold is sent as `?`).
//!
//! Why here and not in the engine: the SQL layer computes on UTF-8 text (collations translate
//! latin1/ascii operands, `eval/collate.rs`), so the conversions happen once, at the edge.
//! A latin1 or ascii *column* sent with `character_set_results = NULL` goes in its own
//! character set, as mysqld sends a field without conversion.
//!
//! Invariants: the UTF-8 sets need no conversion (`None`), so a utf8mb4 session pays one
//! variable look-up per statement and nothing per value.

use collation::Charset;

use crate::output::ResultColumn;
use crate::session::Session;
use crate::vars::Var;

impl Session {
    /// `character_set_client` when statement text must be converted from it (latin1, ascii);
    /// None for the UTF-8 sets and `binary` (bytes taken as they are).
    pub fn client_charset(&self) -> Option<Charset> {
        single_byte(&self.var_text(Var::CharacterSetClient))
    }

    /// A statement (or string parameter) from the client in UTF-8, None when it needs no
    /// conversion. latin1 maps every byte to a character, so the result is always text.
    pub fn client_text(&self, body: &[u8]) -> Option<String> {
        if body.is_ascii() {
            return None;
        }
        let cs = self.client_charset()?;
        String::from_utf8(collation::convert_to_utf8(cs, body)).ok()
    }

    /// The character set each result column's values must be sent in, None where they go as
    /// computed (UTF-8 text, numbers, binary strings); empty when no column needs converting.
    pub fn result_charsets(&self, columns: &[ResultColumn]) -> Vec<Option<Charset>> {
        let results = single_byte(&self.var_text(Var::CharacterSetResults));
        let results_null = self.results_charset().is_none();
        let out: Vec<Option<Charset>> = columns
            .iter()
            .map(|c| {
                if !c.is_text() {
                    return None;
                }
                if results_null {
                    // No conversion: a column goes in its own character set.
                    let own = collation::by_id(c.charset).map(|x| x.charset)?;
                    return matches!(own, Charset::Latin1 | Charset::Ascii).then_some(own);
                }
                results
            })
            .collect();
        if out.iter().all(Option::is_none) {
            Vec::new()
        } else {
            out
        }
    }
}

fn single_byte(name: &str) -> Option<Charset> {
    match Charset::by_name(name)? {
        cs @ (Charset::Latin1 | Charset::Ascii) => Some(cs),
        _ => None,
    }
}
