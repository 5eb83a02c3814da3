//! XML Signature (<https://www.w3.org/TR/xmldsig-core1/>): enveloped, enveloping and detached
//! signatures, made and checked over a document's events.
//!
//! A signature made here has one `Reference`: `URI=""` (the whole document) or `URI="#id"` (the
//! element whose `Id`, `ID`, `id` or `xml:id` attribute is `id`), with the transforms
//! enveloped-signature then a canonicalization, and sits as the last child of the signed
//! element; or, detached ([`sign_detached`]), a relative URI naming a separate file whose
//! octets are digested as they are, the `ds:Signature` being a document of its own.
//!
//! Verification accepts what such signatures and other implementations' enveloped signatures
//! use, and refuses the rest before any digest is computed: references other than same-document
//! ones (external URIs, XPointer) except the one of a detached signature whose data the caller
//! gives, transforms other than enveloped-signature and the
//! canonicalizations (XSLT, XPath, Base64), more than [`VerifyOptions::max_references`]
//! references, an id that more than one element carries, elements in the `Signature` other than
//! `SignedInfo`, `SignatureValue` and `KeyInfo` (an `Object` is where wrapping attacks hide the
//! content the application reads), more than one `Signature` in the document, HMAC, SHA-1 unless
//! allowed, RSA keys under 2048 bits; and, unless told otherwise, a signature whose references
//! do not cover the document element.

use binxml_core::{Event, QName, XML_NS, base64};

use crate::SignError;
use crate::c14n::{self, C14n, Method, Subset, canonicalize_subset};
use crate::keys::{Certificate, DigestAlg, KeyType, PrivateKey, PublicKey, RsaPadding};

/// The XML Signature namespace.
pub const DSIG_NS: &str = "http://www.w3.org/2000/09/xmldsig#";
/// The enveloped-signature transform.
pub const ENVELOPED: &str = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";
/// The namespace of exclusive canonicalization's `InclusiveNamespaces` element.
const EXC_NS: &str = "http://www.w3.org/2001/10/xml-exc-c14n#";

/// The URI of a digest method.
pub fn digest_uri(d: DigestAlg) -> &'static str {
    match d {
        DigestAlg::Sha1 => "http://www.w3.org/2000/09/xmldsig#sha1",
        DigestAlg::Sha256 => "http://www.w3.org/2001/04/xmlenc#sha256",
        DigestAlg::Sha384 => "http://www.w3.org/2001/04/xmldsig-more#sha384",
        DigestAlg::Sha512 => "http://www.w3.org/2001/04/xmlenc#sha512",
    }
}

pub(crate) fn parse_digest_uri(uri: &str) -> Option<DigestAlg> {
    [
        DigestAlg::Sha1,
        DigestAlg::Sha256,
        DigestAlg::Sha384,
        DigestAlg::Sha512,
    ]
    .into_iter()
    .find(|d| digest_uri(*d) == uri)
}

/// The family of a signature method: which keys can check it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignatureFamily {
    /// RSA PKCS#1 v1.5.
    Rsa,
    /// RSA-PSS (RFC 6931's `...#sha256-rsa-MGF1` and its SHA-384 and SHA-512 siblings).
    RsaPss,
    /// ECDSA (P-256 or P-384 key).
    Ecdsa,
}

/// The URI of the signature method a key of `key` type makes with digest `d`.
pub fn signature_uri(key: KeyType, d: DigestAlg) -> &'static str {
    match (key, d) {
        (KeyType::Rsa, DigestAlg::Sha1) => "http://www.w3.org/2000/09/xmldsig#rsa-sha1",
        (KeyType::Rsa, DigestAlg::Sha256) => "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
        (KeyType::Rsa, DigestAlg::Sha384) => "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384",
        (KeyType::Rsa, DigestAlg::Sha512) => "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512",
        (_, DigestAlg::Sha1) => "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha1",
        (_, DigestAlg::Sha256) => "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256",
        (_, DigestAlg::Sha384) => "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384",
        (_, DigestAlg::Sha512) => "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha512",
    }
}

/// The URI of the RSA-PSS signature method with digest `d` (RFC 6931 section 2.3.10: MGF1 over
/// the same digest, a salt as long as the digest); `None` for SHA-1, which is not offered.
pub fn pss_signature_uri(d: DigestAlg) -> Option<&'static str> {
    match d {
        DigestAlg::Sha1 => None,
        DigestAlg::Sha256 => Some("http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1"),
        DigestAlg::Sha384 => Some("http://www.w3.org/2007/05/xmldsig-more#sha384-rsa-MGF1"),
        DigestAlg::Sha512 => Some("http://www.w3.org/2007/05/xmldsig-more#sha512-rsa-MGF1"),
    }
}

pub(crate) fn parse_signature_uri(uri: &str) -> Result<(SignatureFamily, DigestAlg), SignError> {
    for d in [
        DigestAlg::Sha1,
        DigestAlg::Sha256,
        DigestAlg::Sha384,
        DigestAlg::Sha512,
    ] {
        if signature_uri(KeyType::Rsa, d) == uri {
            return Ok((SignatureFamily::Rsa, d));
        }
        if signature_uri(KeyType::P256, d) == uri {
            return Ok((SignatureFamily::Ecdsa, d));
        }
        if pss_signature_uri(d) == Some(uri) {
            return Ok((SignatureFamily::RsaPss, d));
        }
    }
    if uri.contains("hmac") {
        return Err(SignError::refused(format!(
            "the signature method {uri}: HMAC (a shared secret, and HMACOutputLength truncation) is not accepted"
        )));
    }
    Err(SignError::unsupported(format!(
        "the signature method {uri}"
    )))
}

/// What a signature's reference points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The whole document (`URI=""`); the signature goes in the document element.
    Document,
    /// The element with this id (`URI="#id"`); the signature goes in it.
    Id(String),
    /// An enveloping signature: the document element goes into a `ds:Object` with this id
    /// inside the `ds:Signature`, which becomes the document element (`URI="#id"`).
    Enveloping(String),
}

/// How to sign.
#[derive(Clone, Debug)]
pub struct SignOptions {
    /// The canonicalization of `SignedInfo` and of the referenced content.
    pub c14n: C14n,
    /// The digest of the reference and of the signature.
    pub digest: DigestAlg,
    /// What is signed ([`sign_detached`] does not use it: its target is the file it is given).
    pub target: Target,
    /// The padding of an RSA signature (PKCS#1 v1.5 unless told; PSS needs an RSA key).
    pub rsa_padding: RsaPadding,
}

impl Default for SignOptions {
    /// Exclusive canonicalization without comments, SHA-256, the whole document.
    fn default() -> Self {
        SignOptions {
            c14n: C14n::from_uri(c14n::EXC_C14N).unwrap(),
            digest: DigestAlg::Sha256,
            target: Target::Document,
            rsa_padding: RsaPadding::Pkcs1v15,
        }
    }
}

/// The elements of a document's events: where each starts and ends and its parent.
pub(crate) struct Tree {
    /// Per element: the index of its `StartElement`, of its `EndElement`, and its parent's
    /// number in this list.
    pub(crate) nodes: Vec<(usize, usize, Option<usize>)>,
}

impl Tree {
    pub(crate) fn new(events: &[Event<'_>]) -> Result<Tree, SignError> {
        let mut nodes = Vec::new();
        let mut open: Vec<usize> = Vec::new();
        for (i, ev) in events.iter().enumerate() {
            match ev {
                Event::StartElement(_) => {
                    nodes.push((i, usize::MAX, open.last().copied()));
                    open.push(nodes.len() - 1);
                }
                Event::EndElement => {
                    let n = open
                        .pop()
                        .ok_or_else(|| SignError::malformed("an element end without its start"))?;
                    nodes[n].1 = i;
                }
                Event::EntityReference { name, .. } => {
                    return Err(SignError::unsupported(format!(
                        "the entity reference &{name}; was not expanded"
                    )));
                }
                _ => {}
            }
        }
        if !open.is_empty() || nodes.is_empty() {
            return Err(SignError::malformed("the events do not form a document"));
        }
        Ok(Tree { nodes })
    }

    /// The element children of node `n`.
    pub(crate) fn children(&self, n: usize) -> impl Iterator<Item = usize> + '_ {
        let end = self.nodes[n].1;
        let mut k = n + 1;
        std::iter::from_fn(move || {
            if k < self.nodes.len() && self.nodes[k].0 < end {
                let c = k;
                let c_end = self.nodes[c].1;
                while k < self.nodes.len() && self.nodes[k].0 < c_end {
                    k += 1;
                }
                Some(c)
            } else {
                None
            }
        })
    }

    pub(crate) fn is_inside(&self, n: usize, ancestor: usize) -> bool {
        let mut p = Some(n);
        while let Some(x) = p {
            if x == ancestor {
                return true;
            }
            p = self.nodes[x].2;
        }
        false
    }
}

pub(crate) fn name<'e>(events: &'e [Event<'_>], start: usize) -> &'e QName<'e> {
    match &events[start] {
        Event::StartElement(q) => q,
        _ => unreachable!("a Tree node starts at a StartElement"),
    }
}

pub(crate) fn is_dsig(events: &[Event<'_>], start: usize, local: &str) -> bool {
    let q = name(events, start);
    q.namespace == DSIG_NS && q.local == local
}

/// The value of the attribute in no namespace called `local` of the element at `start`.
pub(crate) fn attr<'e>(events: &'e [Event<'_>], start: usize, local: &str) -> Option<&'e str> {
    attrs(events, start)
        .find_map(|(q, v)| (q.namespace.is_empty() && q.local == local).then_some(v))
}

fn attrs<'e>(
    events: &'e [Event<'_>],
    start: usize,
) -> impl Iterator<Item = (&'e QName<'e>, &'e str)> {
    events[start + 1..]
        .iter()
        .take_while(|e| matches!(e, Event::Namespace { .. } | Event::Attribute { .. }))
        .filter_map(|e| match e {
            Event::Attribute { name, value } => Some((name, value.as_ref())),
            _ => None,
        })
}

/// The ids of an element: the values of its `Id`, `ID`, `id` and `xml:id` attributes (every
/// one of them, so that an element cannot hide a duplicate id behind another id attribute).
fn element_ids<'e>(events: &'e [Event<'_>], start: usize) -> impl Iterator<Item = &'e str> {
    attrs(events, start).filter_map(|(q, v)| {
        let is_id = (q.namespace.is_empty() && matches!(q.local.as_ref(), "Id" | "ID" | "id"))
            || (q.namespace == XML_NS && q.local == "id");
        is_id.then_some(v)
    })
}

/// The element with id `id`: refused when none or several elements carry it.
pub(crate) fn find_id(events: &[Event<'_>], tree: &Tree, id: &str) -> Result<usize, SignError> {
    let mut found = None;
    for (n, node) in tree.nodes.iter().enumerate() {
        if element_ids(events, node.0).any(|v| v == id) {
            if found.is_some() {
                return Err(SignError::refused(format!(
                    "the id {id:?} is carried by more than one element (signature wrapping)"
                )));
            }
            found = Some(n);
        }
    }
    found.ok_or_else(|| SignError::refused(format!("no element has the id {id:?}")))
}

/// The text content of node `n` (its character children), refusing element children.
pub(crate) fn text_of(events: &[Event<'_>], tree: &Tree, n: usize) -> Result<String, SignError> {
    let (start, end, _) = tree.nodes[n];
    let mut s = String::new();
    for ev in &events[start + 1..end] {
        match ev {
            Event::Characters { text, .. } => s.push_str(text),
            Event::Typed(t) => t.write_lexical(&mut s),
            Event::Namespace { .. } | Event::Attribute { .. } | Event::Comment(_) => {}
            _ => {
                return Err(SignError::malformed(format!(
                    "{} has content other than text",
                    name(events, start).qualified()
                )));
            }
        }
    }
    Ok(s)
}

/// Refuses non-white-space text directly in node `n` (the signature's structure elements hold
/// elements only).
pub(crate) fn only_elements(events: &[Event<'_>], tree: &Tree, n: usize) -> Result<(), SignError> {
    let (start, end, _) = tree.nodes[n];
    let mut depth = 0usize;
    for ev in &events[start + 1..end] {
        match ev {
            Event::StartElement(_) => depth += 1,
            Event::EndElement => depth -= 1,
            Event::Characters { text, .. }
                if depth == 0
                    && !text
                        .bytes()
                        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) =>
            {
                return Err(SignError::malformed(format!(
                    "text in {}",
                    name(events, start).qualified()
                )));
            }
            Event::Typed(_) if depth == 0 => {
                return Err(SignError::malformed(format!(
                    "a value in {}",
                    name(events, start).qualified()
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

pub(crate) fn dsig_start<'a>(local: &'static str) -> Event<'a> {
    Event::StartElement(QName::new("ds", DSIG_NS, local))
}

pub(crate) fn algorithm<'a>(uri: &'a str) -> Event<'a> {
    Event::Attribute {
        name: QName::local("Algorithm"),
        value: uri.into(),
    }
}

/// An empty `ds:<local> Algorithm="uri"` element.
fn method_element(out: &mut Vec<Event<'static>>, local: &'static str, uri: &'static str) {
    out.push(dsig_start(local));
    out.push(algorithm(uri));
    out.push(Event::EndElement);
}

/// The URI of the signature method `opts` asks of `key`.
fn signature_method_uri(key: &PrivateKey, opts: &SignOptions) -> Result<&'static str, SignError> {
    match (opts.rsa_padding, key.key_type()) {
        (RsaPadding::Pkcs1v15, t) => Ok(signature_uri(t, opts.digest)),
        (RsaPadding::Pss, KeyType::Rsa) => pss_signature_uri(opts.digest)
            .ok_or_else(|| SignError::unsupported("RSA-PSS with SHA-1")),
        (RsaPadding::Pss, _) => Err(SignError::malformed("RSA-PSS needs an RSA key")),
    }
}

pub(crate) fn check_cert(key: &PrivateKey, cert: Option<&Certificate>) -> Result<(), SignError> {
    if let Some(cert) = cert
        && *cert.public_key() != key.public_key()
    {
        return Err(SignError::malformed(
            "the certificate does not certify the signing key",
        ));
    }
    Ok(())
}

/// A `ds:Signature` still open (its `Object`, if any, and its end to come), with the places of
/// what signing fills in.
struct Template {
    events: Vec<Event<'static>>,
    signed_info: usize,
    digest_value: usize,
    signature_value: usize,
}

/// The start of a `ds:Signature` with one reference to `uri` through `transforms`, and the
/// certificate in `KeyInfo` when given.
fn template(
    key: &PrivateKey,
    cert: Option<&Certificate>,
    opts: &SignOptions,
    uri: String,
    transforms: &[&'static str],
) -> Result<Template, SignError> {
    let mut sig: Vec<Event<'static>> = Vec::with_capacity(40);
    sig.push(dsig_start("Signature"));
    sig.push(Event::Namespace {
        prefix: "ds".into(),
        uri: DSIG_NS.into(),
    });
    let signed_info = sig.len();
    sig.push(dsig_start("SignedInfo"));
    method_element(&mut sig, "CanonicalizationMethod", opts.c14n.uri());
    method_element(
        &mut sig,
        "SignatureMethod",
        signature_method_uri(key, opts)?,
    );
    sig.push(dsig_start("Reference"));
    sig.push(Event::Attribute {
        name: QName::local("URI"),
        value: uri.into(),
    });
    if !transforms.is_empty() {
        sig.push(dsig_start("Transforms"));
        for t in transforms {
            method_element(&mut sig, "Transform", t);
        }
        sig.push(Event::EndElement);
    }
    method_element(&mut sig, "DigestMethod", digest_uri(opts.digest));
    sig.push(dsig_start("DigestValue"));
    let digest_value = sig.len();
    sig.push(Event::text(""));
    sig.push(Event::EndElement);
    sig.push(Event::EndElement); // Reference
    sig.push(Event::EndElement); // SignedInfo
    sig.push(dsig_start("SignatureValue"));
    let signature_value = sig.len();
    sig.push(Event::text(""));
    sig.push(Event::EndElement);
    if let Some(cert) = cert {
        sig.push(dsig_start("KeyInfo"));
        sig.push(dsig_start("X509Data"));
        sig.push(dsig_start("X509Certificate"));
        sig.push(Event::text(base64::encode(cert.der())));
        sig.push(Event::EndElement);
        sig.push(Event::EndElement);
        sig.push(Event::EndElement);
    }
    Ok(Template {
        events: sig,
        signed_info,
        digest_value,
        signature_value,
    })
}

/// Fills in the signature value of the signature whose `SignedInfo` starts at `signed_info`.
fn sign_signed_info(
    doc: &mut [Event<'static>],
    signed_info: usize,
    signature_value: usize,
    key: &PrivateKey,
    opts: &SignOptions,
) -> Result<(), SignError> {
    let info = canonicalize_subset(
        doc,
        &Subset {
            apex: Some(signed_info),
            exclude: &[],
        },
        &opts.c14n,
    )?;
    let value = key.sign_with(opts.rsa_padding, opts.digest, &info)?;
    doc[signature_value] = Event::text(base64::encode(&value));
    Ok(())
}

/// Refuses a detached reference's URI that is empty, a same-document reference, or not a
/// plain URI reference (white space, control characters, characters URIs escape).
fn check_detached_uri(uri: &str) -> Result<(), SignError> {
    if uri.is_empty() || uri.starts_with('#') {
        return Err(SignError::malformed(format!(
            "{uri:?} is a same-document reference, not a detached one"
        )));
    }
    if let Some(c) = uri
        .chars()
        .find(|c| c.is_control() || c.is_whitespace() || "\"<>\\^`{|}".contains(*c))
    {
        return Err(SignError::malformed(format!(
            "the reference URI {uri:?} holds {c:?} (escape it as %XX)"
        )));
    }
    Ok(())
}

/// Signs `data`, the octets of a separate file, with a detached signature: returns the events
/// of a document whose element is a `ds:Signature` with one `Reference` to `uri` (a relative
/// URI naming the file, as xmlsec1 resolves it against the signature's location) without
/// transforms, so that its digest is that of `data` exactly. `opts.target` is not used.
pub fn sign_detached(
    data: &[u8],
    uri: &str,
    key: &PrivateKey,
    cert: Option<&Certificate>,
    opts: &SignOptions,
) -> Result<Vec<Event<'static>>, SignError> {
    check_cert(key, cert)?;
    check_detached_uri(uri)?;
    let t = template(key, cert, opts, uri.to_string(), &[])?;
    let mut doc = Vec::with_capacity(t.events.len() + 3);
    doc.push(Event::start_document());
    doc.extend(t.events);
    doc.push(Event::EndElement);
    doc.push(Event::EndDocument);
    doc[1 + t.digest_value] = Event::text(base64::encode(&opts.digest.digest(data)));
    sign_signed_info(
        &mut doc,
        1 + t.signed_info,
        1 + t.signature_value,
        key,
        opts,
    )?;
    Ok(doc)
}

/// Signs a document's events: returns them with a `ds:Signature` as the last child of the
/// signed element (the document element, or the element with the target id).
pub fn sign_events(
    events: &[Event<'_>],
    key: &PrivateKey,
    cert: Option<&Certificate>,
    opts: &SignOptions,
) -> Result<Vec<Event<'static>>, SignError> {
    check_cert(key, cert)?;
    let tree = Tree::new(events)?;
    let (signed, uri) = match &opts.target {
        Target::Document => (0, String::new()),
        Target::Id(id) => (find_id(events, &tree, id)?, format!("#{id}")),
        Target::Enveloping(id) => {
            if tree
                .nodes
                .iter()
                .any(|n| element_ids(events, n.0).any(|v| v == id))
            {
                return Err(SignError::malformed(format!(
                    "the id {id:?} of the ds:Object is already in the document"
                )));
            }
            (0, format!("#{id}"))
        }
    };
    let enveloping = matches!(opts.target, Target::Enveloping(_));
    // Enveloped: the signature goes before the end of the signed element. Enveloping: it
    // takes the document element's place, holding it in its ds:Object.
    let (root_start, root_end, _) = tree.nodes[0];
    let insert_at = if enveloping {
        root_start
    } else {
        tree.nodes[signed].1
    };
    let c14n_transform = opts.c14n.clone().with_comments(false).uri();
    let transforms: &[&'static str] = if enveloping {
        &[c14n_transform]
    } else {
        &[ENVELOPED, c14n_transform]
    };
    let Template {
        events: mut sig,
        signed_info,
        digest_value,
        signature_value,
    } = template(key, cert, opts, uri, transforms)?;
    let object = sig.len();
    if let Target::Enveloping(id) = &opts.target {
        sig.push(dsig_start("Object"));
        sig.push(Event::Attribute {
            name: QName::local("Id"),
            value: id.clone().into(),
        });
        sig.extend(
            events[root_start..=root_end]
                .iter()
                .map(|e| e.clone().into_owned()),
        );
        sig.push(Event::EndElement);
    }
    sig.push(Event::EndElement); // Signature

    let resume = if enveloping { root_end + 1 } else { insert_at };
    let mut doc: Vec<Event<'static>> = Vec::with_capacity(events.len() + sig.len());
    doc.extend(events[..insert_at].iter().map(|e| e.clone().into_owned()));
    doc.extend(sig);
    doc.extend(events[resume..].iter().map(|e| e.clone().into_owned()));

    // The reference's digest: the signed content without the signature (enveloped-signature)
    // and without comments (a same-document reference drops them).
    let reference_c14n = opts.c14n.clone().with_comments(false);
    let (apex, exclude) = match opts.target {
        Target::Document => (None, insert_at),
        Target::Id(_) => (Some(tree.nodes[signed].0), insert_at),
        // Nothing of the signature is inside the ds:Object: nothing to exclude.
        Target::Enveloping(_) => (Some(insert_at + object), usize::MAX),
    };
    let content = canonicalize_subset(
        &doc,
        &Subset {
            apex,
            exclude: &[exclude],
        },
        &reference_c14n,
    )?;
    doc[insert_at + digest_value] = Event::text(base64::encode(&opts.digest.digest(&content)));
    sign_signed_info(
        &mut doc,
        insert_at + signed_info,
        insert_at + signature_value,
        key,
        opts,
    )?;
    Ok(doc)
}

/// Signs an XML document: parses it with binxml-xml, signs its events ([`sign_events`]) and
/// writes them back as XML.
pub fn sign_xml(
    xml: &[u8],
    key: &PrivateKey,
    cert: Option<&Certificate>,
    opts: &SignOptions,
) -> Result<Vec<u8>, SignError> {
    let events = binxml_xml::decode(xml)?;
    let signed = sign_events(&events, key, cert, opts)?;
    Ok(binxml_xml::encode(&signed)?)
}

/// What verification accepts.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Accept SHA-1 digests and signature methods.
    pub allow_sha1: bool,
    /// The most references a signature may have.
    pub max_references: usize,
    /// Require a reference to the whole document or to the document element; without it, the
    /// caller must look at [`Verified::references`] to learn what is signed.
    pub require_document_element: bool,
}

impl Default for VerifyOptions {
    /// No SHA-1, at most 4 references, the document element covered.
    fn default() -> Self {
        VerifyOptions {
            allow_sha1: false,
            max_references: 4,
            require_document_element: true,
        }
    }
}

/// Where the verifying key comes from.
#[derive(Clone, Copy, Debug)]
pub enum KeySource<'k> {
    /// A key the caller trusts.
    Given(&'k PublicKey),
    /// The first certificate in the signature's `KeyInfo`: proves the document unchanged since
    /// that certificate's key signed it, not who holds the key; the caller decides whether it
    /// trusts [`Verified::certificate`].
    Embedded,
}

/// One verified reference.
#[derive(Clone, Debug)]
pub struct VerifiedReference {
    /// Its `URI` attribute.
    pub uri: String,
    /// The index in the events of the `StartElement` of the signed element (the document
    /// element for `URI=""`; for a detached reference, the `ds:Signature`'s).
    pub element: usize,
    /// Whether it is a detached reference, checked against the data the caller gave.
    pub detached: bool,
    /// Its digest method.
    pub digest: DigestAlg,
}

/// A valid signature: what it covers and how it was made.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The references, each checked.
    pub references: Vec<VerifiedReference>,
    /// Whether a reference covers the document element (or, for an enveloping signature, the
    /// `ds:Object` that holds the signed content; for a detached one, the data given).
    pub covers_document: bool,
    /// For an enveloping signature, the index in the events of the `ds:Object` start whose
    /// content is what is signed.
    pub object: Option<usize>,
    /// The `SignatureMethod` URI.
    pub signature_method: String,
    /// The canonicalization of `SignedInfo`.
    pub c14n: C14n,
    /// The certificate whose key verified the signature, with [`KeySource::Embedded`].
    pub certificate: Option<Certificate>,
}

/// The canonicalization named by a `CanonicalizationMethod` or `Transform` element at node `n`,
/// with exclusive canonicalization's `InclusiveNamespaces` prefix list.
fn c14n_of(
    events: &[Event<'_>],
    tree: &Tree,
    n: usize,
    uri: &str,
) -> Result<Option<C14n>, SignError> {
    let Some(mut c) = C14n::from_uri(uri) else {
        return Ok(None);
    };
    for child in tree.children(n) {
        let start = tree.nodes[child].0;
        let q = name(events, start);
        if c.method == Method::Exclusive
            && q.namespace == EXC_NS
            && q.local == "InclusiveNamespaces"
        {
            let list = attr(events, start, "PrefixList").unwrap_or("");
            c.inclusive_prefixes = list
                .split_ascii_whitespace()
                .map(|p| {
                    if p == "#default" {
                        String::new()
                    } else {
                        p.to_string()
                    }
                })
                .collect();
        } else {
            return Err(SignError::malformed(format!(
                "unexpected {} in a canonicalization method",
                q.qualified()
            )));
        }
    }
    Ok(Some(c))
}

pub(crate) fn check_digest(d: DigestAlg, opts: &VerifyOptions) -> Result<(), SignError> {
    if d == DigestAlg::Sha1 && !opts.allow_sha1 {
        return Err(SignError::refused(
            "SHA-1 (collisions are practical); allow it explicitly to accept it",
        ));
    }
    Ok(())
}

/// The one child of node `n` called `local` in the XML Signature namespace, in order.
pub(crate) fn expect_child(
    events: &[Event<'_>],
    tree: &Tree,
    kids: &mut impl Iterator<Item = usize>,
    local: &str,
) -> Result<usize, SignError> {
    match kids.next() {
        Some(c) if is_dsig(events, tree.nodes[c].0, local) => Ok(c),
        Some(c) => Err(SignError::malformed(format!(
            "{} where ds:{local} was expected",
            name(events, tree.nodes[c].0).qualified()
        ))),
        None => Err(SignError::malformed(format!("ds:{local} is missing"))),
    }
}

/// Verifies the one enveloped or enveloping signature of a document's events. A detached
/// signature is refused: its data must be given ([`verify_detached_events`]).
pub fn verify_events(
    events: &[Event<'_>],
    key: KeySource<'_>,
    opts: &VerifyOptions,
) -> Result<Verified, SignError> {
    verify(events, key, opts, None)
}

/// Verifies a detached signature: `events` is a document whose element is the `ds:Signature`,
/// with one `Reference` to a separate file, and `data` that file's octets, given by the caller
/// (nothing is ever fetched from the reference's URI; which file it names is the caller's to
/// check against [`VerifiedReference::uri`]). The reference may have no transforms: its digest
/// is of `data` exactly.
pub fn verify_detached_events(
    events: &[Event<'_>],
    data: &[u8],
    key: KeySource<'_>,
    opts: &VerifyOptions,
) -> Result<Verified, SignError> {
    verify(events, key, opts, Some(data))
}

/// Verifies the detached signature `xml` over `data` ([`verify_detached_events`]).
pub fn verify_detached_xml(
    xml: &[u8],
    data: &[u8],
    key: KeySource<'_>,
    opts: &VerifyOptions,
) -> Result<Verified, SignError> {
    let events = binxml_xml::decode(xml)?;
    verify_detached_events(&events, data, key, opts)
}

/// Signs `data` detached ([`sign_detached`]) and writes the signature document as XML.
pub fn sign_detached_xml(
    data: &[u8],
    uri: &str,
    key: &PrivateKey,
    cert: Option<&Certificate>,
    opts: &SignOptions,
) -> Result<Vec<u8>, SignError> {
    Ok(binxml_xml::encode(&sign_detached(
        data, uri, key, cert, opts,
    )?)?)
}

fn verify(
    events: &[Event<'_>],
    key: KeySource<'_>,
    opts: &VerifyOptions,
    detached: Option<&[u8]>,
) -> Result<Verified, SignError> {
    let tree = Tree::new(events)?;
    let mut signatures =
        (0..tree.nodes.len()).filter(|&n| is_dsig(events, tree.nodes[n].0, "Signature"));
    let sig = signatures
        .next()
        .ok_or_else(|| SignError::malformed("the document has no ds:Signature"))?;
    if signatures.next().is_some() {
        return Err(SignError::refused(
            "more than one ds:Signature in the document",
        ));
    }
    only_elements(events, &tree, sig)?;
    let mut kids = tree.children(sig);
    let signed_info = expect_child(events, &tree, &mut kids, "SignedInfo")?;
    let signature_value = expect_child(events, &tree, &mut kids, "SignatureValue")?;
    // After SignatureValue: KeyInfo, and a ds:Object only when the signature is the document
    // element (an enveloping signature, whose one reference must then be to that Object). An
    // Object in an enveloped signature is where wrapping attacks hide content.
    let mut rest = kids.peekable();
    let key_info = rest.next_if(|&k| is_dsig(events, tree.nodes[k].0, "KeyInfo"));
    let object = rest.next_if(|&k| sig == 0 && is_dsig(events, tree.nodes[k].0, "Object"));
    if let Some(k) = rest.next() {
        return Err(SignError::refused(format!(
            "{} in ds:Signature (only SignedInfo, SignatureValue, KeyInfo and, in an enveloping signature, one Object are accepted)",
            name(events, tree.nodes[k].0).qualified()
        )));
    }

    // SignedInfo: CanonicalizationMethod, SignatureMethod, Reference+.
    only_elements(events, &tree, signed_info)?;
    let mut kids = tree.children(signed_info);
    let cm = expect_child(events, &tree, &mut kids, "CanonicalizationMethod")?;
    let cm_uri = attr(events, tree.nodes[cm].0, "Algorithm").unwrap_or("");
    let c14n = c14n_of(events, &tree, cm, cm_uri)?
        .ok_or_else(|| SignError::unsupported(format!("the canonicalization method {cm_uri:?}")))?;
    let sm = expect_child(events, &tree, &mut kids, "SignatureMethod")?;
    if tree.children(sm).next().is_some() {
        return Err(SignError::refused(
            "parameters in SignatureMethod (HMACOutputLength and the like)",
        ));
    }
    let sm_uri = attr(events, tree.nodes[sm].0, "Algorithm").unwrap_or("");
    let (family, sig_digest) = parse_signature_uri(sm_uri)?;
    check_digest(sig_digest, opts)?;
    let references: Vec<usize> = kids.collect();
    if references.is_empty() {
        return Err(SignError::malformed("SignedInfo has no Reference"));
    }
    if detached.is_some() && (sig != 0 || references.len() != 1) {
        return Err(SignError::refused(
            "a detached signature must be the document element and have one reference, to the data given",
        ));
    }
    if references.len() > opts.max_references {
        return Err(SignError::refused(format!(
            "{} references (at most {} accepted)",
            references.len(),
            opts.max_references
        )));
    }
    for &r in &references {
        if !is_dsig(events, tree.nodes[r].0, "Reference") {
            return Err(SignError::malformed(format!(
                "{} in SignedInfo",
                name(events, tree.nodes[r].0).qualified()
            )));
        }
    }

    // Every reference's form is checked first, so that what is refused is refused whatever the
    // signature value; then the signature over SignedInfo, and only then the digests: nothing
    // the references name is canonicalized before SignedInfo is known to come from the key's
    // holder.
    let mut plans = Vec::with_capacity(references.len());
    for &r in &references {
        let plan = parse_reference(events, &tree, r, opts, detached.is_some())?;
        if plan.detached {
            if object.is_some() {
                return Err(SignError::refused(
                    "a detached reference in an enveloping signature",
                ));
            }
            plans.push(plan);
            continue;
        }
        let to_object = object.is_some() && Some(plan.signed) == object && !plan.enveloped;
        if object.is_some() && !to_object {
            return Err(SignError::refused(
                "an enveloping signature's reference to something other than its ds:Object",
            ));
        }
        if tree.is_inside(plan.signed, sig) && !to_object {
            return Err(SignError::refused(
                "a reference to content inside the signature (not an enveloped signature)",
            ));
        }
        plans.push(plan);
    }
    let mut certificate = None;
    let public = match key {
        KeySource::Given(k) => k.clone(),
        KeySource::Embedded => {
            let cert = embedded_certificate(events, &tree, key_info)?;
            let k = cert.public_key().clone();
            certificate = Some(cert);
            k
        }
    };
    let (key_family, padding) = match (public.key_type(), family) {
        (KeyType::Rsa, SignatureFamily::RsaPss) => (SignatureFamily::RsaPss, RsaPadding::Pss),
        (KeyType::Rsa, _) => (SignatureFamily::Rsa, RsaPadding::Pkcs1v15),
        (KeyType::P256 | KeyType::P384, _) => (SignatureFamily::Ecdsa, RsaPadding::Pkcs1v15),
    };
    if key_family != family {
        return Err(SignError::invalid(format!(
            "the signature method {sm_uri} does not match the key ({:?})",
            public.key_type()
        )));
    }
    let value = base64::decode(&text_of(events, &tree, signature_value)?)
        .ok_or_else(|| SignError::malformed("SignatureValue is not base64"))?;
    let info = canonicalize_subset(
        events,
        &Subset {
            apex: Some(tree.nodes[signed_info].0),
            exclude: &[],
        },
        &c14n,
    )?;
    public.verify_with(padding, sig_digest, &info, &value)?;

    let mut verified = Vec::new();
    let mut covers_document = false;
    for plan in &plans {
        verified.push(check_reference(events, &tree, plan, sig, detached)?);
        // A detached signature covers what it was given.
        covers_document |= plan.detached || plan.signed == 0 || Some(plan.signed) == object;
    }
    if opts.require_document_element && !covers_document {
        return Err(SignError::refused(
            "no reference covers the document element (what is signed is only part of the document)",
        ));
    }
    Ok(Verified {
        references: verified,
        covers_document,
        object: object.map(|o| tree.nodes[o].0),
        signature_method: sm_uri.to_string(),
        c14n,
        certificate,
    })
}

pub(crate) fn embedded_certificate(
    events: &[Event<'_>],
    tree: &Tree,
    key_info: Option<usize>,
) -> Result<Certificate, SignError> {
    let missing = || SignError::malformed("no key given and no X509Certificate in KeyInfo");
    let key_info = key_info.ok_or_else(missing)?;
    for data in tree.children(key_info) {
        if !is_dsig(events, tree.nodes[data].0, "X509Data") {
            continue;
        }
        for c in tree.children(data) {
            if is_dsig(events, tree.nodes[c].0, "X509Certificate") {
                let der = base64::decode(&text_of(events, tree, c)?)
                    .ok_or_else(|| SignError::malformed("X509Certificate is not base64"))?;
                return Certificate::from_der(&der);
            }
        }
    }
    Err(missing())
}

/// A reference whose form has been checked: what it selects and how its digest is computed.
struct Plan<'e> {
    uri: &'e str,
    /// The node of the signed element (the signature's, for a detached reference).
    signed: usize,
    enveloped: bool,
    /// A reference to the separate file of a detached signature.
    detached: bool,
    c14n: C14n,
    digest: DigestAlg,
    expected: Vec<u8>,
}

fn parse_reference<'e>(
    events: &'e [Event<'_>],
    tree: &Tree,
    r: usize,
    opts: &VerifyOptions,
    data_given: bool,
) -> Result<Plan<'e>, SignError> {
    let start = tree.nodes[r].0;
    let uri = attr(events, start, "URI").ok_or_else(|| {
        SignError::refused("a Reference without URI (the application would have to supply it)")
    })?;
    let detached = !uri.is_empty() && !uri.starts_with('#');
    if detached != data_given {
        return Err(if detached {
            SignError::refused(format!(
                "the external reference URI {uri:?}: a detached signature is checked only against data given with it (--content), never fetched"
            ))
        } else {
            SignError::refused(format!(
                "the same-document reference {uri:?} where a detached signature over the data given was expected"
            ))
        });
    }
    let signed = if detached {
        check_detached_uri(uri)?;
        0
    } else if uri.is_empty() {
        0
    } else if let Some(id) = uri.strip_prefix('#') {
        if id.is_empty() || id.contains(['(', ')', ' ', '/', '#']) {
            return Err(SignError::refused(format!(
                "the reference URI {uri:?} (XPointer and other same-document forms than #id)"
            )));
        }
        find_id(events, tree, id)?
    } else {
        unreachable!("an external URI is detached")
    };
    only_elements(events, tree, r)?;
    let mut kids = tree.children(r).peekable();
    let mut enveloped = false;
    let mut c14n: Option<C14n> = None;
    if let Some(&t) = kids.peek()
        && is_dsig(events, tree.nodes[t].0, "Transforms")
    {
        kids.next();
        only_elements(events, tree, t)?;
        if detached && tree.children(t).next().is_some() {
            return Err(SignError::unsupported(format!(
                "transforms on the detached reference {uri:?} (its digest is of the data's octets)"
            )));
        }
        for tr in tree.children(t) {
            let ts = tree.nodes[tr].0;
            if !is_dsig(events, ts, "Transform") {
                return Err(SignError::malformed(format!(
                    "{} in Transforms",
                    name(events, ts).qualified()
                )));
            }
            let alg = attr(events, ts, "Algorithm").unwrap_or("");
            if c14n.is_some() {
                return Err(SignError::refused(format!(
                    "the transform {alg} after the canonicalization"
                )));
            }
            if alg == ENVELOPED {
                if enveloped || tree.children(tr).next().is_some() {
                    return Err(SignError::refused(
                        "a repeated or parameterised enveloped-signature transform",
                    ));
                }
                enveloped = true;
            } else if let Some(c) = c14n_of(events, tree, tr, alg)? {
                c14n = Some(c);
            } else if alg.contains("xslt")
                || alg.contains("xpath")
                || alg.contains("xmldsig-filter")
            {
                return Err(SignError::refused(format!(
                    "the transform {alg} (XSLT and XPath transforms run code or select content the verifier cannot show)"
                )));
            } else {
                return Err(SignError::unsupported(format!("the transform {alg:?}")));
            }
        }
    }
    let dm = kids
        .next()
        .filter(|&d| is_dsig(events, tree.nodes[d].0, "DigestMethod"))
        .ok_or_else(|| SignError::malformed("a Reference without DigestMethod"))?;
    let dm_uri = attr(events, tree.nodes[dm].0, "Algorithm").unwrap_or("");
    let digest = parse_digest_uri(dm_uri)
        .ok_or_else(|| SignError::unsupported(format!("the digest method {dm_uri:?}")))?;
    check_digest(digest, opts)?;
    let dv = kids
        .next()
        .filter(|&d| is_dsig(events, tree.nodes[d].0, "DigestValue"))
        .ok_or_else(|| SignError::malformed("a Reference without DigestValue"))?;
    if let Some(k) = kids.next() {
        return Err(SignError::malformed(format!(
            "{} after DigestValue",
            name(events, tree.nodes[k].0).qualified()
        )));
    }
    let expected = base64::decode(&text_of(events, tree, dv)?)
        .ok_or_else(|| SignError::malformed("DigestValue is not base64"))?;
    // A same-document reference selects its content without comments; the node-set is turned
    // into octets by the last canonicalization, or by Canonical XML 1.0 when there is none.
    let c14n = c14n
        .unwrap_or_else(|| C14n::from_uri(c14n::C14N10).unwrap())
        .with_comments(false);
    Ok(Plan {
        uri,
        signed,
        enveloped,
        detached,
        c14n,
        digest,
        expected,
    })
}

fn check_reference(
    events: &[Event<'_>],
    tree: &Tree,
    plan: &Plan<'_>,
    sig: usize,
    detached: Option<&[u8]>,
) -> Result<VerifiedReference, SignError> {
    let exclude = [tree.nodes[sig].0];
    let digest = match detached {
        Some(data) if plan.detached => plan.digest.digest(data),
        _ => plan.digest.digest(&canonicalize_subset(
            events,
            &Subset {
                apex: (!plan.uri.is_empty()).then_some(tree.nodes[plan.signed].0),
                exclude: if plan.enveloped { &exclude } else { &[] },
            },
            &plan.c14n,
        )?),
    };
    if digest != plan.expected {
        return Err(SignError::invalid(format!(
            "the digest of the reference {:?} does not match: the signed content was changed",
            plan.uri
        )));
    }
    Ok(VerifiedReference {
        uri: plan.uri.to_string(),
        element: tree.nodes[plan.signed].0,
        detached: plan.detached,
        digest: plan.digest,
    })
}

/// Verifies the enveloped signature of an XML document (parsed by binxml-xml with its default
/// limits).
pub fn verify_xml(
    xml: &[u8],
    key: KeySource<'_>,
    opts: &VerifyOptions,
) -> Result<Verified, SignError> {
    let events = binxml_xml::decode(xml)?;
    verify_events(&events, key, opts)
}
