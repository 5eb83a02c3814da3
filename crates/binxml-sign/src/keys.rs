//! Keys and certificates from PEM, and the signature primitives XML Signature names: RSA
//! PKCS#1 v1.5, RSA-PSS (RFC 8017, with MGF1 over the same digest and a salt as long as the
//! digest) and ECDSA over P-256 or P-384, each with a SHA-1 or SHA-2 digest. The cryptography is
//! RustCrypto's (`rsa`, `p256`, `p384`, `sha1`, `sha2`, `x509-cert`) and, for RSA on native
//! targets, ring's.

use p256::ecdsa::signature::hazmat::{PrehashSigner, PrehashVerifier};
use rsa::pkcs1::DecodeRsaPrivateKey;
use rsa::pkcs8::{DecodePrivateKey, DecodePublicKey};
use rsa::traits::PublicKeyParts;
use sha2::Digest as _;
use x509_cert::der::{Decode, Encode};

use crate::SignError;

/// A message digest algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DigestAlg {
    /// SHA-1: broken for collisions; accepted by verification only when allowed.
    Sha1,
    /// SHA-256.
    Sha256,
    /// SHA-384.
    Sha384,
    /// SHA-512.
    Sha512,
}

impl DigestAlg {
    /// The digest of `data`.
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        match self {
            DigestAlg::Sha1 => sha1::Sha1::digest(data).to_vec(),
            DigestAlg::Sha256 => sha2::Sha256::digest(data).to_vec(),
            DigestAlg::Sha384 => sha2::Sha384::digest(data).to_vec(),
            DigestAlg::Sha512 => sha2::Sha512::digest(data).to_vec(),
        }
    }

    /// Its name in messages and on the command line (`sha256`).
    pub fn name(self) -> &'static str {
        match self {
            DigestAlg::Sha1 => "sha1",
            DigestAlg::Sha256 => "sha256",
            DigestAlg::Sha384 => "sha384",
            DigestAlg::Sha512 => "sha512",
        }
    }

    /// The algorithm named `sha1`, `sha256`, `sha384` or `sha512`.
    pub fn from_name(name: &str) -> Option<DigestAlg> {
        Some(match name.to_ascii_lowercase().replace('-', "").as_str() {
            "sha1" => DigestAlg::Sha1,
            "sha256" => DigestAlg::Sha256,
            "sha384" => DigestAlg::Sha384,
            "sha512" => DigestAlg::Sha512,
            _ => return None,
        })
    }

    /// ring's RSA PKCS#1 v1.5 verification for this digest (SHA-1 stays with the `rsa` crate:
    /// ring accepts it only for keys of 2048 bits or more, a rule the verifier applies itself).
    #[cfg(not(target_arch = "wasm32"))]
    fn ring_rsa(self) -> Option<&'static ring::signature::RsaParameters> {
        match self {
            DigestAlg::Sha1 => None,
            DigestAlg::Sha256 => Some(&ring::signature::RSA_PKCS1_2048_8192_SHA256),
            DigestAlg::Sha384 => Some(&ring::signature::RSA_PKCS1_2048_8192_SHA384),
            DigestAlg::Sha512 => Some(&ring::signature::RSA_PKCS1_2048_8192_SHA512),
        }
    }

    fn rsa_scheme(self) -> rsa::Pkcs1v15Sign {
        match self {
            DigestAlg::Sha1 => rsa::Pkcs1v15Sign::new::<sha1::Sha1>(),
            DigestAlg::Sha256 => rsa::Pkcs1v15Sign::new::<sha2::Sha256>(),
            DigestAlg::Sha384 => rsa::Pkcs1v15Sign::new::<sha2::Sha384>(),
            DigestAlg::Sha512 => rsa::Pkcs1v15Sign::new::<sha2::Sha512>(),
        }
    }
}

/// The padding of an RSA signature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RsaPadding {
    /// PKCS#1 v1.5 (RSASSA-PKCS1-v1_5), deterministic.
    #[default]
    Pkcs1v15,
    /// RSASSA-PSS with MGF1 over the signature's digest and a salt as long as that digest (the
    /// parameters RFC 6931's `...#sha256-rsa-MGF1` URIs imply); randomized. SHA-2 only.
    Pss,
}

/// The kind of a key: what signature algorithm it makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// RSA, signing with PKCS#1 v1.5.
    Rsa,
    /// ECDSA over NIST P-256.
    P256,
    /// ECDSA over NIST P-384.
    P384,
}

/// A private key.
#[derive(Clone)]
pub enum PrivateKey {
    /// An RSA key.
    Rsa(Box<rsa::RsaPrivateKey>),
    /// A P-256 key.
    P256(p256::SecretKey),
    /// A P-384 key.
    P384(p384::SecretKey),
}

/// A public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PublicKey {
    /// An RSA key.
    Rsa(rsa::RsaPublicKey),
    /// A P-256 key.
    P256(p256::PublicKey),
    /// A P-384 key.
    P384(p384::PublicKey),
}

/// RSA keys shorter than this are refused (NIST SP 800-131A).
pub const MIN_RSA_BITS: usize = 2048;

fn check_rsa_size(bits: usize) -> Result<(), SignError> {
    if bits < MIN_RSA_BITS {
        return Err(SignError::refused(format!(
            "an RSA key of {bits} bits (at least {MIN_RSA_BITS} required)"
        )));
    }
    Ok(())
}

impl PrivateKey {
    /// A private key from its PKCS#8 DER (`PrivateKeyInfo`).
    pub fn from_pkcs8_der(der: &[u8]) -> Result<PrivateKey, SignError> {
        use pkcs8::DecodePrivateKey;
        let key = if let Ok(k) = rsa::RsaPrivateKey::from_pkcs8_der(der) {
            check_rsa_size(k.size() * 8)?;
            PrivateKey::Rsa(Box::new(k))
        } else if let Ok(k) = p256::SecretKey::from_pkcs8_der(der) {
            PrivateKey::P256(k)
        } else if let Ok(k) = p384::SecretKey::from_pkcs8_der(der) {
            PrivateKey::P384(k)
        } else {
            return Err(SignError::malformed(
                "not an RSA, P-256 or P-384 private key (PKCS#8)",
            ));
        };
        Ok(key)
    }

    /// A private key from PEM: PKCS#8 (`PRIVATE KEY`), PKCS#1 (`RSA PRIVATE KEY`) or SEC1
    /// (`EC PRIVATE KEY`); encrypted keys are not read.
    pub fn from_pem(pem: &str) -> Result<PrivateKey, SignError> {
        let key = if let Ok(k) = rsa::RsaPrivateKey::from_pkcs8_pem(pem) {
            PrivateKey::Rsa(Box::new(k))
        } else if let Ok(k) = rsa::RsaPrivateKey::from_pkcs1_pem(pem) {
            PrivateKey::Rsa(Box::new(k))
        } else if let Ok(k) = p256::SecretKey::from_pkcs8_pem(pem) {
            PrivateKey::P256(k)
        } else if let Ok(k) = p384::SecretKey::from_pkcs8_pem(pem) {
            PrivateKey::P384(k)
        } else if let Ok(k) = p256::SecretKey::from_sec1_pem(pem) {
            PrivateKey::P256(k)
        } else if let Ok(k) = p384::SecretKey::from_sec1_pem(pem) {
            PrivateKey::P384(k)
        } else {
            return Err(SignError::malformed(
                "not an unencrypted RSA, P-256 or P-384 private key in PEM (PKCS#8, PKCS#1 or SEC1)",
            ));
        };
        if let PrivateKey::Rsa(k) = &key {
            check_rsa_size(k.size() * 8)?;
        }
        Ok(key)
    }

    /// The matching public key.
    pub fn public_key(&self) -> PublicKey {
        match self {
            PrivateKey::Rsa(k) => PublicKey::Rsa(k.to_public_key()),
            PrivateKey::P256(k) => PublicKey::P256(k.public_key()),
            PrivateKey::P384(k) => PublicKey::P384(k.public_key()),
        }
    }

    /// The kind of key.
    pub fn key_type(&self) -> KeyType {
        match self {
            PrivateKey::Rsa(_) => KeyType::Rsa,
            PrivateKey::P256(_) => KeyType::P256,
            PrivateKey::P384(_) => KeyType::P384,
        }
    }

    /// Signs the digest of `data`: an RSA PKCS#1 v1.5 signature, or an ECDSA signature as the
    /// concatenation of r and s (the form XML Signature uses, RFC 4051).
    pub fn sign(&self, digest: DigestAlg, data: &[u8]) -> Result<Vec<u8>, SignError> {
        self.sign_with(RsaPadding::Pkcs1v15, digest, data)
    }

    /// Signs the digest of `data` as [`PrivateKey::sign`] does, an RSA key with the given
    /// padding; RSA-PSS is refused for other keys and, where ring does not build (WebAssembly),
    /// at all.
    pub fn sign_with(
        &self,
        padding: RsaPadding,
        digest: DigestAlg,
        data: &[u8],
    ) -> Result<Vec<u8>, SignError> {
        let fail = |e: &dyn std::fmt::Display| SignError::invalid(format!("signing failed: {e}"));
        if padding == RsaPadding::Pss {
            let PrivateKey::Rsa(k) = self else {
                return Err(SignError::malformed("RSA-PSS needs an RSA key"));
            };
            if digest == DigestAlg::Sha1 {
                return Err(SignError::unsupported("RSA-PSS with SHA-1"));
            }
            #[cfg(not(target_arch = "wasm32"))]
            return ring_rsa_sign(k, padding, digest, data)
                .ok_or_else(|| fail(&"ring refused the RSA key"));
            #[cfg(target_arch = "wasm32")]
            {
                let _ = (k, fail);
                return Err(SignError::unsupported(
                    "RSA-PSS signing in the WebAssembly build",
                ));
            }
        }
        let hash = digest.digest(data);
        match self {
            PrivateKey::Rsa(k) => {
                #[cfg(not(target_arch = "wasm32"))]
                if let Some(sig) = ring_rsa_sign(k, padding, digest, data) {
                    return Ok(sig);
                }
                k.sign(digest.rsa_scheme(), &hash).map_err(|e| fail(&e))
            }
            PrivateKey::P256(k) => {
                let sk = p256::ecdsa::SigningKey::from(k);
                let sig: p256::ecdsa::Signature = sk.sign_prehash(&hash).map_err(|e| fail(&e))?;
                Ok(sig.to_bytes().to_vec())
            }
            PrivateKey::P384(k) => {
                let sk = p384::ecdsa::SigningKey::from(k);
                let sig: p384::ecdsa::Signature = sk.sign_prehash(&hash).map_err(|e| fail(&e))?;
                Ok(sig.to_bytes().to_vec())
            }
        }
    }
}

/// RSA signing through ring, where it builds: several times faster than the `rsa` crate's, and
/// constant-time (the `rsa` crate's private-key operation has a timing side channel,
/// RUSTSEC-2023-0071). `None` when ring does not take the key or the digest (SHA-1): the caller
/// falls back to the `rsa` crate (PKCS#1 v1.5) or fails (PSS).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn ring_rsa_sign(
    key: &rsa::RsaPrivateKey,
    padding: RsaPadding,
    digest: DigestAlg,
    data: &[u8],
) -> Option<Vec<u8>> {
    use ring::signature as rs;
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let alg: &'static dyn rs::RsaEncoding = match (padding, digest) {
        (_, DigestAlg::Sha1) => return None,
        (RsaPadding::Pkcs1v15, DigestAlg::Sha256) => &rs::RSA_PKCS1_SHA256,
        (RsaPadding::Pkcs1v15, DigestAlg::Sha384) => &rs::RSA_PKCS1_SHA384,
        (RsaPadding::Pkcs1v15, DigestAlg::Sha512) => &rs::RSA_PKCS1_SHA512,
        (RsaPadding::Pss, DigestAlg::Sha256) => &rs::RSA_PSS_SHA256,
        (RsaPadding::Pss, DigestAlg::Sha384) => &rs::RSA_PSS_SHA384,
        (RsaPadding::Pss, DigestAlg::Sha512) => &rs::RSA_PSS_SHA512,
    };
    let der = key.to_pkcs1_der().ok()?;
    let pair = ring::signature::RsaKeyPair::from_der(der.as_bytes()).ok()?;
    let mut sig = vec![0; pair.public().modulus_len()];
    pair.sign(alg, &ring::rand::SystemRandom::new(), data, &mut sig)
        .ok()?;
    Some(sig)
}

impl PublicKey {
    /// A public key from a PEM `PUBLIC KEY` (SubjectPublicKeyInfo).
    pub fn from_pem(pem: &str) -> Result<PublicKey, SignError> {
        let key = if let Ok(k) = rsa::RsaPublicKey::from_public_key_pem(pem) {
            PublicKey::Rsa(k)
        } else if let Ok(k) = p256::PublicKey::from_public_key_pem(pem) {
            PublicKey::P256(k)
        } else if let Ok(k) = p384::PublicKey::from_public_key_pem(pem) {
            PublicKey::P384(k)
        } else {
            return Err(SignError::malformed(
                "not an RSA, P-256 or P-384 public key in PEM (SubjectPublicKeyInfo)",
            ));
        };
        key.check()?;
        Ok(key)
    }

    /// A public key from a DER SubjectPublicKeyInfo.
    pub fn from_spki_der(der: &[u8]) -> Result<PublicKey, SignError> {
        let key = if let Ok(k) = rsa::RsaPublicKey::from_public_key_der(der) {
            PublicKey::Rsa(k)
        } else if let Ok(k) = p256::PublicKey::from_public_key_der(der) {
            PublicKey::P256(k)
        } else if let Ok(k) = p384::PublicKey::from_public_key_der(der) {
            PublicKey::P384(k)
        } else {
            return Err(SignError::unsupported(
                "the certificate's key is not RSA, P-256 or P-384",
            ));
        };
        key.check()?;
        Ok(key)
    }

    fn check(&self) -> Result<(), SignError> {
        match self {
            PublicKey::Rsa(k) => check_rsa_size(k.size() * 8),
            _ => Ok(()),
        }
    }

    /// The kind of key.
    pub fn key_type(&self) -> KeyType {
        match self {
            PublicKey::Rsa(_) => KeyType::Rsa,
            PublicKey::P256(_) => KeyType::P256,
            PublicKey::P384(_) => KeyType::P384,
        }
    }

    /// Checks `signature` over the digest of `data` (its form as [`PrivateKey::sign`] makes it).
    pub fn verify(
        &self,
        digest: DigestAlg,
        data: &[u8],
        signature: &[u8],
    ) -> Result<(), SignError> {
        self.verify_with(RsaPadding::Pkcs1v15, digest, data, signature)
    }

    /// Checks `signature` over the digest of `data` as [`PublicKey::verify`] does, an RSA key
    /// with the given padding (RSA-PSS: salt as long as the digest, MGF1 over the same digest).
    pub fn verify_with(
        &self,
        padding: RsaPadding,
        digest: DigestAlg,
        data: &[u8],
        signature: &[u8],
    ) -> Result<(), SignError> {
        let bad =
            || SignError::invalid("the signature value does not match SignedInfo and the key");
        if padding == RsaPadding::Pss {
            let PublicKey::Rsa(k) = self else {
                return Err(SignError::invalid("RSA-PSS needs an RSA key"));
            };
            return rsa_pss_verify(k, digest, data, signature).map_err(|_| bad());
        }
        #[cfg(not(target_arch = "wasm32"))]
        if let (PublicKey::Rsa(k), Some(alg)) = (self, digest.ring_rsa()) {
            use rsa::traits::PublicKeyParts;
            let (n, e) = (k.n().to_bytes_be(), k.e().to_bytes_be());
            return ring::signature::RsaPublicKeyComponents { n: &n, e: &e }
                .verify(alg, data, signature)
                .map_err(|_| bad());
        }
        let hash = digest.digest(data);
        match self {
            PublicKey::Rsa(k) => k
                .verify(digest.rsa_scheme(), &hash, signature)
                .map_err(|_| bad()),
            PublicKey::P256(k) => {
                let sig = p256::ecdsa::Signature::from_slice(signature).map_err(|_| bad())?;
                p256::ecdsa::VerifyingKey::from(k)
                    .verify_prehash(&hash, &sig)
                    .map_err(|_| bad())
            }
            PublicKey::P384(k) => {
                let sig = p384::ecdsa::Signature::from_slice(signature).map_err(|_| bad())?;
                p384::ecdsa::VerifyingKey::from(k)
                    .verify_prehash(&hash, &sig)
                    .map_err(|_| bad())
            }
        }
    }
}

/// RSA-PSS verification: ring's on native targets, the `rsa` crate's in WebAssembly. The salt
/// length is fixed to the digest's, as RFC 6931's URIs without parameters have it.
fn rsa_pss_verify(
    k: &rsa::RsaPublicKey,
    digest: DigestAlg,
    data: &[u8],
    signature: &[u8],
) -> Result<(), ()> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        use ring::signature as rs;
        let alg = match digest {
            DigestAlg::Sha1 => return Err(()),
            DigestAlg::Sha256 => &rs::RSA_PSS_2048_8192_SHA256,
            DigestAlg::Sha384 => &rs::RSA_PSS_2048_8192_SHA384,
            DigestAlg::Sha512 => &rs::RSA_PSS_2048_8192_SHA512,
        };
        let (n, e) = (k.n().to_bytes_be(), k.e().to_bytes_be());
        rs::RsaPublicKeyComponents { n: &n, e: &e }
            .verify(alg, data, signature)
            .map_err(|_| ())
    }
    #[cfg(target_arch = "wasm32")]
    {
        let hash = digest.digest(data);
        let scheme = match digest {
            DigestAlg::Sha1 => return Err(()),
            DigestAlg::Sha256 => rsa::Pss::new_with_salt::<sha2::Sha256>(32),
            DigestAlg::Sha384 => rsa::Pss::new_with_salt::<sha2::Sha384>(48),
            DigestAlg::Sha512 => rsa::Pss::new_with_salt::<sha2::Sha512>(64),
        };
        k.verify(scheme, &hash, signature).map_err(|_| ())
    }
}

/// An X.509 certificate: its DER, its subject and its public key.
#[derive(Clone, Debug)]
pub struct Certificate {
    der: Vec<u8>,
    subject: String,
    key: PublicKey,
}

impl Certificate {
    /// The first certificate of a PEM file.
    pub fn from_pem(pem: &[u8]) -> Result<Certificate, SignError> {
        let chain = x509_cert::Certificate::load_pem_chain(pem)
            .map_err(|e| SignError::malformed(format!("not a PEM certificate: {e}")))?;
        let first = chain
            .into_iter()
            .next()
            .ok_or_else(|| SignError::malformed("no certificate in the PEM file"))?;
        let der = first
            .to_der()
            .map_err(|e| SignError::malformed(format!("certificate: {e}")))?;
        Certificate::from_der(&der)
    }

    /// A certificate from its DER.
    pub fn from_der(der: &[u8]) -> Result<Certificate, SignError> {
        let cert = x509_cert::Certificate::from_der(der)
            .map_err(|e| SignError::malformed(format!("not a DER certificate: {e}")))?;
        let spki = cert
            .tbs_certificate
            .subject_public_key_info
            .to_der()
            .map_err(|e| SignError::malformed(format!("certificate key: {e}")))?;
        Ok(Certificate {
            der: der.to_vec(),
            subject: cert.tbs_certificate.subject.to_string(),
            key: PublicKey::from_spki_der(&spki)?,
        })
    }

    /// The certificate's DER encoding.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// The subject's distinguished name (RFC 4514 form).
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The certified public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.key
    }
}
