//! The binlog payload record the FLUSH leader writes into the redo (binlog-in-redo, and
//! classic mode with `sync_binlog != 1`): the group's bytes exactly as appended to the
//! binlog, with where they go and where each transaction starts, so recovery can append
//! whatever part of the group the binlog file lost, at a transaction boundary.

use binlog::gtid::{Gtid, Sid};

use crate::error::{Error, Result};

const MAGIC: &[u8; 4] = b"BLP1";

/// One transaction of a payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PayloadTxn {
    pub len: u32,
    pub gtid: Option<Gtid>,
    pub xid: Option<u64>,
}

/// A decoded payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Payload {
    /// Binlog file sequence number and the group's start offset in it.
    pub seq: u64,
    pub start: u64,
    pub txns: Vec<PayloadTxn>,
    pub bytes: Vec<u8>,
}

// Format: "BLP1" | u64 seq | u64 start | u32 n | n × (u32 len | u8 has_gtid | [16] sid |
//         u64 gno | u8 has_xid | u64 xid) | group bytes. Little-endian.
pub(crate) fn encode(seq: u64, start: u64, txns: &[PayloadTxn], bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 + txns.len() * 38 + bytes.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&seq.to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&(txns.len() as u32).to_le_bytes());
    for t in txns {
        out.extend_from_slice(&t.len.to_le_bytes());
        let g = t.gtid.unwrap_or(Gtid { sid: Sid([0; 16]), gno: 0 });
        out.push(u8::from(t.gtid.is_some()));
        out.extend_from_slice(&g.sid.0);
        out.extend_from_slice(&g.gno.to_le_bytes());
        out.push(u8::from(t.xid.is_some()));
        out.extend_from_slice(&t.xid.unwrap_or(0).to_le_bytes());
    }
    out.extend_from_slice(bytes);
    out
}

struct Reader<'a> {
    buf: &'a [u8],
    lsn: u64,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(Error::CorruptPayload { lsn: self.lsn });
        }
        let (a, b) = self.buf.split_at(n);
        self.buf = b;
        Ok(a)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn flag(&mut self) -> Result<bool> {
        match self.array::<1>()? {
            [0] => Ok(false),
            [1] => Ok(true),
            _ => Err(Error::CorruptPayload { lsn: self.lsn }),
        }
    }
}

/// Decodes a payload read from the redo at `lsn` (bounds-checked: these bytes come from disk).
pub(crate) fn decode(buf: &[u8], lsn: u64) -> Result<Payload> {
    let mut r = Reader { buf, lsn };
    if r.take(4)? != MAGIC {
        return Err(Error::CorruptPayload { lsn });
    }
    let seq = r.u64()?;
    let start = r.u64()?;
    let n = r.u32()? as usize;
    let mut txns = Vec::with_capacity(n.min(buf.len() / 38));
    let mut total = 0u64;
    for _ in 0..n {
        let len = r.u32()?;
        let has_gtid = r.flag()?;
        let sid = Sid(r.array()?);
        let gno = r.u64()?;
        let has_xid = r.flag()?;
        let xid = r.u64()?;
        total += u64::from(len);
        txns.push(PayloadTxn {
            len,
            gtid: has_gtid.then_some(Gtid { sid, gno }),
            xid: has_xid.then_some(xid),
        });
    }
    if total != r.buf.len() as u64 {
        return Err(Error::CorruptPayload { lsn });
    }
    Ok(Payload { seq, start, txns, bytes: r.buf.to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_round_trips_and_rejects_cut_bytes() {
        let txns = vec![
            PayloadTxn { len: 3, gtid: Some(Gtid { sid: Sid([7; 16]), gno: 9 }), xid: Some(4) },
            PayloadTxn { len: 2, gtid: None, xid: None },
        ];
        let enc = encode(5, 1234, &txns, b"abcde");
        let dec = decode(&enc, 77).expect("decodes");
        assert_eq!(dec, Payload { seq: 5, start: 1234, txns, bytes: b"abcde".to_vec() });
        for cut in 0..enc.len() {
            assert!(decode(&enc[..cut], 77).is_err(), "cut at {cut} must fail");
        }
    }
}
