//! File names: `<basename>.NNNNNN` (at least 6 digits, as MySQL's `%06lu`; more once the
//! sequence passes 999999) and pool files `empty.NNNNNN` (WL#4925's `mysqlbinlogalloc`).

/// The name of file `seq` of the set `basename`.
pub fn file_name(basename: &str, seq: u64) -> String {
    format!("{basename}.{seq:06}")
}

/// The sequence number of `name` if it is a file of the set `basename`.
pub fn parse_seq(basename: &str, name: &str) -> Option<u64> {
    let digits = name.strip_prefix(basename)?.strip_prefix('.')?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The prefix of pool files in the preallocation directory.
pub const POOL_BASENAME: &str = "empty";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(file_name("binlog", 1), "binlog.000001");
        assert_eq!(file_name("binlog", 1_234_567), "binlog.1234567");
        assert_eq!(parse_seq("binlog", "binlog.000001"), Some(1));
        assert_eq!(parse_seq("binlog", "binlog.1234567"), Some(1_234_567));
        assert_eq!(parse_seq("binlog", "binlog.00001"), None);
        assert_eq!(parse_seq("binlog", "binlog.index"), None);
        assert_eq!(parse_seq("binlog", "binlog.00000x"), None);
        assert_eq!(parse_seq("bin", "binlog.000001"), None);
        assert_eq!(parse_seq("binlog", "binlog.000001.tmp"), None);
    }
}
