//! Keys and certificates from a PKCS#12 file (RFC 7292, `.p12` / `.pfx`), as OpenSSL 3 and
//! current Windows write them: the integrity MAC checked (HMAC-SHA-256 or HMAC-SHA-1 with the
//! PKCS#12 key derivation), shrouded key bags and encrypted safe contents decrypted with PBES2
//! (PBKDF2 and AES-CBC). The legacy password-based ciphers (RC2, 3DES, RC4 of PKCS#12's own
//! PBE) are refused by name. The structures are RustCrypto's `pkcs12` and `cms`, the
//! decryption `pkcs8`/`pkcs5`'s; nothing is decrypted by hand here.

use cms::content_info::ContentInfo;
use cms::encrypted_data::EncryptedData;
use der::asn1::OctetString;
use der::{Decode, Encode, Header, Reader, SliceReader};
use hmac::{Hmac, Mac};

use crate::SignError;
use crate::keys::{Certificate, PrivateKey};

const ID_DATA: der::asn1::ObjectIdentifier = const_oid::db::rfc5911::ID_DATA;
const ID_ENCRYPTED_DATA: der::asn1::ObjectIdentifier = const_oid::db::rfc5911::ID_ENCRYPTED_DATA;
const ID_SHA1: der::asn1::ObjectIdentifier = const_oid::db::rfc5912::ID_SHA_1;
const ID_SHA256: der::asn1::ObjectIdentifier = const_oid::db::rfc5912::ID_SHA_256;
/// A file larger than this is not a key file.
const MAX_PKCS12: usize = 1 << 20;

fn bad(what: impl std::fmt::Display) -> SignError {
    SignError::malformed(format!("PKCS#12: {what}"))
}

/// The content of a `[0] EXPLICIT` wrapper (a bag's value), as DER.
fn explicit_inner(tlv: &[u8]) -> Result<&[u8], SignError> {
    let mut r = SliceReader::new(tlv).map_err(bad)?;
    let header = Header::decode(&mut r).map_err(bad)?;
    let bag_tag = der::Tag::ContextSpecific {
        constructed: true,
        number: der::TagNumber::N0,
    };
    if header.tag != bag_tag {
        return Err(bad("a bag value without its [0] tag"));
    }
    r.tlv_bytes().map_err(bad)
}

/// The octets of an `id-data` content.
fn data_octets(ci: &ContentInfo) -> Result<Vec<u8>, SignError> {
    if ci.content_type != ID_DATA {
        return Err(bad(format!(
            "content type {} where data was expected",
            ci.content_type
        )));
    }
    Ok(ci
        .content
        .decode_as::<OctetString>()
        .map_err(bad)?
        .into_bytes())
}

/// Checks the integrity MAC over the authenticated safe's octets.
fn check_mac(
    mac: &pkcs12::mac_data::MacData,
    data: &[u8],
    password: &str,
) -> Result<(), SignError> {
    let iterations = mac.iterations;
    if !(1..=10_000_000).contains(&iterations) {
        return Err(bad("a MAC iteration count out of range"));
    }
    let salt = mac.mac_salt.as_bytes();
    let expected = mac.mac.digest.as_bytes();
    let ok = match mac.mac.algorithm.oid {
        ID_SHA256 => {
            let key = pkcs12::kdf::derive_key_utf8::<sha2::Sha256>(
                password,
                salt,
                pkcs12::kdf::Pkcs12KeyType::Mac,
                iterations,
                32,
            )
            .map_err(bad)?;
            let mut h = Hmac::<sha2::Sha256>::new_from_slice(&key).map_err(bad)?;
            h.update(data);
            h.verify_slice(expected).is_ok()
        }
        ID_SHA1 => {
            let key = pkcs12::kdf::derive_key_utf8::<sha1::Sha1>(
                password,
                salt,
                pkcs12::kdf::Pkcs12KeyType::Mac,
                iterations,
                20,
            )
            .map_err(bad)?;
            let mut h = Hmac::<sha1::Sha1>::new_from_slice(&key).map_err(bad)?;
            h.update(data);
            h.verify_slice(expected).is_ok()
        }
        other => {
            return Err(SignError::unsupported(format!(
                "the PKCS#12 MAC digest {other}"
            )));
        }
    };
    if !ok {
        return Err(SignError::refused(
            "PKCS#12: the MAC does not match: wrong password, or the file was changed",
        ));
    }
    Ok(())
}

/// Decrypts PBES2 ciphertext (the only scheme read).
fn pbes2_decrypt(
    alg: &x509_cert::spki::AlgorithmIdentifierOwned,
    ciphertext: &[u8],
    password: &str,
) -> Result<Vec<u8>, SignError> {
    let der = alg.to_der().map_err(bad)?;
    let scheme = pkcs5::EncryptionScheme::from_der(&der).map_err(|_| {
        SignError::unsupported(format!(
            "the PKCS#12 encryption {} (only PBES2 with PBKDF2 and AES is read; re-export without -legacy)",
            alg.oid
        ))
    })?;
    if !matches!(scheme, pkcs5::EncryptionScheme::Pbes2(_)) {
        return Err(SignError::unsupported(format!(
            "the PKCS#12 encryption {} (only PBES2 is read; re-export without -legacy)",
            alg.oid
        )));
    }
    scheme
        .decrypt(password, ciphertext)
        .map_err(|_| SignError::refused("PKCS#12: cannot decrypt: wrong password"))
}

/// The private key and the certificates of a PKCS#12 file (DER), the first certificate being
/// the one that certifies the key when there is one.
pub fn read_pkcs12(
    der: &[u8],
    password: &str,
) -> Result<(PrivateKey, Vec<Certificate>), SignError> {
    if der.len() > MAX_PKCS12 {
        return Err(bad("larger than a key file can be"));
    }
    let pfx = pkcs12::pfx::Pfx::from_der(der).map_err(bad)?;
    let safe = data_octets(&pfx.auth_safe)?;
    match &pfx.mac_data {
        Some(mac) => check_mac(mac, &safe, password)?,
        None => {
            return Err(bad(
                "no integrity MAC (public-key integrity mode is not read)",
            ));
        }
    }
    let contents: Vec<ContentInfo> = Vec::from_der(&safe).map_err(bad)?;
    let mut keys = Vec::new();
    let mut certs = Vec::new();
    for ci in &contents {
        let bags_der = if ci.content_type == ID_DATA {
            data_octets(ci)?
        } else if ci.content_type == ID_ENCRYPTED_DATA {
            let ed: EncryptedData = ci.content.decode_as().map_err(bad)?;
            let ct = ed
                .enc_content_info
                .encrypted_content
                .as_ref()
                .ok_or_else(|| bad("encrypted data without its content"))?;
            pbes2_decrypt(
                &ed.enc_content_info.content_enc_alg,
                ct.as_bytes(),
                password,
            )?
        } else {
            return Err(bad(format!("content type {}", ci.content_type)));
        };
        let bags: pkcs12::safe_bag::SafeContents = Vec::from_der(&bags_der).map_err(bad)?;
        for bag in &bags {
            let inner = explicit_inner(&bag.bag_value)?;
            match bag.bag_id {
                pkcs12::PKCS_12_PKCS8_KEY_BAG_OID => {
                    let epki = pkcs8::EncryptedPrivateKeyInfo::try_from(inner).map_err(|_| {
                        SignError::unsupported(
                            "the PKCS#12 key encryption (only PBES2 with PBKDF2 and AES is read; re-export without -legacy)",
                        )
                    })?;
                    if !matches!(epki.encryption_algorithm, pkcs5::EncryptionScheme::Pbes2(_)) {
                        return Err(SignError::unsupported(
                            "the PKCS#12 key encryption PBES1 (only PBES2 is read)",
                        ));
                    }
                    let plain = epki.decrypt(password).map_err(|_| {
                        SignError::refused("PKCS#12: cannot decrypt the key: wrong password")
                    })?;
                    keys.push(PrivateKey::from_pkcs8_der(plain.as_bytes())?);
                }
                pkcs12::PKCS_12_KEY_BAG_OID => keys.push(PrivateKey::from_pkcs8_der(inner)?),
                pkcs12::PKCS_12_CERT_BAG_OID => {
                    let cb = pkcs12::cert_type::CertBag::from_der(inner).map_err(bad)?;
                    if cb.cert_id == pkcs12::PKCS_12_X509_CERT_OID {
                        certs.push(Certificate::from_der(cb.cert_value.as_bytes())?);
                    }
                }
                _ => {} // CRLs, secrets: not needed to sign.
            }
        }
    }
    let mut keys = keys.into_iter();
    let key = keys.next().ok_or_else(|| bad("no private key"))?;
    if keys.next().is_some() {
        return Err(bad(
            "more than one private key (which one signs would be a guess)",
        ));
    }
    // The key's own certificate first.
    let public = key.public_key();
    certs.sort_by_key(|c| *c.public_key() != public);
    Ok((key, certs))
}
