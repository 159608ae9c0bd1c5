//! The server's key material, made on the first start and loaded after that, with mysqld's
//! file names (its `auto_generate_certs` and `caching_sha2_password_auto_generate_rsa_keys`):
//!
//! | file | holds |
//! |---|---|
//! | `ca.pem`, `ca-key.pem` | a self-signed CA certificate and its key |
//! | `server-cert.pem`, `server-key.pem` | the TLS certificate (signed by the CA; names localhost, 127.0.0.1 and ::1) and its key |
//! | `private_key.pem`, `public_key.pem` | the RSA key pair for `caching_sha2_password`'s key exchange |
//!
//! Certificates use ECDSA P-256 keys, which rcgen makes quickly with `ring`; the key exchange
//! needs RSA (clients encrypt with RSA-OAEP), 2048 bits as mysqld's default. Private keys are
//! written with mode 0600. Files are written to a temporary name and renamed, so a crash during
//! the first start never leaves half a key behind.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair, KeyUsagePurpose};
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::pkcs8::{DecodePrivateKey, EncodePublicKey, LineEnding};
use rsa::{Oaep, RsaPrivateKey};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::error::{Error, Result};

/// RSA modulus size for the `caching_sha2_password` key pair.
pub const RSA_BITS: usize = 2048;

const CA_CERT: &str = "ca.pem";
const CA_KEY: &str = "ca-key.pem";
const SERVER_CERT: &str = "server-cert.pem";
const SERVER_KEY: &str = "server-key.pem";
const RSA_PRIVATE: &str = "private_key.pem";
const RSA_PUBLIC: &str = "public_key.pem";

/// TLS configuration and the RSA key pair, ready for connections.
pub struct ServerKeys {
    /// Acceptor for clients that send an SSLRequest.
    pub tls: tokio_rustls::TlsAcceptor,
    rsa_private: RsaPrivateKey,
    rsa_public_pem: String,
    /// The TLS context's `Ssl_*` status (certificate validity, suites, handshake counters).
    pub tls_context: crate::tls_status::TlsContext,
}

impl ServerKeys {
    /// Loads the key files from `dir`, making whatever is missing first.
    pub fn load_or_create(dir: &Path) -> Result<Self> {
        fs::create_dir_all(dir)?;
        if !dir.join(SERVER_CERT).exists() || !dir.join(SERVER_KEY).exists() {
            create_certificates(dir)?;
        }
        if !dir.join(RSA_PRIVATE).exists() || !dir.join(RSA_PUBLIC).exists() {
            create_rsa_pair(dir)?;
        }
        Self::load(dir)
    }

    /// Loads existing key files from `dir`.
    pub fn load(dir: &Path) -> Result<Self> {
        let mut chain = Vec::new();
        for name in [SERVER_CERT, CA_CERT] {
            let path = dir.join(name);
            if name == CA_CERT && !path.exists() {
                continue;
            }
            let pem = fs::read(&path)?;
            let cert = CertificateDer::from_pem_slice(&pem)
                .map_err(|e| Error::tls(format!("reading {}", path.display()), e))?;
            chain.push(cert);
        }
        let key_path = dir.join(SERVER_KEY);
        let key = PrivateKeyDer::from_pem_slice(&fs::read(&key_path)?)
            .map_err(|e| Error::tls(format!("reading {}", key_path.display()), e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let suites: Vec<_> = provider.cipher_suites.iter().map(|s| s.suite()).collect();
        // rustls' default server session cache (`ServerSessionMemoryCache::new(256)`).
        let server_cert = chain.first().map(|c| c.as_ref()).unwrap_or_default();
        let tls_context = crate::tls_status::TlsContext::new(server_cert, &suites, 256);
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::tls("TLS protocol versions", e))?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| Error::tls("TLS certificate and key", e))?;

        let rsa_path = dir.join(RSA_PRIVATE);
        let rsa_pem = fs::read_to_string(&rsa_path)?;
        // mysqld writes PKCS#1 ("RSA PRIVATE KEY"); accept PKCS#8 too.
        let rsa_private = RsaPrivateKey::from_pkcs1_pem(&rsa_pem)
            .or_else(|_| RsaPrivateKey::from_pkcs8_pem(&rsa_pem))
            .map_err(|e| Error::tls(format!("reading {}", rsa_path.display()), e))?;
        let rsa_public_pem = rsa_private
            .to_public_key()
            .to_public_key_pem(LineEnding::LF)
            .map_err(|e| Error::tls("encoding the RSA public key", e))?;
        Ok(Self {
            tls: tokio_rustls::TlsAcceptor::from(Arc::new(config)),
            rsa_private,
            rsa_public_pem,
            tls_context,
        })
    }

    /// The RSA public key in PEM (`BEGIN PUBLIC KEY`), as sent to clients that ask for it.
    pub fn rsa_public_pem(&self) -> &str {
        &self.rsa_public_pem
    }

    /// Decrypts an RSA-OAEP (SHA-1, as OpenSSL's `RSA_PKCS1_OAEP_PADDING`) ciphertext.
    pub fn rsa_decrypt(&self, ciphertext: &[u8]) -> Option<Vec<u8>> {
        self.rsa_private.decrypt(Oaep::new::<sha1::Sha1>(), ciphertext).ok()
    }
}

fn create_certificates(dir: &Path) -> Result<()> {
    let err = |what: &str| {
        let what = what.to_string();
        move |e: rcgen::Error| Error::tls(what, e)
    };
    let ca_key = KeyPair::generate().map_err(err("generating the CA key"))?;
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(err("CA params"))?;
    ca_params.distinguished_name.push(DnType::CommonName, "binlogd_Auto_Generated_CA_Certificate");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca_params.self_signed(&ca_key).map_err(err("signing the CA certificate"))?;

    let server_key = KeyPair::generate().map_err(err("generating the server key"))?;
    let names = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
    let mut params = CertificateParams::new(names).map_err(err("server params"))?;
    params.distinguished_name.push(DnType::CommonName, "binlogd_Auto_Generated_Server_Certificate");
    let server_cert = params
        .signed_by(&server_key, &ca_cert, &ca_key)
        .map_err(err("signing the server certificate"))?;

    write_file(dir, CA_KEY, ca_key.serialize_pem().as_bytes(), true)?;
    write_file(dir, CA_CERT, ca_cert.pem().as_bytes(), false)?;
    write_file(dir, SERVER_KEY, server_key.serialize_pem().as_bytes(), true)?;
    write_file(dir, SERVER_CERT, server_cert.pem().as_bytes(), false)?;
    Ok(())
}

fn create_rsa_pair(dir: &Path) -> Result<()> {
    let private = RsaPrivateKey::new(&mut rsa::rand_core::OsRng, RSA_BITS)
        .map_err(|e| Error::tls("generating the RSA key pair", e))?;
    let private_pem = private
        .to_pkcs1_pem(LineEnding::LF)
        .map_err(|e| Error::tls("encoding the RSA private key", e))?;
    let public_pem = private
        .to_public_key()
        .to_public_key_pem(LineEnding::LF)
        .map_err(|e| Error::tls("encoding the RSA public key", e))?;
    write_file(dir, RSA_PRIVATE, private_pem.as_bytes(), true)?;
    write_file(dir, RSA_PUBLIC, public_pem.as_bytes(), false)?;
    Ok(())
}

fn write_file(dir: &Path, name: &str, contents: &[u8], secret: bool) -> Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(if secret { 0o600 } else { 0o644 })
        .open(&tmp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    fs::rename(&tmp, dir.join(name))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_once_then_loaded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = ServerKeys::load_or_create(dir.path()).expect("create");
        for name in [CA_CERT, CA_KEY, SERVER_CERT, SERVER_KEY, RSA_PRIVATE, RSA_PUBLIC] {
            assert!(dir.path().join(name).exists(), "{name}");
        }
        let cert_before = fs::read(dir.path().join(SERVER_CERT)).expect("read");
        let second = ServerKeys::load_or_create(dir.path()).expect("load");
        assert_eq!(fs::read(dir.path().join(SERVER_CERT)).expect("read"), cert_before);
        assert_eq!(first.rsa_public_pem(), second.rsa_public_pem());
        assert!(second.rsa_public_pem().starts_with("-----BEGIN PUBLIC KEY-----"));

        let public = first.rsa_private.to_public_key();
        let ct = public
            .encrypt(&mut rsa::rand_core::OsRng, Oaep::new::<sha1::Sha1>(), b"hi\0")
            .expect("encrypt");
        assert_eq!(second.rsa_decrypt(&ct).as_deref(), Some(&b"hi\0"[..]));
        assert_eq!(second.rsa_decrypt(b"garbage"), None);
    }
}
