//! The `Ssl_*` status variables: what `SHOW [SESSION | GLOBAL] STATUS LIKE 'Ssl%'` shows about
//! the connection's TLS session and the server's TLS context, in mysqld's names and forms.
//!
//! Clients and pools check these: `SHOW SESSION STATUS LIKE 'Ssl_cipher'` (non-empty means the
//! connection is encrypted: MySQL's documentation, "Configuring MySQL to Use Encrypted
//! Connections", and the `mysql` CLI's `\s`), `Ssl_version`, and monitoring reads
//! `Ssl_server_not_after` for certificate expiry. mysqld computes them in `mysqld.cc`
//! (`show_ssl_get_version`, `show_ssl_get_cipher`, `show_ssl_get_cipher_list`,
//! `show_ssl_get_server_not_before/after`, the `Ssl_*` rows of `status_vars`) from OpenSSL;
//! here they come from rustls:
//! - cipher names are OpenSSL's (`SSL_CIPHER_get_name`): IANA names for TLS 1.3
//!   (`TLS_AES_256_GCM_SHA384`), OpenSSL's own for TLS 1.2 (`ECDHE-ECDSA-AES256-GCM-SHA384`),
//!   because that is what MySQL clients and scripts compare against; [`openssl_name`] maps the
//!   suites rustls offers;
//! - versions are OpenSSL's `SSL_get_version` strings (`TLSv1.2`, `TLSv1.3`);
//! - certificate dates are `ASN1_TIME_print`'s form (`Nov 26 00:03:50 2036 GMT`), read from the
//!   server certificate's validity ([`certificate_validity`], a small DER walk: the one field
//!   needed does not justify an X.509 parser dependency; `der` decodes the times).
//!
//! Counters without a rustls counterpart keep mysqld's value for what does not happen here:
//! rustls never renegotiates (`Ssl_accept_renegotiates` 0) and the server never connects as a
//! TLS client on a client's behalf (`Ssl_client_connects` 0).
//!
//! Invariant: a plain connection shows every session variable empty or 0, as mysqld does for a
//! connection without TLS (its `show_ssl_*` functions answer "" / 0 when `vio->ssl_arg` is null).

use std::sync::atomic::{AtomicU64, Ordering};

use der::asn1::{GeneralizedTime, UtcTime};
use der::{Decode, Reader, SliceReader, Tag};
use rustls::{CipherSuite, HandshakeKind, ProtocolVersion, ServerConnection};

/// What one connection's TLS session negotiated (`None` for a plain connection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSession {
    /// `TLSv1.2` or `TLSv1.3`.
    pub version: String,
    /// The cipher in OpenSSL's name.
    pub cipher: String,
    /// True when the handshake resumed an earlier session.
    pub resumed: bool,
    /// The suites the server offered (`Ssl_cipher_list`), OpenSSL names joined by `:`.
    pub cipher_list: String,
}

impl TlsSession {
    /// The negotiated parameters of a finished handshake.
    pub fn of(conn: &ServerConnection) -> TlsSession {
        let version = match conn.protocol_version() {
            Some(ProtocolVersion::TLSv1_3) => "TLSv1.3".to_string(),
            Some(ProtocolVersion::TLSv1_2) => "TLSv1.2".to_string(),
            Some(other) => format!("{other:?}"),
            None => String::new(),
        };
        let cipher =
            conn.negotiated_cipher_suite().map(|s| openssl_name(s.suite())).unwrap_or_default();
        let resumed = conn.handshake_kind() == Some(HandshakeKind::Resumed);
        TlsSession { version, cipher, resumed, cipher_list: String::new() }
    }
}

/// OpenSSL's name of a cipher suite (`SSL_CIPHER_get_name`); the IANA name for one it has no
/// name of its own for.
pub fn openssl_name(suite: CipherSuite) -> String {
    let name = match suite {
        CipherSuite::TLS13_AES_256_GCM_SHA384 => "TLS_AES_256_GCM_SHA384",
        CipherSuite::TLS13_AES_128_GCM_SHA256 => "TLS_AES_128_GCM_SHA256",
        CipherSuite::TLS13_CHACHA20_POLY1305_SHA256 => "TLS_CHACHA20_POLY1305_SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 => "ECDHE-ECDSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 => "ECDHE-ECDSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 => {
            "ECDHE-ECDSA-CHACHA20-POLY1305"
        }
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 => "ECDHE-RSA-AES256-GCM-SHA384",
        CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => "ECDHE-RSA-AES128-GCM-SHA256",
        CipherSuite::TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 => "ECDHE-RSA-CHACHA20-POLY1305",
        other => return other.as_str().map(str::to_string).unwrap_or_else(|| format!("{other:?}")),
    };
    name.to_string()
}

/// The server's TLS context, shared by every connection: what `SHOW GLOBAL STATUS` shows.
#[derive(Debug, Default)]
pub struct TlsContext {
    /// The certificate's validity in `ASN1_TIME_print` form (empty without TLS).
    pub not_before: String,
    pub not_after: String,
    /// `Ssl_cipher_list`: the suites offered, OpenSSL names joined by `:`.
    pub cipher_list: String,
    /// Sessions the server's session cache can hold (`Ssl_session_cache_size`).
    pub cache_size: u64,
    accepts: AtomicU64,
    finished_accepts: AtomicU64,
    resumed: AtomicU64,
}

impl TlsContext {
    /// The context of a server whose certificate is `cert_der` and whose suites are `suites`.
    pub fn new(cert_der: &[u8], suites: &[CipherSuite], cache_size: u64) -> TlsContext {
        let (not_before, not_after) = certificate_validity(cert_der).unwrap_or_default();
        let cipher_list = suites.iter().map(|s| openssl_name(*s)).collect::<Vec<_>>().join(":");
        TlsContext { not_before, not_after, cipher_list, cache_size, ..Default::default() }
    }

    /// A client asked for TLS (`Ssl_accepts`).
    pub fn accept_started(&self) {
        self.accepts.fetch_add(1, Ordering::Relaxed);
    }

    /// A handshake finished (`Ssl_finished_accepts`; a resumed one also counts a cache hit).
    pub fn accept_finished(&self, session: &TlsSession) {
        self.finished_accepts.fetch_add(1, Ordering::Relaxed);
        if session.resumed {
            self.resumed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The global `Ssl_*` rows, as mysqld names them (sorted by the caller).
    pub fn global_status(&self) -> Vec<(&'static str, String)> {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed).to_string();
        let accepts = self.accepts.load(Ordering::Relaxed);
        let finished = self.finished_accepts.load(Ordering::Relaxed);
        let resumed = self.resumed.load(Ordering::Relaxed);
        vec![
            ("Ssl_accept_renegotiates", "0".to_string()),
            ("Ssl_accepts", accepts.to_string()),
            ("Ssl_callback_cache_hits", "0".to_string()),
            ("Ssl_client_connects", "0".to_string()),
            ("Ssl_connect_renegotiates", "0".to_string()),
            // No client certificate is asked for: OpenSSL's SSL_VERIFY_NONE (0) and its
            // default depth (-1, shown unsigned as mysqld does).
            ("Ssl_ctx_verify_depth", u64::MAX.to_string()),
            ("Ssl_ctx_verify_mode", "0".to_string()),
            ("Ssl_finished_accepts", finished.to_string()),
            ("Ssl_finished_connects", "0".to_string()),
            ("Ssl_server_not_after", self.not_after.clone()),
            ("Ssl_server_not_before", self.not_before.clone()),
            ("Ssl_session_cache_hits", load(&self.resumed)),
            ("Ssl_session_cache_misses", (finished - resumed.min(finished)).to_string()),
            ("Ssl_session_cache_mode", "SERVER".to_string()),
            ("Ssl_session_cache_overflows", "0".to_string()),
            ("Ssl_session_cache_size", self.cache_size.to_string()),
            ("Ssl_session_cache_timeouts", "0".to_string()),
            ("Ssl_used_session_cache_entries", "0".to_string()),
        ]
    }
}

/// The per-connection `Ssl_*` rows of `SHOW SESSION STATUS` (mysqld also shows them, for the
/// current connection, in `SHOW GLOBAL STATUS`): empty values and zeros without TLS.
pub fn session_status(session: Option<&TlsSession>) -> Vec<(&'static str, String)> {
    let zero = || "0".to_string();
    match session {
        None => vec![
            ("Ssl_cipher", String::new()),
            ("Ssl_cipher_list", String::new()),
            ("Ssl_default_timeout", zero()),
            ("Ssl_sessions_reused", zero()),
            ("Ssl_verify_depth", zero()),
            ("Ssl_verify_mode", zero()),
            ("Ssl_version", String::new()),
        ],
        Some(s) => vec![
            ("Ssl_cipher", s.cipher.clone()),
            ("Ssl_cipher_list", s.cipher_list.clone()),
            // OpenSSL's default session timeout (SSL_get_default_timeout), in seconds.
            ("Ssl_default_timeout", "7200".to_string()),
            ("Ssl_sessions_reused", u8::from(s.resumed).to_string()),
            ("Ssl_verify_depth", u64::MAX.to_string()),
            ("Ssl_verify_mode", zero()),
            ("Ssl_version", s.version.clone()),
        ],
    }
}

/// `notBefore` and `notAfter` of an X.509 certificate (DER), in `ASN1_TIME_print`'s form.
/// `None` when the bytes are not a certificate this walk understands.
pub fn certificate_validity(cert_der: &[u8]) -> Option<(String, String)> {
    // Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version OPTIONAL,
    //   serialNumber, signature, issuer, validity SEQUENCE { notBefore, notAfter }, ... } ... }
    let mut outer = SliceReader::new(cert_der).ok()?;
    let cert = der::asn1::AnyRef::decode(&mut outer).ok()?;
    let mut cert = SliceReader::new(cert.value()).ok()?;
    let tbs = der::asn1::AnyRef::decode(&mut cert).ok()?;
    let mut tbs = SliceReader::new(tbs.value()).ok()?;
    let first = der::asn1::AnyRef::decode(&mut tbs).ok()?;
    if der::Tagged::tag(&first).is_context_specific() {
        der::asn1::AnyRef::decode(&mut tbs).ok()?; // serialNumber after [0] version
    }
    der::asn1::AnyRef::decode(&mut tbs).ok()?; // signature
    der::asn1::AnyRef::decode(&mut tbs).ok()?; // issuer
    let validity = der::asn1::AnyRef::decode(&mut tbs).ok()?;
    let mut validity = SliceReader::new(validity.value()).ok()?;
    let not_before = asn1_time(&mut validity)?;
    let not_after = asn1_time(&mut validity)?;
    Some((not_before, not_after))
}

/// One UTCTime or GeneralizedTime as `ASN1_TIME_print` prints it: `Mon DD HH:MM:SS YYYY GMT`
/// with the day padded by a space.
fn asn1_time(r: &mut SliceReader<'_>) -> Option<String> {
    let time = match r.peek_tag().ok()? {
        Tag::UtcTime => UtcTime::decode(r).ok()?.to_date_time(),
        Tag::GeneralizedTime => GeneralizedTime::decode(r).ok()?.to_date_time(),
        _ => return None,
    };
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let month = MONTHS.get(usize::from(time.month()).checked_sub(1)?)?;
    Some(format!(
        "{month} {:>2} {:02}:{:02}:{:02} {} GMT",
        time.day(),
        time.hour(),
        time.minutes(),
        time.seconds(),
        time.year()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_of_a_certificate_in_asn1_time_print_form() {
        let key = rcgen::KeyPair::generate().expect("key");
        let mut params = rcgen::CertificateParams::new(vec!["localhost".into()]).expect("params");
        params.not_before = rcgen::date_time_ymd(2024, 2, 9);
        params.not_after = rcgen::date_time_ymd(2051, 11, 30);
        let cert = params.self_signed(&key).expect("cert");
        let (before, after) = certificate_validity(cert.der()).expect("validity");
        assert_eq!(before, "Feb  9 00:00:00 2024 GMT");
        // After 2049 the validity is a GeneralizedTime (RFC 5280 4.1.2.5).
        assert_eq!(after, "Nov 30 00:00:00 2051 GMT");
        assert_eq!(certificate_validity(b"\x30\x03\x02\x01\x01"), None);
        assert_eq!(certificate_validity(&[]), None);
    }

    #[test]
    fn cipher_names_are_openssls() {
        assert_eq!(openssl_name(CipherSuite::TLS13_AES_256_GCM_SHA384), "TLS_AES_256_GCM_SHA384");
        assert_eq!(
            openssl_name(CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256),
            "ECDHE-RSA-AES128-GCM-SHA256"
        );
    }

    #[test]
    fn a_plain_connection_shows_empty_values() {
        let rows = session_status(None);
        let get = |n: &str| rows.iter().find(|(k, _)| *k == n).map(|(_, v)| v.clone());
        assert_eq!(get("Ssl_cipher").as_deref(), Some(""));
        assert_eq!(get("Ssl_version").as_deref(), Some(""));
        let tls = TlsSession {
            version: "TLSv1.3".into(),
            cipher: "TLS_AES_256_GCM_SHA384".into(),
            resumed: false,
            cipher_list: "TLS_AES_256_GCM_SHA384".into(),
        };
        let context = TlsContext::default();
        context.accept_started();
        context.accept_finished(&tls);
        let rows = session_status(Some(&tls));
        assert!(rows.contains(&("Ssl_cipher", "TLS_AES_256_GCM_SHA384".to_string())));
        let global = context.global_status();
        assert!(global.contains(&("Ssl_accepts", "1".to_string())));
        assert!(global.contains(&("Ssl_finished_accepts", "1".to_string())));
        assert!(global.contains(&("Ssl_session_cache_misses", "1".to_string())));
    }
}
