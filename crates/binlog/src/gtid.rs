//! GTIDs (`uuid:N`) and GTID sets, in MySQL's text and binary forms.
//!
//! A [`GtidSet`] maps each source id ([`Sid`], the 16 bytes of a server UUID) to a list of
//! intervals of transaction numbers (`gno`). Invariants, kept by every operation:
//! - intervals are half-open `[start, end)`, `1 <= start < end <= GNO_END + 1`;
//! - per sid they are sorted, disjoint and not adjacent (adjacent ones are merged);
//! - no sid maps to an empty list.
//!
//! The binary form is the one of PREVIOUS_GTIDS events and COM_BINLOG_DUMP_GTID (MySQL 8.0,
//! untagged; `Gtid_set::encode` in `sql/rpl_gtid_set.cc`): sids are written in sorted byte order,
//! which is also the order of a `BTreeMap<Sid, _>`, so decoding and re-encoding a set that MySQL
//! wrote gives the same bytes.
//!
//! The text form is MySQL's: `3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,uuid2:1-3`, sids in
//! sorted order, lowercase, each interval `N` or `N-M` (inclusive).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// The largest transaction number MySQL allows (`GNO_END - 1`, i.e. `INT64_MAX`).
pub const GNO_MAX: u64 = i64::MAX as u64;

/// Errors from parsing or decoding GTIDs and GTID sets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GtidError {
    /// The text is not a GTID / GTID set (MySQL: ER_MALFORMED_GTID_SET_SPECIFICATION).
    #[error("malformed GTID specification '{text}': {reason}")]
    Malformed { text: String, reason: &'static str },
    /// A transaction number outside `1..=GNO_MAX`.
    #[error("GTID number {gno} out of range 1..={GNO_MAX}")]
    GnoOutOfRange { gno: u64 },
    /// The binary form is cut short.
    #[error("GTID set binary form cut: needs {needed} bytes, has {available}")]
    Truncated { needed: usize, available: usize },
    /// The binary form holds an interval MySQL would never write.
    #[error("GTID set binary form has an invalid interval [{start}, {end})")]
    BadInterval { start: u64, end: u64 },
}

/// A source id: the 16 bytes of the UUID of the server that first committed a transaction.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Sid(pub [u8; 16]);

impl Sid {
    /// Parses the 36-character dashed form or the 32-character plain hex form.
    pub fn parse(text: &str) -> Result<Sid, GtidError> {
        let malformed = |reason| GtidError::Malformed { text: text.to_string(), reason };
        let hex: Vec<u8> = match text.len() {
            36 => {
                for (i, b) in text.bytes().enumerate() {
                    if matches!(i, 8 | 13 | 18 | 23) != (b == b'-') {
                        return Err(malformed("a UUID has dashes at 8, 13, 18 and 23"));
                    }
                }
                text.bytes().filter(|&b| b != b'-').collect()
            }
            32 => text.bytes().collect(),
            _ => return Err(malformed("a UUID has 32 hex digits")),
        };
        let mut out = [0u8; 16];
        for (i, pair) in hex.chunks_exact(2).enumerate() {
            let hi = hex_val(pair[0]).ok_or_else(|| malformed("not a hex digit"))?;
            let lo = hex_val(pair[1]).ok_or_else(|| malformed("not a hex digit"))?;
            out[i] = hi << 4 | lo;
        }
        Ok(Sid(out))
    }
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for Sid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Sid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sid({self})")
    }
}

impl FromStr for Sid {
    type Err = GtidError;
    fn from_str(s: &str) -> Result<Sid, GtidError> {
        Sid::parse(s.trim())
    }
}

/// One global transaction id, `sid:gno`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Gtid {
    pub sid: Sid,
    pub gno: u64,
}

impl Gtid {
    pub fn new(sid: Sid, gno: u64) -> Result<Gtid, GtidError> {
        check_gno(gno)?;
        Ok(Gtid { sid, gno })
    }
}

fn check_gno(gno: u64) -> Result<(), GtidError> {
    if gno == 0 || gno > GNO_MAX {
        return Err(GtidError::GnoOutOfRange { gno });
    }
    Ok(())
}

impl fmt::Display for Gtid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.sid, self.gno)
    }
}

impl FromStr for Gtid {
    type Err = GtidError;
    fn from_str(s: &str) -> Result<Gtid, GtidError> {
        let s = s.trim();
        let malformed = |reason| GtidError::Malformed { text: s.to_string(), reason };
        let (sid, gno) = s.split_once(':').ok_or_else(|| malformed("expected uuid:number"))?;
        let sid = Sid::parse(sid.trim())?;
        let gno = parse_gno(gno.trim()).ok_or_else(|| malformed("expected a number"))?;
        Gtid::new(sid, gno)
    }
}

fn parse_gno(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A half-open interval `[start, end)` of transaction numbers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Interval {
    pub start: u64,
    pub end: u64,
}

/// A set of GTIDs as interval lists per sid. See the module doc for the invariants.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct GtidSet {
    sids: BTreeMap<Sid, Vec<Interval>>,
}

impl GtidSet {
    pub fn new() -> GtidSet {
        GtidSet::default()
    }

    pub fn is_empty(&self) -> bool {
        self.sids.is_empty()
    }

    /// The number of GTIDs in the set.
    pub fn count(&self) -> u64 {
        self.sids.values().flatten().map(|iv| iv.end - iv.start).sum()
    }

    /// The sids and their intervals, in sorted order.
    pub fn iter(&self) -> impl Iterator<Item = (&Sid, &[Interval])> {
        self.sids.iter().map(|(s, v)| (s, v.as_slice()))
    }

    /// Every GTID in the set, in order (for small sets and tests).
    pub fn gtids(&self) -> impl Iterator<Item = Gtid> + '_ {
        self.iter().flat_map(|(sid, ivs)| {
            ivs.iter()
                .flat_map(move |iv| (iv.start..iv.end).map(move |gno| Gtid { sid: *sid, gno }))
        })
    }

    pub fn contains(&self, gtid: &Gtid) -> bool {
        let Some(ivs) = self.sids.get(&gtid.sid) else { return false };
        // The interval that would hold gno is the last one starting at or before it.
        let i = ivs.partition_point(|iv| iv.start <= gtid.gno);
        i > 0 && gtid.gno < ivs[i - 1].end
    }

    /// Adds one GTID; returns whether it was new. Appending the next number of a sid (the
    /// common case: a server allocating in order) is O(1).
    pub fn add(&mut self, gtid: Gtid) -> bool {
        if self.contains(&gtid) {
            return false;
        }
        self.add_interval(gtid.sid, gtid.gno, gtid.gno + 1);
        true
    }

    /// Adds `[start, end)` for `sid`. Empty intervals are ignored.
    pub fn add_interval(&mut self, sid: Sid, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let ivs = self.sids.entry(sid).or_default();
        if let Some(last) = ivs.last_mut() {
            if last.end == start {
                last.end = end;
                return;
            }
            if last.end < start {
                ivs.push(Interval { start, end });
                return;
            }
        }
        // General case: merge with every interval that overlaps or touches [start, end).
        let first = ivs.partition_point(|iv| iv.end < start);
        let past = ivs.partition_point(|iv| iv.start <= end);
        let merged = if first < past {
            Interval { start: start.min(ivs[first].start), end: end.max(ivs[past - 1].end) }
        } else {
            Interval { start, end }
        };
        ivs.splice(first..past, std::iter::once(merged));
    }

    /// Adds every GTID of `other`.
    pub fn union_with(&mut self, other: &GtidSet) {
        for (sid, ivs) in &other.sids {
            for iv in ivs {
                self.add_interval(*sid, iv.start, iv.end);
            }
        }
    }

    pub fn union(&self, other: &GtidSet) -> GtidSet {
        let mut out = self.clone();
        out.union_with(other);
        out
    }

    /// The GTIDs of `self` that are not in `other`.
    pub fn subtract(&self, other: &GtidSet) -> GtidSet {
        let mut out = GtidSet::new();
        for (sid, ivs) in &self.sids {
            let Some(minus) = other.sids.get(sid) else {
                out.sids.insert(*sid, ivs.clone());
                continue;
            };
            let mut kept = Vec::new();
            let mut j = 0;
            for iv in ivs {
                let mut start = iv.start;
                while j < minus.len() && minus[j].end <= start {
                    j += 1;
                }
                let mut k = j;
                while k < minus.len() && minus[k].start < iv.end {
                    if minus[k].start > start {
                        kept.push(Interval { start, end: minus[k].start });
                    }
                    start = start.max(minus[k].end);
                    k += 1;
                }
                if start < iv.end {
                    kept.push(Interval { start, end: iv.end });
                }
            }
            if !kept.is_empty() {
                out.sids.insert(*sid, kept);
            }
        }
        out
    }

    /// The GTIDs in both sets.
    pub fn intersection(&self, other: &GtidSet) -> GtidSet {
        self.subtract(&self.subtract(other))
    }

    /// Whether every GTID of `self` is in `other`.
    pub fn is_subset(&self, other: &GtidSet) -> bool {
        self.subtract(other).is_empty()
    }

    /// The size of the binary form.
    pub fn binary_len(&self) -> usize {
        8 + self.sids.values().map(|ivs| 16 + 8 + 16 * ivs.len()).sum::<usize>()
    }

    // Format: n_sids u64le, then per sid: sid [16], n_intervals u64le, then per interval
    // start u64le, end u64le (exclusive).
    /// Appends the binary form to `out`.
    pub fn encode_binary(&self, out: &mut Vec<u8>) {
        out.reserve(self.binary_len());
        out.extend_from_slice(&(self.sids.len() as u64).to_le_bytes());
        for (sid, ivs) in &self.sids {
            out.extend_from_slice(&sid.0);
            out.extend_from_slice(&(ivs.len() as u64).to_le_bytes());
            for iv in ivs {
                out.extend_from_slice(&iv.start.to_le_bytes());
                out.extend_from_slice(&iv.end.to_le_bytes());
            }
        }
    }

    /// Decodes the binary form at the start of `buf`; returns the set and the bytes used.
    ///
    /// As mysqld's `Gtid_set::add_gtid_encoding`: every count is checked against the bytes
    /// present before anything is read or allocated (a block declaring 2^45 intervals in a few
    /// bytes is [`GtidError::Truncated`]), and within one sid's block intervals must be strictly
    /// increasing and not adjacent (`start > previous end`, `start < end`), else
    /// [`GtidError::BadInterval`]. The cost is linear in the bytes read (n log n when a sid is
    /// repeated), never quadratic.
    pub fn decode_binary(buf: &[u8]) -> Result<(GtidSet, usize), GtidError> {
        let mut r = Cursor { buf, pos: 0 };
        let n_sids = r.u64()?;
        let mut builder = Builder::default();
        for _ in 0..n_sids {
            // Each sid takes at least 24 bytes: the loop ends on Truncated long before any
            // huge count matters.
            let sid = Sid(r.take(16)?.try_into().expect("take(16) returns 16 bytes"));
            let n_ivs = r.u64()?;
            let remaining = (buf.len() - r.pos) as u64;
            if n_ivs > remaining / 16 {
                return Err(GtidError::Truncated {
                    needed: r.pos.saturating_add(
                        usize::try_from(n_ivs).unwrap_or(usize::MAX).saturating_mul(16),
                    ),
                    available: buf.len(),
                });
            }
            let mut last = 0;
            for _ in 0..n_ivs {
                let start = r.u64()?;
                let end = r.u64()?;
                if start <= last || start >= end || end > GNO_MAX + 1 {
                    return Err(GtidError::BadInterval { start, end });
                }
                last = end;
                builder.push(sid, start, end);
            }
        }
        Ok((builder.finish(), r.pos))
    }
}

/// Collects intervals in any order and normalizes them once (sort, merge), so building a set
/// from n client-given intervals costs O(n log n), where inserting them one by one into sorted
/// lists would cost O(n^2) for adversarial orders.
#[derive(Default)]
struct Builder {
    sids: BTreeMap<Sid, (Vec<Interval>, bool)>,
}

impl Builder {
    fn push(&mut self, sid: Sid, start: u64, end: u64) {
        let (ivs, sorted) = self.sids.entry(sid).or_insert_with(|| (Vec::new(), true));
        if let Some(last) = ivs.last() {
            if last.end > start {
                *sorted = false;
            }
        }
        ivs.push(Interval { start, end });
    }

    fn finish(self) -> GtidSet {
        let mut set = GtidSet::new();
        for (sid, (mut ivs, sorted)) in self.sids {
            if !sorted {
                ivs.sort_unstable_by_key(|iv| iv.start);
            }
            let mut merged: Vec<Interval> = Vec::with_capacity(ivs.len());
            for iv in ivs {
                match merged.last_mut() {
                    Some(last) if iv.start <= last.end => last.end = last.end.max(iv.end),
                    _ => merged.push(iv),
                }
            }
            if !merged.is_empty() {
                set.sids.insert(sid, merged);
            }
        }
        set
    }
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], GtidError> {
        let available = self.buf.len() - self.pos;
        if n > available {
            return Err(GtidError::Truncated { needed: self.pos + n, available: self.buf.len() });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn u64(&mut self) -> Result<u64, GtidError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("take(8) returns 8 bytes")))
    }
}

impl fmt::Display for GtidSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (sid, ivs)) in self.sids.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{sid}")?;
            for iv in ivs {
                if iv.end - iv.start == 1 {
                    write!(f, ":{}", iv.start)?;
                } else {
                    write!(f, ":{}-{}", iv.start, iv.end - 1)?;
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for GtidSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GtidSet({self})")
    }
}

impl FromStr for GtidSet {
    type Err = GtidError;

    /// Parses MySQL's text form. Whitespace (MySQL prints `,\n` between sids) is ignored
    /// around separators; an empty string is the empty set; intervals may come in any order
    /// and may overlap, as MySQL accepts.
    fn from_str(text: &str) -> Result<GtidSet, GtidError> {
        let malformed = |reason| GtidError::Malformed { text: text.to_string(), reason };
        let mut set = Builder::default();
        for part in text.split(',') {
            let part = part.trim();
            if part.is_empty() {
                if text.trim().is_empty() {
                    continue;
                }
                return Err(malformed("empty element between commas"));
            }
            let mut fields = part.split(':');
            let sid = Sid::parse(fields.next().unwrap_or_default().trim())?;
            let mut any = false;
            for range in fields {
                any = true;
                let range = range.trim();
                let (lo, hi) = match range.split_once('-') {
                    Some((lo, hi)) => (lo.trim(), hi.trim()),
                    None => (range, range),
                };
                let lo = parse_gno(lo).ok_or_else(|| malformed("expected a number"))?;
                let hi = parse_gno(hi).ok_or_else(|| malformed("expected a number"))?;
                check_gno(lo)?;
                check_gno(hi)?;
                if hi < lo {
                    return Err(malformed("interval end before its start"));
                }
                set.push(sid, lo, hi + 1);
            }
            if !any {
                return Err(malformed("a UUID needs at least one interval"));
            }
        }
        Ok(set.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    const U1: &str = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    const U2: &str = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

    fn set(s: &str) -> GtidSet {
        s.parse().expect("valid set")
    }

    #[test]
    fn text_round_trip_and_merge() {
        let s = set(&format!("{U2}:1-3,{U1}:7:1-5:6"));
        assert_eq!(s.to_string(), format!("{U1}:1-7,{U2}:1-3"));
        assert_eq!(s.count(), 10);
        assert_eq!(set("").to_string(), "");
        assert_eq!(set(&format!("{U1}:1-5,\n{U2}:9")).to_string(), format!("{U1}:1-5,{U2}:9"));
        let plain = U1.replace('-', "");
        assert_eq!(set(&format!("{plain}:2")).to_string(), format!("{U1}:2"));
    }

    /// Counts in the binary form are checked against the bytes present: a block declaring
    /// 2^45 or 2^62 intervals in a few bytes is Truncated, at once and without allocating.
    #[test]
    fn huge_binary_counts_are_truncated_not_trusted() {
        for n_ivs in [1u64 << 45, 1 << 62, u64::MAX] {
            let mut buf = 1u64.to_le_bytes().to_vec();
            buf.extend_from_slice(&[7; 16]);
            buf.extend_from_slice(&n_ivs.to_le_bytes());
            buf.extend_from_slice(&1u64.to_le_bytes());
            buf.extend_from_slice(&2u64.to_le_bytes());
            assert!(matches!(GtidSet::decode_binary(&buf), Err(GtidError::Truncated { .. })));
        }
        let mut many_sids = (1u64 << 62).to_le_bytes().to_vec();
        many_sids.extend_from_slice(&[7; 24]);
        assert!(matches!(GtidSet::decode_binary(&many_sids), Err(GtidError::Truncated { .. })));
    }

    /// mysqld's `add_gtid_encoding` wants each sid's intervals increasing and non-adjacent.
    #[test]
    fn unordered_binary_intervals_are_rejected() {
        let encode = |ivs: &[(u64, u64)]| {
            let mut buf = 1u64.to_le_bytes().to_vec();
            buf.extend_from_slice(&[7; 16]);
            buf.extend_from_slice(&(ivs.len() as u64).to_le_bytes());
            for (a, b) in ivs {
                buf.extend_from_slice(&a.to_le_bytes());
                buf.extend_from_slice(&b.to_le_bytes());
            }
            buf
        };
        assert!(GtidSet::decode_binary(&encode(&[(1, 3), (5, 9)])).is_ok());
        for bad in
            [&[(5, 9), (1, 3)][..], &[(1, 3), (3, 9)], &[(0, 3)], &[(4, 4)], &[(1, u64::MAX)]]
        {
            assert!(
                matches!(GtidSet::decode_binary(&encode(bad)), Err(GtidError::BadInterval { .. })),
                "{bad:?}"
            );
        }
    }

    /// Building a set from many intervals in adversarial (descending) order is n log n: 300 000
    /// of them took minutes when each was inserted into the sorted list in turn.
    #[test]
    fn many_unordered_text_intervals_parse_fast() {
        let n = 300_000u64;
        let mut text = String::from(U1);
        for i in (0..n).rev() {
            text.push_str(&format!(":{}", 2 * i + 1));
        }
        let started = std::time::Instant::now();
        let s = set(&text);
        assert_eq!(s.count(), n);
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn malformed_text_is_rejected() {
        for bad in [
            "x",
            "3e11fa47-71ca-11e1-9e33-c80aa9429562",
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:0",
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:5-3",
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:a",
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:1,,",
            "3e11fa4771ca-11e1-9e33-c80aa9429562-:1",
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:9223372036854775808",
        ] {
            assert!(bad.parse::<GtidSet>().is_err(), "{bad} must not parse");
        }
    }

    #[test]
    fn binary_round_trip_and_truncation() {
        let s = set(&format!("{U1}:1-5:7-9,{U2}:1-3"));
        let mut buf = Vec::new();
        s.encode_binary(&mut buf);
        assert_eq!(buf.len(), s.binary_len());
        let (back, used) = GtidSet::decode_binary(&buf).expect("decode");
        assert_eq!((back, used), (s, buf.len()));
        for cut in 0..buf.len() {
            assert!(matches!(
                GtidSet::decode_binary(&buf[..cut]),
                Err(GtidError::Truncated { .. })
            ));
        }
    }

    #[test]
    fn set_algebra() {
        let a = set(&format!("{U1}:1-10,{U2}:1-3"));
        let b = set(&format!("{U1}:4-6:9-20"));
        assert_eq!(a.subtract(&b).to_string(), format!("{U1}:1-3:7-8,{U2}:1-3"));
        assert_eq!(a.intersection(&b).to_string(), format!("{U1}:4-6:9-10"));
        assert_eq!(a.union(&b).to_string(), format!("{U1}:1-20,{U2}:1-3"));
        assert!(set(&format!("{U1}:2-3")).is_subset(&a));
        assert!(!b.is_subset(&a));
    }

    fn arb_gtids() -> impl Strategy<Value = Vec<(u8, u64)>> {
        proptest::collection::vec((0u8..3, 1u64..60), 0..80)
    }

    fn build(gtids: &[(u8, u64)]) -> (GtidSet, BTreeSet<(u8, u64)>) {
        let mut s = GtidSet::new();
        for &(sid, gno) in gtids {
            s.add(Gtid { sid: Sid([sid; 16]), gno });
        }
        (s, gtids.iter().copied().collect())
    }

    fn model_of(s: &GtidSet) -> BTreeSet<(u8, u64)> {
        s.gtids().map(|g| (g.sid.0[0], g.gno)).collect()
    }

    fn invariants_hold(s: &GtidSet) -> bool {
        s.sids.values().all(|ivs| {
            !ivs.is_empty()
                && ivs.iter().all(|iv| iv.start >= 1 && iv.start < iv.end)
                && ivs.windows(2).all(|w| w[0].end < w[1].start)
        })
    }

    proptest! {
        #[test]
        fn algebra_matches_a_plain_set(a in arb_gtids(), b in arb_gtids(), probe in (0u8..3, 1u64..60)) {
            let (sa, ma) = build(&a);
            let (sb, mb) = build(&b);
            prop_assert!(invariants_hold(&sa));
            prop_assert_eq!(model_of(&sa), ma.clone());
            prop_assert_eq!(sa.count() as usize, ma.len());
            prop_assert_eq!(sa.contains(&Gtid { sid: Sid([probe.0; 16]), gno: probe.1 }), ma.contains(&probe));
            let u = sa.union(&sb);
            let d = sa.subtract(&sb);
            let i = sa.intersection(&sb);
            prop_assert!(invariants_hold(&u) && invariants_hold(&d) && invariants_hold(&i));
            prop_assert_eq!(model_of(&u), ma.union(&mb).copied().collect::<BTreeSet<_>>());
            prop_assert_eq!(model_of(&d), ma.difference(&mb).copied().collect::<BTreeSet<_>>());
            prop_assert_eq!(model_of(&i), ma.intersection(&mb).copied().collect::<BTreeSet<_>>());
            prop_assert_eq!(sa.is_subset(&sb), ma.is_subset(&mb));
        }

        #[test]
        fn text_and_binary_forms_round_trip(a in arb_gtids()) {
            let (s, _) = build(&a);
            prop_assert_eq!(&s.to_string().parse::<GtidSet>().expect("own text parses"), &s);
            let mut buf = Vec::new();
            s.encode_binary(&mut buf);
            prop_assert_eq!(GtidSet::decode_binary(&buf).expect("own binary decodes"), (s, buf.len()));
        }

        #[test]
        fn decoding_random_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = GtidSet::decode_binary(&bytes);
            let _ = String::from_utf8_lossy(&bytes).parse::<GtidSet>();
        }
    }
}
