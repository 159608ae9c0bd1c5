//! Password authentication: `caching_sha2_password` and `mysql_native_password`, the stored
//! forms of passwords, and the server's cache of successful SHA-2 authentications.
//!
//! The server sends a 20-byte nonce (the "scramble") in the handshake; the client proves it
//! knows the password without sending it:
//!
//! - `mysql_native_password`: the client sends `SHA1(pw) XOR SHA1(nonce || SHA1(SHA1(pw)))`.
//!   The server stores `SHA1(SHA1(pw))`, recovers the candidate `SHA1(pw)` by XOR and checks that
//!   its SHA1 is the stored value (MySQL's `check_scramble`, `sql/auth/password.cc`).
//! - `caching_sha2_password` fast path: the client sends
//!   `SHA256(pw) XOR SHA256(SHA256(SHA256(pw)) || nonce)` (mysql-server
//!   `sql/auth/sha2_password_common.cc`, `generate_sha2_scramble`; MariaDB's protocol docs,
//!   "caching_sha2_password Authentication Plugin"). The server can check it only if its cache
//!   holds `SHA256(SHA256(pw))`; it answers `0x01 0x03` (fast auth success) and then OK.
//! - `caching_sha2_password` full authentication (cache miss): the server answers `0x01 0x04`
//!   (perform full authentication). Over TLS the client then sends the password in clear,
//!   NUL-terminated. Without TLS it sends `0x02` to ask for the server's RSA public key, the
//!   server sends the PEM as `0x01 <pem>`, and the client sends
//!   `RSA-OAEP(SHA1)(pw || 0x00 XOR nonce repeated)`. The server checks the password against its
//!   salted hash and, on success, caches `SHA256(SHA256(pw))` so the next login takes the fast
//!   path.
//!
//! Invariants: a stored form never lets anyone log in without the password (the SHA-2 fast
//! path's `SHA256(SHA256(pw))` is kept only in memory, as mysqld does); every comparison of
//! secret-derived bytes is constant-time ([`subtle`]).

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use rand::RngCore;
use sha1::Sha1;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Length of the nonce sent in the handshake and in an auth switch.
pub const SCRAMBLE_LEN: usize = 20;

/// PBKDF2 iterations for new `caching_sha2_password` hashes: the same count as mysqld's default
/// `caching_sha2_password_digest_rounds` (5000).
pub const DEFAULT_SHA2_ROUNDS: u32 = 5000;

/// A fresh nonce. Like mysqld's `generate_user_salt`, bytes are 7-bit and never NUL or `$`:
/// clients treat the scramble as a C string.
pub fn generate_scramble() -> [u8; SCRAMBLE_LEN] {
    let mut scramble = [0u8; SCRAMBLE_LEN];
    rand::rng().fill_bytes(&mut scramble);
    for b in &mut scramble {
        *b &= 0x7f;
        if *b == 0 || *b == b'$' {
            *b += 1;
        }
    }
    scramble
}

/// Authentication plugins this server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthPlugin {
    /// MySQL 8's default.
    CachingSha2Password,
    /// The SHA1-based legacy plugin.
    MysqlNativePassword,
}

impl AuthPlugin {
    /// The plugin's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            AuthPlugin::CachingSha2Password => "caching_sha2_password",
            AuthPlugin::MysqlNativePassword => "mysql_native_password",
        }
    }

    /// The plugin with this wire name.
    pub fn from_name(name: &[u8]) -> Option<Self> {
        match name {
            b"caching_sha2_password" => Some(AuthPlugin::CachingSha2Password),
            b"mysql_native_password" => Some(AuthPlugin::MysqlNativePassword),
            _ => None,
        }
    }
}

/// A `caching_sha2_password` password as stored: PBKDF2-HMAC-SHA256 of the password.
///
/// Text form: `$binlogd-pbkdf2-sha256$<rounds>$<salt hex>$<digest hex>`. This is binlogd's own
/// form, not mysqld's `$A$005$` SHA-crypt string; only binlogd reads it.
#[derive(Clone, PartialEq, Eq)]
pub struct Sha2Hash {
    rounds: u32,
    salt: [u8; 20],
    digest: [u8; 32],
}

impl Sha2Hash {
    const PREFIX: &'static str = "$binlogd-pbkdf2-sha256$";

    /// Hashes `password` with a fresh salt and `rounds` iterations.
    pub fn new(password: &[u8], rounds: u32) -> Self {
        let mut salt = [0u8; 20];
        rand::rng().fill_bytes(&mut salt);
        let rounds = rounds.max(1);
        Self { rounds, salt, digest: pbkdf2_sha256(password, &salt, rounds) }
    }

    /// True if `password` is the hashed password (constant-time comparison).
    pub fn verify(&self, password: &[u8]) -> bool {
        let digest = pbkdf2_sha256(password, &self.salt, self.rounds);
        digest.ct_eq(&self.digest).into()
    }
}

fn pbkdf2_sha256(password: &[u8], salt: &[u8], rounds: u32) -> [u8; 32] {
    let mut out = [0u8; 32];
    pbkdf2::pbkdf2_hmac::<Sha256>(password, salt, rounds, &mut out);
    out
}

impl fmt::Debug for Sha2Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The digest is a secret-derived value: keep it out of logs.
        f.debug_struct("Sha2Hash").field("rounds", &self.rounds).finish_non_exhaustive()
    }
}

impl fmt::Display for Sha2Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}${}${}",
            Self::PREFIX,
            self.rounds,
            hex::encode(self.salt),
            hex::encode(self.digest)
        )
    }
}

/// A stored password string that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid stored password hash")]
pub struct InvalidHash;

impl FromStr for Sha2Hash {
    type Err = InvalidHash;

    fn from_str(s: &str) -> Result<Self, InvalidHash> {
        let rest = s.strip_prefix(Self::PREFIX).ok_or(InvalidHash)?;
        let mut parts = rest.split('$');
        let rounds: u32 = parts.next().and_then(|r| r.parse().ok()).ok_or(InvalidHash)?;
        let mut salt = [0u8; 20];
        let mut digest = [0u8; 32];
        hex::decode_to_slice(parts.next().ok_or(InvalidHash)?, &mut salt)
            .map_err(|_| InvalidHash)?;
        hex::decode_to_slice(parts.next().ok_or(InvalidHash)?, &mut digest)
            .map_err(|_| InvalidHash)?;
        if parts.next().is_some() || rounds == 0 {
            return Err(InvalidHash);
        }
        Ok(Self { rounds, salt, digest })
    }
}

/// `SHA1(SHA1(password))`, the stored form of a `mysql_native_password` password.
pub fn native_password_hash(password: &[u8]) -> [u8; 20] {
    Sha1::digest(Sha1::digest(password)).into()
}

/// The text form mysqld shows for a native hash: `*` and 40 upper-case hex digits.
pub fn native_hash_to_string(hash: &[u8; 20]) -> String {
    format!("*{}", hex::encode_upper(hash))
}

/// Parses `*` and 40 hex digits.
pub fn native_hash_from_str(s: &str) -> Result<[u8; 20], InvalidHash> {
    let hex_digits = s.strip_prefix('*').ok_or(InvalidHash)?;
    let mut out = [0u8; 20];
    hex::decode_to_slice(hex_digits, &mut out).map_err(|_| InvalidHash)?;
    Ok(out)
}

/// A user's password as the server keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredPassword {
    /// No password: only an empty answer is accepted.
    Empty,
    /// `mysql_native_password`: `SHA1(SHA1(pw))`.
    Native([u8; 20]),
    /// `caching_sha2_password`: a salted hash.
    Sha2(Sha2Hash),
}

/// What the backend knows about a user account, for authentication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserAuth {
    /// The plugin the account authenticates with.
    pub plugin: AuthPlugin,
    /// The stored password.
    pub password: StoredPassword,
}

impl UserAuth {
    /// A `caching_sha2_password` account with this password (empty: no password).
    pub fn caching_sha2(password: &str) -> Self {
        Self::caching_sha2_with_rounds(password, DEFAULT_SHA2_ROUNDS)
    }

    /// As [`UserAuth::caching_sha2`] with a chosen PBKDF2 iteration count.
    pub fn caching_sha2_with_rounds(password: &str, rounds: u32) -> Self {
        let password = if password.is_empty() {
            StoredPassword::Empty
        } else {
            StoredPassword::Sha2(Sha2Hash::new(password.as_bytes(), rounds))
        };
        Self { plugin: AuthPlugin::CachingSha2Password, password }
    }

    /// A `mysql_native_password` account with this password (empty: no password).
    pub fn native(password: &str) -> Self {
        let password = if password.is_empty() {
            StoredPassword::Empty
        } else {
            StoredPassword::Native(native_password_hash(password.as_bytes()))
        };
        Self { plugin: AuthPlugin::MysqlNativePassword, password }
    }
}

/// Checks a `mysql_native_password` answer against the stored `SHA1(SHA1(pw))`.
pub fn verify_native(nonce: &[u8], response: &[u8], stored: &[u8; 20]) -> bool {
    if response.len() != 20 {
        return false;
    }
    let mask: [u8; 20] = Sha1::new().chain_update(nonce).chain_update(stored).finalize().into();
    let mut stage1 = [0u8; 20];
    for (i, b) in stage1.iter_mut().enumerate() {
        *b = response[i] ^ mask[i];
    }
    let candidate: [u8; 20] = Sha1::digest(stage1).into();
    candidate.ct_eq(stored).into()
}

/// The client's side of `mysql_native_password`, for tests and tools.
pub fn scramble_native(nonce: &[u8], password: &[u8]) -> [u8; 20] {
    let stage1: [u8; 20] = Sha1::digest(password).into();
    let stage2: [u8; 20] = Sha1::digest(stage1).into();
    let mask: [u8; 20] = Sha1::new().chain_update(nonce).chain_update(stage2).finalize().into();
    std::array::from_fn(|i| stage1[i] ^ mask[i])
}

/// `SHA256(SHA256(pw))`, what the fast-path cache holds.
pub fn sha2_fast_hash(password: &[u8]) -> [u8; 32] {
    Sha256::digest(Sha256::digest(password)).into()
}

/// Checks a `caching_sha2_password` fast-path answer against a cached `SHA256(SHA256(pw))`.
pub fn verify_sha2_fast(nonce: &[u8], response: &[u8], cached: &[u8; 32]) -> bool {
    if response.len() != 32 {
        return false;
    }
    let mask: [u8; 32] = Sha256::new().chain_update(cached).chain_update(nonce).finalize().into();
    let stage1: [u8; 32] = std::array::from_fn(|i| response[i] ^ mask[i]);
    let candidate: [u8; 32] = Sha256::digest(stage1).into();
    candidate.ct_eq(cached).into()
}

/// The client's side of the `caching_sha2_password` fast path, for tests and tools.
pub fn scramble_sha2(nonce: &[u8], password: &[u8]) -> [u8; 32] {
    let stage1: [u8; 32] = Sha256::digest(password).into();
    let stage2: [u8; 32] = Sha256::digest(stage1).into();
    let mask: [u8; 32] = Sha256::new().chain_update(stage2).chain_update(nonce).finalize().into();
    std::array::from_fn(|i| stage1[i] ^ mask[i])
}

/// Undoes the XOR the client applies before RSA encryption (password bytes XOR the nonce,
/// repeated) and strips the terminating NUL. `None` if there is no NUL where it must be.
pub fn unxor_rsa_password(plain: &[u8], nonce: &[u8]) -> Option<Vec<u8>> {
    if nonce.is_empty() {
        return None;
    }
    let mut out: Vec<u8> = plain.iter().zip(nonce.iter().cycle()).map(|(p, n)| p ^ n).collect();
    match out.pop() {
        Some(0) => Some(out),
        _ => None,
    }
}

/// Successful `caching_sha2_password` authentications: stored hash → `SHA256(SHA256(pw))`.
///
/// Keyed by the stored salted hash, so an account whose password changes (new salt, new
/// digest) never matches an old entry: a changed password needs a full authentication again,
/// as after mysqld evicts the account on ALTER USER.
#[derive(Debug, Default)]
pub struct AuthCache {
    entries: Mutex<HashMap<[u8; 32], [u8; 32]>>,
}

impl AuthCache {
    /// The cached fast hash for this stored password, if it authenticated fully before.
    pub fn get(&self, stored: &Sha2Hash) -> Option<[u8; 32]> {
        self.lock().get(&stored.digest).copied()
    }

    /// Remembers a full authentication's fast hash.
    pub fn insert(&self, stored: &Sha2Hash, fast_hash: [u8; 32]) {
        self.lock().insert(stored.digest, fast_hash);
    }

    /// Forgets everything (FLUSH PRIVILEGES).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], [u8; 32]>> {
        // A panic while holding this lock cannot leave the map half-updated (single inserts),
        // so a poisoned lock is still usable.
        self.entries.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scramble_is_seven_bit_without_nul_or_dollar() {
        for _ in 0..200 {
            let s = generate_scramble();
            assert!(s.iter().all(|&b| b != 0 && b != b'$' && b < 0x80));
        }
    }

    #[test]
    fn native_round_trip() {
        let nonce = generate_scramble();
        let stored = native_password_hash(b"secret");
        assert!(verify_native(&nonce, &scramble_native(&nonce, b"secret"), &stored));
        assert!(!verify_native(&nonce, &scramble_native(&nonce, b"Secret"), &stored));
        assert!(!verify_native(&nonce, b"short", &stored));
    }

    #[test]
    fn native_hash_known_value() {
        // mysqld: SELECT PASSWORD('root') = '*81F5E21E35407D884A6CD4A731AEBFB6AF209E1B'.
        let hash = native_password_hash(b"root");
        assert_eq!(native_hash_to_string(&hash), "*81F5E21E35407D884A6CD4A731AEBFB6AF209E1B");
        assert_eq!(native_hash_from_str("*81F5E21E35407D884A6CD4A731AEBFB6AF209E1B"), Ok(hash));
        assert!(native_hash_from_str("81F5").is_err());
    }

    #[test]
    fn sha2_fast_round_trip() {
        let nonce = generate_scramble();
        let cached = sha2_fast_hash(b"pw");
        assert!(verify_sha2_fast(&nonce, &scramble_sha2(&nonce, b"pw"), &cached));
        assert!(!verify_sha2_fast(&nonce, &scramble_sha2(&nonce, b"px"), &cached));
        assert!(!verify_sha2_fast(&nonce, &[1, 2, 3], &cached));
    }

    #[test]
    fn sha2_hash_text_form_round_trips() {
        let h = Sha2Hash::new(b"pw", 10);
        let text = h.to_string();
        let back: Sha2Hash = text.parse().expect("own text form parses");
        assert_eq!(back, h);
        assert!(back.verify(b"pw"));
        assert!(!back.verify(b"pw2"));
        assert!("$binlogd-pbkdf2-sha256$0$00$00".parse::<Sha2Hash>().is_err());
        assert!("garbage".parse::<Sha2Hash>().is_err());
        assert!(!format!("{h:?}").contains(&hex::encode(h.digest)));
    }

    #[test]
    fn rsa_password_unxor() {
        let nonce = b"abcdefghijklmnopqrst";
        let plain: Vec<u8> =
            b"password\0".iter().zip(nonce.iter().cycle()).map(|(p, n)| p ^ n).collect();
        assert_eq!(unxor_rsa_password(&plain, nonce).as_deref(), Some(&b"password"[..]));
        assert_eq!(unxor_rsa_password(b"x", nonce), None);
    }

    #[test]
    fn cache_is_keyed_by_stored_hash() {
        let cache = AuthCache::default();
        let a = Sha2Hash::new(b"pw", 1);
        let b = Sha2Hash::new(b"pw", 1);
        cache.insert(&a, sha2_fast_hash(b"pw"));
        assert!(cache.get(&a).is_some());
        assert!(cache.get(&b).is_none(), "a new salt is a new credential");
        cache.clear();
        assert!(cache.get(&a).is_none());
    }
}
