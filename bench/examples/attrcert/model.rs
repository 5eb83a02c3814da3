//! Seed 002's attribute certificates in DER: RFC 5755's `AttributeCertificate` with the three
//! attributes of the experiment (a Boolean, a prescription after the DOH `EtpPrescribe`
//! structure, an audit record list), built from the XML certificates of `tests/sign/` so that
//! both encodings carry the same content. The ASN.1 is declared with the `der` crate's derives
//! and `x509-cert`'s names; nothing here encodes a byte by hand.
//!
//! ```text
//! EtpPrescribe ::= SEQUENCE { prescriber Prescriber, patient Patient, items SEQUENCE OF Item,
//!                             exemption UTF8String, issued GeneralizedTime }
//! Prescriber   ::= SEQUENCE { code UTF8String, role UTF8String, name PersonName,
//!                             practiceCode UTF8String, practice UTF8String }
//! PersonName   ::= SEQUENCE { title [0] IMPLICIT UTF8String OPTIONAL, given UTF8String,
//!                             family UTF8String }
//! Patient      ::= SEQUENCE { nhsNumber UTF8String, name PersonName, birthDate UTF8String }
//! Item         ::= SEQUENCE { dmd UTF8String, drug UTF8String, quantity INTEGER,
//!                             unit UTF8String, dosage UTF8String }
//! AuditCertificate ::= SEQUENCE OF AuditRecord
//! AuditRecord  ::= SEQUENCE { seq INTEGER, time GeneralizedTime, subject UTF8String,
//!                             operation UTF8String, target UTF8String, outcome UTF8String,
//!                             reason UTF8String }
//! ```

use std::str::FromStr;

use der::asn1::{
    Any, AnyRef, BitString, BitStringRef, ContextSpecific, GeneralizedTime, ObjectIdentifier,
    SetOfVec, UintRef, Utf8StringRef,
};
use der::{Decode, Encode, Reader, Sequence};
use x509_cert::attr::Attribute;
use x509_cert::ext::pkix::name::{GeneralName, GeneralNames};
use x509_cert::name::Name;
use x509_cert::serial_number::SerialNumber;
use x509_cert::spki::{AlgorithmIdentifierOwned, AlgorithmIdentifierRef};

/// RFC 5755 `AttributeCertificate`.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct AttributeCertificate {
    pub acinfo: AttributeCertificateInfo,
    pub signature_algorithm: AlgorithmIdentifierOwned,
    pub signature_value: BitString,
}

/// RFC 5755 `AttributeCertificateInfo` (no issuerUniqueID, no extensions).
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct AttributeCertificateInfo {
    /// v2 (1).
    pub version: u8,
    pub holder: Holder,
    /// `AttCertIssuer`'s `v2Form [0] V2Form`, the form RFC 5755 requires.
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT")]
    pub issuer: V2Form,
    pub signature: AlgorithmIdentifierOwned,
    pub serial_number: SerialNumber,
    pub validity: AttCertValidityPeriod,
    pub attributes: Vec<Attribute>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct Holder {
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    pub base_certificate_id: Option<IssuerSerial>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct IssuerSerial {
    pub issuer: GeneralNames,
    pub serial: SerialNumber,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct V2Form {
    pub issuer_name: GeneralNames,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct AttCertValidityPeriod {
    pub not_before: GeneralizedTime,
    pub not_after: GeneralizedTime,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct EtpPrescribe {
    pub prescriber: Prescriber,
    pub patient: Patient,
    pub items: Vec<Item>,
    pub exemption: String,
    pub issued: GeneralizedTime,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct Prescriber {
    pub code: String,
    pub role: String,
    pub name: PersonName,
    pub practice_code: String,
    pub practice: String,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct PersonName {
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    pub title: Option<String>,
    pub given: String,
    pub family: String,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct Patient {
    pub nhs_number: String,
    pub name: PersonName,
    pub birth_date: String,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct Item {
    pub dmd: String,
    pub drug: String,
    pub quantity: u32,
    pub unit: String,
    pub dosage: String,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct AuditRecord {
    pub seq: u32,
    pub time: GeneralizedTime,
    pub subject: String,
    pub operation: String,
    pub target: String,
    pub outcome: String,
    pub reason: String,
}

/// An attribute's value, decoded: what the recipient reads.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum AttributeValue {
    Allowed(bool),
    Prescription(Box<EtpPrescribe>),
    Audit(Vec<AuditRecord>),
}

/// The attribute types of the experiment (under the seed authors' arc, as in the XML files).
pub const ALLOWED_ACCESS: &str = "1.3.6.1.4.1.7289.1.1";
pub const ETP_PRESCRIBE: &str = "1.3.6.1.4.1.7289.1.2";
pub const AUDIT_CERTIFICATE: &str = "1.3.6.1.4.1.7289.1.3";
/// sha256WithRSAEncryption.
pub const SHA256_WITH_RSA: &str = "1.2.840.113549.1.1.11";

type Error = Box<dyn std::error::Error>;

fn time(s: &str) -> Result<GeneralizedTime, Error> {
    // "YYYY-MM-DDTHH:MM:SSZ", the only form the certificates use.
    let n = |r: std::ops::Range<usize>| -> Result<u16, Error> {
        Ok(s.get(r).ok_or("short time")?.parse()?)
    };
    let dt = der::DateTime::new(
        n(0..4)?,
        n(5..7)? as u8,
        n(8..10)? as u8,
        n(11..13)? as u8,
        n(14..16)? as u8,
        n(17..19)? as u8,
    )?;
    Ok(GeneralizedTime::from_date_time(dt))
}

fn directory_name(s: &str) -> Result<GeneralNames, Error> {
    let rfc4514 = s.split(',').map(str::trim).collect::<Vec<_>>().join(",");
    Ok(vec![GeneralName::DirectoryName(Name::from_str(&rfc4514)?)])
}

fn alg(oid: &str) -> Result<AlgorithmIdentifierOwned, Error> {
    Ok(AlgorithmIdentifierOwned {
        oid: ObjectIdentifier::new(oid)?,
        parameters: Some(Any::null()),
    })
}

fn serial(s: &str) -> Result<SerialNumber, Error> {
    let v: u64 = s.trim().parse()?;
    let bytes = v.to_be_bytes();
    let first = bytes.iter().position(|b| *b != 0).unwrap_or(7);
    Ok(SerialNumber::new(&bytes[first..])?)
}

/// The text of the child element named `name` (in any namespace).
fn child<'a>(n: roxmltree::Node<'a, 'a>, name: &str) -> Result<roxmltree::Node<'a, 'a>, Error> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
        .ok_or_else(|| format!("no <{name}> in <{}>", n.tag_name().name()).into())
}

fn text(n: roxmltree::Node<'_, '_>, name: &str) -> Result<String, Error> {
    Ok(child(n, name)?.text().unwrap_or("").to_string())
}

fn attr(n: roxmltree::Node<'_, '_>, name: &str) -> Result<String, Error> {
    Ok(n.attribute(name)
        .ok_or_else(|| format!("no {name}= on <{}>", n.tag_name().name()))?
        .to_string())
}

fn person(n: roxmltree::Node<'_, '_>) -> Result<PersonName, Error> {
    Ok(PersonName {
        title: child(n, "Title")
            .ok()
            .map(|t| t.text().unwrap_or("").to_string()),
        given: text(n, "Given")?,
        family: text(n, "Family")?,
    })
}

fn value(a: roxmltree::Node<'_, '_>) -> Result<Any, Error> {
    let v = a
        .children()
        .find(|c| c.is_element())
        .ok_or("an attribute without a value")?;
    Ok(match v.tag_name().name() {
        "AllowedAccess" => Any::encode_from(&(v.text() == Some("true")))?,
        "EtpPrescribe" => {
            let p = child(v, "Prescriber")?;
            let pat = child(v, "Patient")?;
            let practice = child(p, "Practice")?;
            let items = v
                .children()
                .filter(|c| c.tag_name().name() == "Item")
                .map(|i| {
                    let q = child(i, "Quantity")?;
                    Ok(Item {
                        dmd: attr(i, "dmd")?,
                        drug: text(i, "Drug")?,
                        quantity: q.text().unwrap_or("").parse()?,
                        unit: attr(q, "unit")?,
                        dosage: text(i, "Dosage")?,
                    })
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Any::encode_from(&EtpPrescribe {
                prescriber: Prescriber {
                    code: attr(p, "code")?,
                    role: attr(p, "role")?,
                    name: person(child(p, "Name")?)?,
                    practice_code: attr(practice, "code")?,
                    practice: practice.text().unwrap_or("").to_string(),
                },
                patient: Patient {
                    nhs_number: attr(pat, "nhsNumber")?,
                    name: person(child(pat, "Name")?)?,
                    birth_date: text(pat, "BirthDate")?,
                },
                items,
                exemption: attr(child(v, "Exemption")?, "code")?,
                issued: time(&text(v, "Issued")?)?,
            })?
        }
        "AuditCertificate" => {
            let records = v
                .children()
                .filter(|c| c.tag_name().name() == "AuditRecord")
                .map(|r| {
                    Ok(AuditRecord {
                        seq: attr(r, "seq")?.parse()?,
                        time: time(&text(r, "Time")?)?,
                        subject: text(r, "Subject")?,
                        operation: text(r, "Operation")?,
                        target: text(r, "Target")?,
                        outcome: text(r, "Outcome")?,
                        reason: text(r, "Reason")?,
                    })
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Any::encode_from(&records)?
        }
        other => return Err(format!("unknown attribute value <{other}>").into()),
    })
}

/// The `AttributeCertificateInfo` holding what the XML certificate `xml` holds.
pub fn from_xml(xml: &str) -> Result<AttributeCertificateInfo, Error> {
    let doc = roxmltree::Document::parse(xml)?;
    let info = child(doc.root_element(), "AttributeCertificateInfo")?;
    let base = child(child(info, "Holder")?, "BaseCertificateID")?;
    let validity = child(info, "AttrCertValidityPeriod")?;
    let issuer = child(child(child(info, "Issuer")?, "V2Form")?, "IssuerName")?;
    let attributes = child(info, "Attributes")?
        .children()
        .filter(|c| c.is_element())
        .map(|a| {
            let mut values = SetOfVec::new();
            values.insert(value(a)?)?;
            Ok(Attribute {
                oid: ObjectIdentifier::new(&attr(a, "type")?)?,
                values,
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(AttributeCertificateInfo {
        version: 1,
        holder: Holder {
            base_certificate_id: Some(IssuerSerial {
                issuer: directory_name(&text(child(base, "Issuer")?, "DirectoryName")?)?,
                serial: serial(&text(base, "Serial")?)?,
            }),
        },
        issuer: V2Form {
            issuer_name: directory_name(&text(issuer, "DirectoryName")?)?,
        },
        signature: alg(&attr(child(info, "Signature")?, "algorithm")?)?,
        serial_number: serial(&text(info, "SerialNumber")?)?,
        validity: AttCertValidityPeriod {
            not_before: time(&text(validity, "NotBeforeTime")?)?,
            not_after: time(&text(validity, "NotAfterTime")?)?,
        },
        attributes,
    })
}

/// The signed certificate: `acinfo`'s DER signed by `sign` (sha256WithRSAEncryption).
pub fn sign(
    acinfo: &AttributeCertificateInfo,
    sign: impl FnOnce(&[u8]) -> Result<Vec<u8>, Error>,
) -> Result<Vec<u8>, Error> {
    let tbs = acinfo.to_der()?;
    let sig = sign(&tbs)?;
    Ok(AttributeCertificate {
        acinfo: acinfo.clone(),
        signature_algorithm: alg(SHA256_WITH_RSA)?,
        signature_value: BitString::from_bytes(&sig)?,
    }
    .to_der()?)
}

/// The recipient's side: decodes a signed certificate, checks its signature over the DER of
/// its `acinfo` with `verify`, and decodes its attribute values.
pub fn verify_and_decode(
    der: &[u8],
    verify: impl FnOnce(&[u8], &[u8]) -> Result<(), Error>,
) -> Result<(AttributeCertificate, Vec<AttributeValue>), Error> {
    // The signed bytes are the acinfo exactly as received, not a re-encoding.
    let mut r = der::SliceReader::new(der)?;
    der::Header::decode(&mut r)?;
    let tbs = r.tlv_bytes()?;
    let ac = AttributeCertificate::from_der(der)?;
    if ac.signature_algorithm.oid != ObjectIdentifier::new(SHA256_WITH_RSA)? {
        return Err("not sha256WithRSAEncryption".into());
    }
    verify(tbs, ac.signature_value.raw_bytes())?;
    let values = decode_values(&ac.acinfo)?;
    Ok((ac, values))
}

/// The attribute values of a certificate, decoded into their types.
pub fn decode_values(acinfo: &AttributeCertificateInfo) -> Result<Vec<AttributeValue>, Error> {
    let mut out = Vec::new();
    for a in &acinfo.attributes {
        for v in a.values.iter() {
            let oid = a.oid.to_string();
            out.push(match oid.as_str() {
                ALLOWED_ACCESS => AttributeValue::Allowed(v.decode_as()?),
                ETP_PRESCRIBE => AttributeValue::Prescription(Box::new(v.decode_as()?)),
                AUDIT_CERTIFICATE => AttributeValue::Audit(v.decode_as()?),
                _ => return Err(format!("unknown attribute type {oid}").into()),
            });
        }
    }
    Ok(out)
}

/// The unsigned certificate's DER (its `AttributeCertificateInfo`) and back.
pub fn encode_unsigned(acinfo: &AttributeCertificateInfo) -> Result<Vec<u8>, Error> {
    Ok(acinfo.to_der()?)
}

pub fn decode_unsigned(
    der: &[u8],
) -> Result<(AttributeCertificateInfo, Vec<AttributeValue>), Error> {
    let info = AttributeCertificateInfo::from_der(der)?;
    let values = decode_values(&info)?;
    Ok((info, values))
}

// The recipient's borrowed view: the same ASN.1, decoded into values that point into the
// received bytes (strings, algorithm parameters, the signature) rather than owned copies, so
// that decoding costs one pass over the DER and a few small vectors. Every field is still read
// and checked: tags, lengths, DER's minimal encodings, UTF-8, SET OF order, and the directory
// strings' types.

/// RFC 5755 `AttributeCertificate`, borrowed.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct AttributeCertificateRef<'a> {
    pub acinfo: AttributeCertificateInfoRef<'a>,
    pub signature_algorithm: AlgorithmIdentifierRef<'a>,
    pub signature_value: BitStringRef<'a>,
}

/// RFC 5755 `AttributeCertificateInfo`, borrowed.
#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct AttributeCertificateInfoRef<'a> {
    pub version: u8,
    pub holder: HolderRef<'a>,
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT")]
    pub issuer: V2FormRef<'a>,
    pub signature: AlgorithmIdentifierRef<'a>,
    pub serial_number: UintRef<'a>,
    pub validity: AttCertValidityPeriod,
    pub attributes: Vec<AttributeRef<'a>>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct HolderRef<'a> {
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    pub base_certificate_id: Option<IssuerSerialRef<'a>>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct IssuerSerialRef<'a> {
    pub issuer: GeneralNamesRef<'a>,
    pub serial: UintRef<'a>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct V2FormRef<'a> {
    pub issuer_name: GeneralNamesRef<'a>,
}

/// `GeneralNames` holding directory names (`[4] Name`, explicit as a CHOICE's tag is), the one
/// form these certificates use; [`check_names`] refuses any other.
pub type GeneralNamesRef<'a> = Vec<ContextSpecific<NameRef<'a>>>;
/// `Name`'s `RDNSequence`.
pub type NameRef<'a> = Vec<SetOfVec<AttributeTypeAndValueRef<'a>>>;

#[derive(Clone, Debug, Eq, PartialEq, PartialOrd, Ord, Sequence, der::ValueOrd)]
pub struct AttributeTypeAndValueRef<'a> {
    pub oid: ObjectIdentifier,
    pub value: AnyRef<'a>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct AttributeRef<'a> {
    pub oid: ObjectIdentifier,
    pub values: SetOfVec<AnyRef<'a>>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct EtpPrescribeRef<'a> {
    pub prescriber: PrescriberRef<'a>,
    pub patient: PatientRef<'a>,
    pub items: Vec<ItemRef<'a>>,
    pub exemption: Utf8StringRef<'a>,
    pub issued: GeneralizedTime,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct PrescriberRef<'a> {
    pub code: Utf8StringRef<'a>,
    pub role: Utf8StringRef<'a>,
    pub name: PersonNameRef<'a>,
    pub practice_code: Utf8StringRef<'a>,
    pub practice: Utf8StringRef<'a>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct PersonNameRef<'a> {
    #[asn1(context_specific = "0", tag_mode = "IMPLICIT", optional = "true")]
    pub title: Option<Utf8StringRef<'a>>,
    pub given: Utf8StringRef<'a>,
    pub family: Utf8StringRef<'a>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct PatientRef<'a> {
    pub nhs_number: Utf8StringRef<'a>,
    pub name: PersonNameRef<'a>,
    pub birth_date: Utf8StringRef<'a>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct ItemRef<'a> {
    pub dmd: Utf8StringRef<'a>,
    pub drug: Utf8StringRef<'a>,
    pub quantity: u32,
    pub unit: Utf8StringRef<'a>,
    pub dosage: Utf8StringRef<'a>,
}

#[derive(Clone, Debug, Eq, PartialEq, Sequence)]
pub struct AuditRecordRef<'a> {
    pub seq: u32,
    pub time: GeneralizedTime,
    pub subject: Utf8StringRef<'a>,
    pub operation: Utf8StringRef<'a>,
    pub target: Utf8StringRef<'a>,
    pub outcome: Utf8StringRef<'a>,
    pub reason: Utf8StringRef<'a>,
}

/// An attribute's value, decoded into borrowed values.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum AttributeValueRef<'a> {
    Allowed(bool),
    Prescription(Box<EtpPrescribeRef<'a>>),
    Audit(Vec<AuditRecordRef<'a>>),
}

impl AttributeValueRef<'_> {
    /// The value's DER, to compare with the owned decoding's.
    pub fn to_der(&self) -> Result<Vec<u8>, Error> {
        Ok(match self {
            AttributeValueRef::Allowed(b) => b.to_der()?,
            AttributeValueRef::Prescription(p) => p.to_der()?,
            AttributeValueRef::Audit(r) => r.to_der()?,
        })
    }
}

impl AttributeValue {
    /// The value's DER.
    pub fn to_der(&self) -> Result<Vec<u8>, Error> {
        Ok(match self {
            AttributeValue::Allowed(b) => b.to_der()?,
            AttributeValue::Prescription(p) => p.to_der()?,
            AttributeValue::Audit(r) => r.to_der()?,
        })
    }
}

/// Checks that each name is a directory name whose attribute values are directory strings
/// (UTF8String or PrintableString, their contents checked).
fn check_names(names: &GeneralNamesRef<'_>) -> Result<(), Error> {
    for n in names {
        if n.tag_number.value() != 4 {
            return Err(format!("a GeneralName [{}] (only directoryName)", n.tag_number).into());
        }
        for rdn in &n.value {
            for atv in rdn.iter() {
                match der::Tagged::tag(&atv.value) {
                    der::Tag::Utf8String => {
                        atv.value.decode_as::<Utf8StringRef<'_>>()?;
                    }
                    der::Tag::PrintableString => {
                        atv.value.decode_as::<der::asn1::PrintableStringRef<'_>>()?;
                    }
                    t => return Err(format!("a name attribute of type {t}").into()),
                }
            }
        }
    }
    Ok(())
}

/// The recipient's side, borrowed: decodes a signed certificate into values pointing into
/// `der`, checks its signature over its `acinfo` as received with `verify`, checks its names,
/// and decodes its attribute values.
pub fn verify_and_decode_ref<'a>(
    der: &'a [u8],
    verify: impl FnOnce(&[u8], &[u8]) -> Result<(), Error>,
) -> Result<(AttributeCertificateRef<'a>, Vec<AttributeValueRef<'a>>), Error> {
    let mut r = der::SliceReader::new(der)?;
    der::Header::decode(&mut r)?;
    let tbs = r.tlv_bytes()?;
    let ac = AttributeCertificateRef::from_der(der)?;
    if ac.signature_algorithm.oid != SHA256_WITH_RSA_OID {
        return Err("not sha256WithRSAEncryption".into());
    }
    let sig = ac
        .signature_value
        .as_bytes()
        .ok_or("a signature with unused bits")?;
    verify(tbs, sig)?;
    let values = decode_values_ref(&ac.acinfo)?;
    Ok((ac, values))
}

/// sha256WithRSAEncryption, as a constant.
const SHA256_WITH_RSA_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.1.11");
const ALLOWED_ACCESS_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.7289.1.1");
const ETP_PRESCRIBE_OID: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.3.6.1.4.1.7289.1.2");
const AUDIT_CERTIFICATE_OID: ObjectIdentifier =
    ObjectIdentifier::new_unwrap("1.3.6.1.4.1.7289.1.3");

/// The attribute values of a certificate, decoded into borrowed values, its names checked.
pub fn decode_values_ref<'a>(
    acinfo: &AttributeCertificateInfoRef<'a>,
) -> Result<Vec<AttributeValueRef<'a>>, Error> {
    if let Some(base) = &acinfo.holder.base_certificate_id {
        check_names(&base.issuer)?;
    }
    check_names(&acinfo.issuer.issuer_name)?;
    let mut out = Vec::with_capacity(acinfo.attributes.len());
    for a in &acinfo.attributes {
        for v in a.values.iter() {
            out.push(match a.oid {
                ALLOWED_ACCESS_OID => AttributeValueRef::Allowed(v.decode_as()?),
                ETP_PRESCRIBE_OID => AttributeValueRef::Prescription(Box::new(v.decode_as()?)),
                AUDIT_CERTIFICATE_OID => AttributeValueRef::Audit(audit_records(v)?),
                oid => return Err(format!("unknown attribute type {oid}").into()),
            });
        }
    }
    Ok(out)
}

/// The audit attribute's `SEQUENCE OF AuditRecord`, decoded with the `der` crate's readers and
/// field decoders as the derived `Vec<AuditRecordRef>` decoding does, and the same checks
/// (`bench/tests/attrcert.rs` compares the two on changed certificates), but one flat reader
/// per record: the derived decoding reads every byte of a record through a chain of nested
/// readers, which made it most of the complex certificate's decoding time.
pub fn audit_records<'a>(value: &AnyRef<'a>) -> der::Result<Vec<AuditRecordRef<'a>>> {
    // A SEQUENCE's contents, the reader moved past it.
    fn sequence<'a>(r: &mut der::SliceReader<'a>) -> der::Result<&'a [u8]> {
        let header = der::Header::decode(r)?;
        header.tag.assert_eq(der::Tag::Sequence)?;
        r.read_slice(header.length)
    }
    der::Tagged::tag(value).assert_eq(der::Tag::Sequence)?;
    let mut list = der::SliceReader::new(value.value())?;
    let mut out = Vec::new();
    while !list.is_finished() {
        let mut r = der::SliceReader::new(sequence(&mut list)?)?;
        let record = AuditRecordRef {
            seq: r.decode()?,
            time: r.decode()?,
            subject: r.decode()?,
            operation: r.decode()?,
            target: r.decode()?,
            outcome: r.decode()?,
            reason: r.decode()?,
        };
        out.push(r.finish(record)?);
    }
    Ok(out)
}

/// The unsigned certificate's DER decoded into borrowed values, names and attribute values
/// checked and decoded.
pub fn decode_unsigned_ref(
    der: &[u8],
) -> Result<(AttributeCertificateInfoRef<'_>, Vec<AttributeValueRef<'_>>), Error> {
    let info = AttributeCertificateInfoRef::from_der(der)?;
    let values = decode_values_ref(&info)?;
    Ok((info, values))
}
