//! CMS SignedData (RFC 5652) over a document's bytes, in any binxml format: the signature
//! binary documents carry, as `openssl cms` makes and checks it.
//!
//! Signing puts the content in the SignedData (enveloping) or leaves it out (detached), with
//! the signer's certificate, a SHA-256 digest (SHA-384 for P-384 keys) and the signed
//! attributes content-type and message-digest, built by RustCrypto's `cms` crate (RSA signed
//! through ring on native targets). Verification takes one signer, checks the
//! message-digest attribute against the content and the signature over the signed attributes
//! (or over the content when there are none).

use cms::builder::{SignedDataBuilder, SignerInfoBuilder};
use cms::cert::{CertificateChoices, IssuerAndSerialNumber};
use cms::content_info::ContentInfo;
use cms::signed_data::{EncapsulatedContentInfo, SignedData, SignerIdentifier};
use const_oid::ObjectIdentifier;
use const_oid::db::{rfc5911, rfc5912};
use x509_cert::der::asn1::OctetString;
use x509_cert::der::{Any, Decode, Encode, Tag};
use x509_cert::spki::AlgorithmIdentifierOwned;

use crate::SignError;
use crate::dsig::{KeySource, VerifyOptions};
use crate::keys::{Certificate, DigestAlg, PrivateKey, PublicKey};

fn der_error(what: &str) -> impl Fn(x509_cert::der::Error) -> SignError + '_ {
    move |e| SignError::malformed(format!("{what}: {e}"))
}

fn fail(e: impl std::fmt::Display) -> SignError {
    SignError::invalid(format!("CMS signing failed: {e}"))
}

fn digest_oid(d: DigestAlg) -> ObjectIdentifier {
    match d {
        DigestAlg::Sha1 => rfc5912::ID_SHA_1,
        DigestAlg::Sha256 => rfc5912::ID_SHA_256,
        DigestAlg::Sha384 => rfc5912::ID_SHA_384,
        DigestAlg::Sha512 => rfc5912::ID_SHA_512,
    }
}

fn digest_of_oid(oid: &ObjectIdentifier) -> Option<DigestAlg> {
    [
        DigestAlg::Sha1,
        DigestAlg::Sha256,
        DigestAlg::Sha384,
        DigestAlg::Sha512,
    ]
    .into_iter()
    .find(|d| digest_oid(*d) == *oid)
}

/// Signs `content` as a CMS SignedData (DER): enveloping, or detached when `detached`. The
/// digest is SHA-256 (SHA-384 with a P-384 key).
pub fn sign_cms(
    content: &[u8],
    key: &PrivateKey,
    cert: &Certificate,
    detached: bool,
) -> Result<Vec<u8>, SignError> {
    if *cert.public_key() != key.public_key() {
        return Err(SignError::malformed(
            "the certificate does not certify the signing key",
        ));
    }
    let x509 = x509_cert::Certificate::from_der(cert.der()).map_err(der_error("certificate"))?;
    let sid = SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
        issuer: x509.tbs_certificate.issuer.clone(),
        serial_number: x509.tbs_certificate.serial_number.clone(),
    });
    // ECDSA over P-384 signs with SHA-384 (the curve's digest, which the `p384` signer uses);
    // the content digest is the same, as verifiers (OpenSSL) take the one digest for both.
    let digest = match key {
        PrivateKey::P384(_) => DigestAlg::Sha384,
        _ => DigestAlg::Sha256,
    };
    let digest_alg = AlgorithmIdentifierOwned {
        oid: digest_oid(digest),
        parameters: None,
    };
    let econtent = if detached {
        None
    } else {
        Some(Any::new(Tag::OctetString, content).map_err(der_error("content"))?)
    };
    let eci = EncapsulatedContentInfo {
        econtent_type: rfc5911::ID_DATA,
        econtent,
    };
    let external = detached.then(|| digest.digest(content));
    let mut builder = SignedDataBuilder::new(&eci);
    builder
        .add_digest_algorithm(digest_alg.clone())
        .map_err(fail)?
        .add_certificate(CertificateChoices::Certificate(x509.clone()))
        .map_err(fail)?;
    match key {
        #[cfg(not(target_arch = "wasm32"))]
        PrivateKey::Rsa(k) => {
            let signer = RingRsaSigner {
                key: k,
                verifying: rsa::pkcs1v15::VerifyingKey::new(k.to_public_key()),
            };
            let info = SignerInfoBuilder::new(&signer, sid, digest_alg, &eci, external.as_deref())
                .map_err(fail)?;
            builder
                .add_signer_info::<_, rsa::pkcs1v15::Signature>(info)
                .map_err(fail)?;
        }
        #[cfg(target_arch = "wasm32")]
        PrivateKey::Rsa(k) => {
            let signer = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new((**k).clone());
            let info = SignerInfoBuilder::new(&signer, sid, digest_alg, &eci, external.as_deref())
                .map_err(fail)?;
            builder
                .add_signer_info::<_, rsa::pkcs1v15::Signature>(info)
                .map_err(fail)?;
        }
        PrivateKey::P256(k) => {
            let signer = p256::ecdsa::SigningKey::from(k);
            let info = SignerInfoBuilder::new(&signer, sid, digest_alg, &eci, external.as_deref())
                .map_err(fail)?;
            builder
                .add_signer_info::<_, p256::ecdsa::DerSignature>(info)
                .map_err(fail)?;
        }
        PrivateKey::P384(k) => {
            let signer = p384::ecdsa::SigningKey::from(k);
            let info = SignerInfoBuilder::new(&signer, sid, digest_alg, &eci, external.as_deref())
                .map_err(fail)?;
            builder
                .add_signer_info::<_, p384::ecdsa::DerSignature>(info)
                .map_err(fail)?;
        }
    }
    builder.build().map_err(fail)?.to_der().map_err(fail)
}

/// RSA PKCS#1 v1.5 with SHA-256 for the `cms` builder, signed through ring (constant-time, and
/// several times faster than the `rsa` crate's private-key operation, RUSTSEC-2023-0071); the
/// builder takes the public key and the algorithm identifier from it as from the `rsa` crate's
/// signer.
#[cfg(not(target_arch = "wasm32"))]
struct RingRsaSigner<'k> {
    key: &'k rsa::RsaPrivateKey,
    verifying: rsa::pkcs1v15::VerifyingKey<sha2::Sha256>,
}

#[cfg(not(target_arch = "wasm32"))]
impl signature::Keypair for RingRsaSigner<'_> {
    type VerifyingKey = rsa::pkcs1v15::VerifyingKey<sha2::Sha256>;
    fn verifying_key(&self) -> Self::VerifyingKey {
        self.verifying.clone()
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl x509_cert::spki::DynSignatureAlgorithmIdentifier for RingRsaSigner<'_> {
    fn signature_algorithm_identifier(&self) -> x509_cert::spki::Result<AlgorithmIdentifierOwned> {
        Ok(AlgorithmIdentifierOwned {
            oid: rfc5912::SHA_256_WITH_RSA_ENCRYPTION,
            parameters: Some(Any::null()),
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl signature::Signer<rsa::pkcs1v15::Signature> for RingRsaSigner<'_> {
    fn try_sign(&self, msg: &[u8]) -> Result<rsa::pkcs1v15::Signature, signature::Error> {
        let sig = crate::keys::ring_rsa_sign(
            self.key,
            crate::keys::RsaPadding::Pkcs1v15,
            DigestAlg::Sha256,
            msg,
        )
        .ok_or_else(signature::Error::new)?;
        rsa::pkcs1v15::Signature::try_from(&sig[..])
    }
}

/// A valid CMS signature.
#[derive(Clone, Debug)]
pub struct CmsVerified {
    /// The signed content (the enveloped content, or the detached content given).
    pub content: Vec<u8>,
    /// The digest of the content.
    pub digest: DigestAlg,
    /// The certificate whose key verified the signature, with [`KeySource::Embedded`].
    pub certificate: Option<Certificate>,
}

/// Whether `der` looks like a CMS ContentInfo (a DER SEQUENCE whose first element is the
/// signed-data object identifier).
pub fn is_cms(der: &[u8]) -> bool {
    ContentInfo::from_der(der).is_ok_and(|ci| ci.content_type == rfc5911::ID_SIGNED_DATA)
}

/// Verifies a CMS SignedData (DER) with one signer; `detached` is the content when the
/// SignedData does not carry it.
pub fn verify_cms(
    der: &[u8],
    detached: Option<&[u8]>,
    key: KeySource<'_>,
    opts: &VerifyOptions,
) -> Result<CmsVerified, SignError> {
    let ci = ContentInfo::from_der(der).map_err(der_error("not a CMS ContentInfo"))?;
    if ci.content_type != rfc5911::ID_SIGNED_DATA {
        return Err(SignError::unsupported(format!(
            "the CMS content type {} (only SignedData)",
            ci.content_type
        )));
    }
    let sd: SignedData = ci
        .content
        .decode_as()
        .map_err(der_error("not a CMS SignedData"))?;
    if sd.encap_content_info.econtent_type != rfc5911::ID_DATA {
        return Err(SignError::unsupported(format!(
            "the encapsulated content type {} (only id-data)",
            sd.encap_content_info.econtent_type
        )));
    }
    let content: Vec<u8> = match (&sd.encap_content_info.econtent, detached) {
        (Some(any), None) => {
            let os: OctetString = any.decode_as().map_err(der_error("the content"))?;
            os.as_bytes().to_vec()
        }
        (None, Some(c)) => c.to_vec(),
        (Some(_), Some(_)) => {
            return Err(SignError::malformed(
                "the SignedData carries its content: no detached content expected",
            ));
        }
        (None, None) => {
            return Err(SignError::malformed(
                "a detached signature: the signed content must be given",
            ));
        }
    };
    let mut signers = sd.signer_infos.0.iter();
    let si = signers
        .next()
        .ok_or_else(|| SignError::malformed("the SignedData has no signer"))?;
    if signers.next().is_some() {
        return Err(SignError::unsupported("a SignedData with several signers"));
    }
    let digest = digest_of_oid(&si.digest_alg.oid).ok_or_else(|| {
        SignError::unsupported(format!("the digest algorithm {}", si.digest_alg.oid))
    })?;
    if digest == DigestAlg::Sha1 && !opts.allow_sha1 {
        return Err(SignError::refused(
            "SHA-1 (collisions are practical); allow it explicitly to accept it",
        ));
    }

    let mut certificate = None;
    let public: PublicKey = match key {
        KeySource::Given(k) => k.clone(),
        KeySource::Embedded => {
            let cert = signer_certificate(&sd, &si.sid)?;
            let k = cert.public_key().clone();
            certificate = Some(cert);
            k
        }
    };

    // What the signature covers: the DER of the signed attributes (as a SET OF), after their
    // message digest is checked against the content; or the content itself.
    let content_digest = digest.digest(&content);
    let signed: Vec<u8> = match &si.signed_attrs {
        Some(attrs) => {
            let mut message_digest = None;
            let mut content_type = None;
            for a in attrs.iter() {
                let mut values = a.values.iter();
                let (Some(v), None) = (values.next(), values.next()) else {
                    return Err(SignError::malformed(format!(
                        "the signed attribute {} has not one value",
                        a.oid
                    )));
                };
                if a.oid == rfc5911::ID_MESSAGE_DIGEST {
                    let os: OctetString = v.decode_as().map_err(der_error("message-digest"))?;
                    message_digest = Some(os.as_bytes().to_vec());
                } else if a.oid == rfc5911::ID_CONTENT_TYPE {
                    let oid: ObjectIdentifier = v.decode_as().map_err(der_error("content-type"))?;
                    content_type = Some(oid);
                }
            }
            if content_type != Some(rfc5911::ID_DATA) {
                return Err(SignError::malformed(
                    "the content-type signed attribute is missing or not id-data",
                ));
            }
            match message_digest {
                Some(d) if d == content_digest => {}
                Some(_) => {
                    return Err(SignError::invalid(
                        "the message digest does not match: the signed content was changed",
                    ));
                }
                None => {
                    return Err(SignError::malformed(
                        "the message-digest signed attribute is missing",
                    ));
                }
            }
            attrs.to_der().map_err(der_error("signed attributes"))?
        }
        None => content.clone(),
    };

    let alg = &si.signature_algorithm.oid;
    let sig_bytes = si.signature.as_bytes();
    let (is_rsa, sig_digest) = if *alg == rfc5912::RSA_ENCRYPTION {
        (true, digest)
    } else if let Some(d) = [
        (rfc5912::SHA_1_WITH_RSA_ENCRYPTION, DigestAlg::Sha1),
        (rfc5912::SHA_256_WITH_RSA_ENCRYPTION, DigestAlg::Sha256),
        (rfc5912::SHA_384_WITH_RSA_ENCRYPTION, DigestAlg::Sha384),
        (rfc5912::SHA_512_WITH_RSA_ENCRYPTION, DigestAlg::Sha512),
    ]
    .iter()
    .find(|(o, _)| o == alg)
    {
        (true, d.1)
    } else if let Some(d) = [
        (rfc5912::ECDSA_WITH_SHA_256, DigestAlg::Sha256),
        (rfc5912::ECDSA_WITH_SHA_384, DigestAlg::Sha384),
        (rfc5912::ECDSA_WITH_SHA_512, DigestAlg::Sha512),
    ]
    .iter()
    .find(|(o, _)| o == alg)
    {
        (false, d.1)
    } else {
        return Err(SignError::unsupported(format!(
            "the signature algorithm {alg}"
        )));
    };
    if sig_digest != digest {
        return Err(SignError::malformed(format!(
            "the signature algorithm {alg} names another digest than the signer's {}",
            digest.name()
        )));
    }
    if sig_digest == DigestAlg::Sha1 && !opts.allow_sha1 {
        return Err(SignError::refused(
            "SHA-1 (collisions are practical); allow it explicitly to accept it",
        ));
    }
    let mismatch = || SignError::invalid("the signature algorithm does not match the key");
    // ECDSA signatures are DER in CMS; the key's check takes r and s concatenated.
    let raw: Vec<u8> = match (&public, is_rsa) {
        (PublicKey::Rsa(_), true) => sig_bytes.to_vec(),
        (PublicKey::P256(_), false) => p256::ecdsa::Signature::from_der(sig_bytes)
            .map_err(|_| SignError::invalid("the ECDSA signature is not DER"))?
            .to_bytes()
            .to_vec(),
        (PublicKey::P384(_), false) => p384::ecdsa::Signature::from_der(sig_bytes)
            .map_err(|_| SignError::invalid("the ECDSA signature is not DER"))?
            .to_bytes()
            .to_vec(),
        _ => return Err(mismatch()),
    };
    public.verify(sig_digest, &signed, &raw)?;
    Ok(CmsVerified {
        content,
        digest,
        certificate,
    })
}

/// The certificate of the SignedData that the signer identifier names.
fn signer_certificate(sd: &SignedData, sid: &SignerIdentifier) -> Result<Certificate, SignError> {
    let certs = sd
        .certificates
        .as_ref()
        .ok_or_else(|| SignError::malformed("no key given and no certificate in the SignedData"))?;
    for choice in certs.0.iter() {
        let CertificateChoices::Certificate(c) = choice else {
            continue;
        };
        let matches = match sid {
            SignerIdentifier::IssuerAndSerialNumber(ias) => {
                c.tbs_certificate.issuer == ias.issuer
                    && c.tbs_certificate.serial_number == ias.serial_number
            }
            SignerIdentifier::SubjectKeyIdentifier(ski) => {
                c.tbs_certificate.extensions.iter().flatten().any(|e| {
                    e.extn_id == rfc5912::ID_CE_SUBJECT_KEY_IDENTIFIER
                        && OctetString::from_der(e.extn_value.as_bytes())
                            .is_ok_and(|v| v.as_bytes() == ski.0.as_bytes())
                })
            }
        };
        if matches {
            let der = c.to_der().map_err(der_error("certificate"))?;
            return Certificate::from_der(&der);
        }
    }
    Err(SignError::malformed(
        "the signer's certificate is not in the SignedData",
    ))
}
