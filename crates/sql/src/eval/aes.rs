//! AES_ENCRYPT / AES_DECRYPT under mysqld's default `block_encryption_mode`, aes-128-ecb
//! (mysys/my_aes.cc and my_aes_openssl.cc: `my_aes_create_key`, `my_aes_encrypt`,
//! `my_aes_decrypt`).
//!
//! Why the block cipher comes from RustCrypto's `aes`: it is the maintained implementation of
//! the same family as the md-5/sha1/sha2 crates already used; ECB and PKCS#7 padding are a
//! few lines over it.
//!
//! Invariants (as mysqld):
//! - the key is folded into 16 bytes: a zeroed buffer XORed with every key byte at position
//!   `i % 16`, so a longer key wraps and a shorter one is zero-padded (`my_aes_create_key`);
//! - encryption always pads (PKCS#7, 1 to 16 bytes), so the result is
//!   `16 * (len / 16 + 1)` bytes;
//! - decryption of a text whose length is not a multiple of 16, or whose last block's padding
//!   is not valid PKCS#7, is NULL (`my_aes_decrypt` fails, `Item_func_aes_decrypt` answers
//!   NULL).
//!
//! The session variable `block_encryption_mode` is not settable here (the other modes need an
//! initialization vector); a third argument is ignored with warning 1618, as mysqld does in
//! an ECB mode.

use aes::cipher::generic_array::GenericArray;
use aes::cipher::{BlockDecrypt, BlockEncrypt, KeyInit};
use aes::Aes128;

const BLOCK: usize = 16;

/// `my_aes_create_key` for a 128-bit key.
fn cipher(key: &[u8]) -> Aes128 {
    let mut folded = [0u8; BLOCK];
    for (i, b) in key.iter().enumerate() {
        folded[i % BLOCK] ^= b;
    }
    Aes128::new(&GenericArray::from(folded))
}

/// AES-128-ECB with PKCS#7 padding of `data` under the folded `key`.
pub(crate) fn encrypt(data: &[u8], key: &[u8]) -> Vec<u8> {
    let c = cipher(key);
    let pad = BLOCK - data.len() % BLOCK;
    let mut out = Vec::with_capacity(data.len() + pad);
    out.extend_from_slice(data);
    out.resize(data.len() + pad, pad as u8);
    for block in out.chunks_exact_mut(BLOCK) {
        c.encrypt_block(GenericArray::from_mut_slice(block));
    }
    out
}

/// The inverse of [`encrypt`]; None where mysqld's decryption fails (see the module doc).
pub(crate) fn decrypt(data: &[u8], key: &[u8]) -> Option<Vec<u8>> {
    if data.is_empty() || !data.len().is_multiple_of(BLOCK) {
        return None;
    }
    let c = cipher(key);
    let mut out = data.to_vec();
    for block in out.chunks_exact_mut(BLOCK) {
        c.decrypt_block(GenericArray::from_mut_slice(block));
    }
    let pad = usize::from(*out.last()?);
    if pad == 0 || pad > BLOCK || !out[out.len() - pad..].iter().all(|b| usize::from(*b) == pad) {
        return None;
    }
    out.truncate(out.len() - pad);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mysql_known_ciphertexts() {
        // `openssl enc -aes-128-ecb -K 70617373776f72640000000000000000` of 'text': the key
        // 'password' zero-padded to 16 bytes, PKCS#7 padding.
        assert_eq!(
            hex::encode_upper(encrypt(b"text", b"password")),
            "F6BD0FA8DCB7F8CD4A2FAABC54668044"
        );
        // An empty text is one block of padding.
        assert_eq!(encrypt(b"", b"k").len(), 16);
        assert_eq!(encrypt(&[7u8; 16], b"k").len(), 32);
    }

    #[test]
    fn round_trips_and_refuses_bad_input() {
        for text in [&b""[..], b"a", b"exactly sixteen!", b"a longer text that spans blocks"] {
            for key in [&b""[..], b"k", b"a key longer than sixteen bytes wraps"] {
                assert_eq!(decrypt(&encrypt(text, key), key).as_deref(), Some(text));
            }
        }
        assert_eq!(decrypt(b"short", b"k"), None);
        assert_eq!(decrypt(b"", b"k"), None);
        // The wrong key leaves padding that is (almost always) invalid.
        assert_eq!(decrypt(&encrypt(b"secret", b"right"), b"wrong"), None);
    }

    #[test]
    fn key_folding_wraps() {
        // A 17-byte key folds its 17th byte into the first: the same as the 16-byte key whose
        // first byte is the XOR of both.
        let mut k17 = [b'a'; 17];
        k17[16] = b'b';
        let mut k16 = [b'a'; 16];
        k16[0] = b'a' ^ b'b';
        assert_eq!(encrypt(b"x", &k17), encrypt(b"x", &k16));
    }
}
