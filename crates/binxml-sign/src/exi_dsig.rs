//! XML Signature over Canonical EXI (W3C Canonical EXI 1.0), the way ISO 15118-2 and -20 sign
//! their messages: `SignedInfo` and each referenced element are canonicalized by encoding them
//! as schema-informed EXI fragments, and the digests and the signature value are computed over
//! those EXI octets. `SignedInfo` is encoded with the grammars of the XML Signature schema
//! alone, a referenced element with those of the document's schema ([`ExiC14n`]).
//!
//! The signature's form is fixed: `CanonicalizationMethod` and each reference's one `Transform`
//! are [`CANONICAL_EXI`], references are `#id` to elements outside the signature, and the
//! `ds:Signature` is a sibling structure (in ISO 15118 it sits in the message header and
//! references the body's message): nothing is enveloped. Verification refuses anything else
//! before a digest is computed, as [`crate::dsig`] does for XML canonicalizations.

use std::sync::Arc;

use binxml_core::{Decoder, Encoder, Event, Limits, QName, base64};
use binxml_exi::informed::{SchemaDecoder, SchemaEncoder, SchemaGrammars};
use binxml_exi::{Alignment, ExiOptions, Whitespace};
use binxml_schema::{LoadOptions, Schema};

use crate::SignError;
use crate::dsig::{
    DSIG_NS, KeySource, SignatureFamily, Tree, VerifiedReference, VerifyOptions, algorithm, attr,
    check_cert, check_digest, digest_uri, dsig_start, embedded_certificate, expect_child, find_id,
    is_dsig, name, only_elements, parse_digest_uri, parse_signature_uri, pss_signature_uri,
    signature_uri, text_of,
};
use crate::keys::{Certificate, DigestAlg, KeyType, PrivateKey, RsaPadding};

/// The algorithm identifier ISO 15118-2 and -20 give Canonical EXI, as `CanonicalizationMethod`
/// and as the references' `Transform` ([V2G20-766]).
pub const CANONICAL_EXI: &str = "http://www.w3.org/TR/canonical-exi/";

/// How `SignedInfo` and the referenced elements become octets: the schema-informed grammars of
/// the document's schema and of the XML Signature schema, and the EXI options of the canonical
/// form.
#[derive(Clone)]
pub struct ExiC14n {
    document: Arc<SchemaGrammars>,
    signature: Arc<SchemaGrammars>,
    options: ExiOptions,
}

impl ExiC14n {
    /// Canonical EXI with the options ISO 15118 uses: schema-informed, bit-packed, fragments,
    /// no fidelity options (no comments, PIs, DTD, prefixes, lexical values), non-strict, the
    /// options not written into the header (Canonical EXI's `omitOptionsDocument`: they are
    /// agreed out of band, so each fragment starts with the octet `0x80`), no cookie, and
    /// whitespace-only text between tags dropped (Canonical EXI 4.3.2.2: whitespace in element
    /// content is not content).
    pub fn new(document: Arc<SchemaGrammars>, signature: Arc<SchemaGrammars>) -> ExiC14n {
        ExiC14n {
            document,
            signature,
            options: ExiOptions::default()
                .with_alignment(Alignment::BitPacked)
                .with_fragment(true)
                .with_whitespace(Whitespace::DropBetweenTags)
                .with_canonical(true),
        }
    }

    /// Canonical EXI for the messages of `document`'s schema, `SignedInfo` encoded with the
    /// grammars of the XML Signature schema that schema imports (as ISO 15118's message
    /// schemas do), loaded again alone from the bytes read for the import ([V2G20-1449]: the
    /// XML Signature schema as the only entry point). `options` bound that second loading.
    pub fn for_message_schema(
        document: Arc<SchemaGrammars>,
        options: &LoadOptions,
    ) -> Result<ExiC14n, SignError> {
        let doc = document
            .schema()
            .documents()
            .iter()
            .find(|d| d.target_namespace == DSIG_NS)
            .ok_or_else(|| {
                SignError::malformed(format!(
                    "the schema does not import the XML Signature schema ({DSIG_NS}), whose grammars encode SignedInfo"
                ))
            })?;
        let schema = Schema::from_bytes_with(&doc.bytes, &doc.location, options)
            .map_err(|e| SignError::malformed(format!("the XML Signature schema: {e}")))?;
        let signature = SchemaGrammars::new(Arc::new(schema))?;
        Ok(ExiC14n::new(document, Arc::new(signature)))
    }

    /// The schema-informed grammars of the document's schema.
    pub fn document_grammars(&self) -> &Arc<SchemaGrammars> {
        &self.document
    }

    /// The same with other EXI options (`strict`, another alignment, the options document in
    /// the header); they are made canonical ([`ExiOptions::canonical`]). What Canonical EXI
    /// excludes is refused: the cookie (section 3), compression (section 3 has pre-compression
    /// stand for it), lexical values and prefixes (binxml does not canonicalize them), and a
    /// document rather than fragments.
    pub fn with_options(mut self, options: ExiOptions) -> Result<ExiC14n, SignError> {
        let options = options.with_canonical(true);
        let refuse = |what: &str| Err(SignError::unsupported(format!("Canonical EXI with {what}")));
        if options.include_cookie {
            return refuse("the EXI cookie (a canonical header has none)");
        }
        if options.alignment == Alignment::Compression {
            return refuse("compression (its canonical form is pre-compression)");
        }
        if options.lexical_values || options.prefixes || options.dtd {
            return refuse("lexical values, prefixes or the DTD preserved");
        }
        if !options.fragment {
            return refuse("documents (signed parts are fragments)");
        }
        self.options = options;
        Ok(self)
    }

    /// The EXI options of the canonical form.
    pub fn options(&self) -> &ExiOptions {
        &self.options
    }

    /// The canonical EXI octets of the element whose `StartElement` is at `start` in `events`
    /// (its subtree as a fragment) with the document's grammars.
    pub fn element(&self, events: &[Event<'_>], start: usize) -> Result<Vec<u8>, SignError> {
        fragment(&self.document, &self.options, events, start)
    }

    /// The canonical EXI octets of the `ds:SignedInfo` whose `StartElement` is at `start`, with
    /// the XML Signature schema's grammars.
    pub fn signed_info(&self, events: &[Event<'_>], start: usize) -> Result<Vec<u8>, SignError> {
        fragment(&self.signature, &self.options, events, start)
    }
}

/// The namespace declarations in scope at the element starting at `start` that it does not
/// make itself: its subtree encoded alone still resolves the prefixes of `xsi:type` values.
fn inherited_namespaces<'e>(events: &'e [Event<'_>], start: usize) -> Vec<&'e Event<'e>> {
    let mut scope: Vec<Option<&Event<'_>>> = Vec::new();
    for ev in &events[..start] {
        match ev {
            Event::StartElement(_) => scope.push(None),
            Event::Namespace { .. } => scope.push(Some(ev)),
            Event::EndElement => while let Some(Some(_)) = scope.pop() {},
            _ => {}
        }
    }
    let own: Vec<&str> = events[start + 1..]
        .iter()
        .take_while(|e| matches!(e, Event::Namespace { .. } | Event::Attribute { .. }))
        .filter_map(|e| match e {
            Event::Namespace { prefix, .. } => Some(prefix.as_ref()),
            _ => None,
        })
        .collect();
    let mut out: Vec<&Event<'_>> = Vec::new();
    for ev in scope.into_iter().flatten().rev() {
        let Event::Namespace { prefix, .. } = ev else {
            continue;
        };
        let seen = out
            .iter()
            .any(|o| matches!(o, Event::Namespace { prefix: p, .. } if p == prefix));
        if !seen && !own.contains(&prefix.as_ref()) {
            out.push(ev);
        }
    }
    out
}

/// The subtree starting at `start` as one schema-informed EXI fragment.
fn fragment(
    grammars: &Arc<SchemaGrammars>,
    options: &ExiOptions,
    events: &[Event<'_>],
    start: usize,
) -> Result<Vec<u8>, SignError> {
    if !matches!(events.get(start), Some(Event::StartElement(_))) {
        return Err(SignError::malformed(
            "the signed part is not a whole element",
        ));
    }
    let mut depth = 0usize;
    let mut end = start;
    for (i, ev) in events.iter().enumerate().skip(start) {
        match ev {
            Event::StartElement(_) => depth += 1,
            Event::EndElement => {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            }
            _ => {}
        }
    }
    if depth != 0 || !matches!(events.get(start), Some(Event::StartElement(_))) {
        return Err(SignError::malformed(
            "the signed part is not a whole element",
        ));
    }
    let mut out = Vec::with_capacity(64 + 8 * (end - start));
    let mut enc = SchemaEncoder::new(&mut out, grammars.clone(), options.clone())?;
    enc.write_event(&Event::start_document())?;
    enc.write_event(&events[start])?;
    let own = events[start + 1..]
        .iter()
        .take_while(|e| matches!(e, Event::Namespace { .. }))
        .count();
    for ev in &events[start + 1..start + 1 + own] {
        enc.write_event(ev)?;
    }
    for ev in inherited_namespaces(events, start) {
        enc.write_event(ev)?;
    }
    for ev in &events[start + 1 + own..=end] {
        enc.write_event(ev)?;
    }
    enc.write_event(&Event::EndDocument)?;
    enc.finish()?;
    drop(enc);
    Ok(out)
}

/// Where [`sign_exi_events`] puts the `ds:Signature`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignaturePlace {
    /// The namespace of the element the signature becomes the last child of.
    pub namespace: String,
    /// Its local name (the first element so named, in document order).
    pub local: String,
}

impl SignaturePlace {
    /// The first element named `name` in `events`: `{namespace}local`, or a local name in
    /// whatever namespace its first occurrence has (`Header`, as ISO 15118 places the
    /// signature).
    pub fn find(events: &[Event<'_>], name: &str) -> Result<SignaturePlace, SignError> {
        let (ns, local) = match name.strip_prefix('{').and_then(|r| r.split_once('}')) {
            Some((ns, local)) => (Some(ns), local),
            None => (None, name),
        };
        events
            .iter()
            .find_map(|e| match e {
                Event::StartElement(q)
                    if q.local == local && ns.is_none_or(|n| q.namespace == n) =>
                {
                    Some(SignaturePlace {
                        namespace: q.namespace.to_string(),
                        local: local.to_string(),
                    })
                }
                _ => None,
            })
            .ok_or_else(|| {
                SignError::malformed(format!("no element {name} to put the signature in"))
            })
    }
}

/// The values of the `Id` attributes (the name ISO 15118's messages use) of the elements
/// that neither hold nor are inside the element `place` names, in document order: what a
/// Canonical EXI signature placed there signs when no ids are given.
pub fn ids_outside(events: &[Event<'_>], place: &SignaturePlace) -> Result<Vec<String>, SignError> {
    let tree = Tree::new(events)?;
    let at = (0..tree.nodes.len()).find(|&n| {
        let q = name(events, tree.nodes[n].0);
        q.namespace == place.namespace && q.local == place.local
    });
    Ok((0..tree.nodes.len())
        .filter(|&n| at.is_none_or(|p| !tree.is_inside(n, p) && !tree.is_inside(p, n)))
        .filter_map(|n| attr(events, tree.nodes[n].0, "Id").map(str::to_string))
        .collect())
}

/// A message in schema-informed EXI (the document's grammars, `exi` where its header states
/// no options), decoded into owned events within `limits`.
pub fn decode_message(
    message: &[u8],
    c14n: &ExiC14n,
    exi: &ExiOptions,
    limits: Limits,
) -> Result<Vec<Event<'static>>, SignError> {
    let mut dec = SchemaDecoder::new(message, c14n.document.clone(), exi.clone(), limits);
    let mut events = Vec::new();
    while let Some(e) = dec.next_event()? {
        events.push(e.into_owned());
    }
    Ok(events)
}

/// A message's events as schema-informed EXI with the document's grammars and `exi`.
pub fn encode_message(
    events: &[Event<'_>],
    c14n: &ExiC14n,
    exi: &ExiOptions,
) -> Result<Vec<u8>, SignError> {
    let mut out = Vec::with_capacity(256 + 4 * events.len());
    let mut enc = SchemaEncoder::new(&mut out, c14n.document.clone(), exi.clone())?;
    for e in events {
        enc.write_event(e)?;
    }
    enc.finish()?;
    drop(enc);
    Ok(out)
}

/// Signs a message received or kept as schema-informed EXI ([`decode_message`]) with
/// [`sign_exi_events`], and returns it as schema-informed EXI with the same options.
pub fn sign_exi(
    message: &[u8],
    c14n: &ExiC14n,
    exi: &ExiOptions,
    key: &PrivateKey,
    cert: Option<&Certificate>,
    opts: &ExiSignOptions,
) -> Result<Vec<u8>, SignError> {
    let events = decode_message(message, c14n, exi, Limits::default())?;
    let signed = sign_exi_events(&events, c14n, key, cert, opts)?;
    encode_message(&signed, c14n, exi)
}

/// Verifies the Canonical EXI signature of a message in schema-informed EXI
/// ([`decode_message`], default limits) with [`verify_exi_events`].
pub fn verify_exi(
    message: &[u8],
    c14n: &ExiC14n,
    exi: &ExiOptions,
    key: KeySource<'_>,
    opts: &VerifyOptions,
) -> Result<ExiVerified, SignError> {
    let events = decode_message(message, c14n, exi, Limits::default())?;
    verify_exi_events(&events, c14n, key, opts)
}

/// Whether a document's events carry a Canonical EXI signature (a `ds:CanonicalizationMethod`
/// naming [`CANONICAL_EXI`]): which verifier a received document needs.
pub fn has_exi_signature(events: &[Event<'_>]) -> bool {
    events.iter().enumerate().any(|(i, e)| {
        matches!(e, Event::StartElement(q) if q.namespace == DSIG_NS && q.local == "CanonicalizationMethod")
            && events[i + 1..]
                .iter()
                .take_while(|e| matches!(e, Event::Namespace { .. } | Event::Attribute { .. }))
                .any(|e| matches!(e, Event::Attribute { name, value } if name.local == "Algorithm" && value == CANONICAL_EXI))
    })
}

/// How to sign over Canonical EXI.
#[derive(Clone, Debug)]
pub struct ExiSignOptions {
    /// The ids of the elements signed, one `Reference` each, in this order.
    pub references: Vec<String>,
    /// Where the signature goes.
    pub place: SignaturePlace,
    /// The digest of the references and of the signature.
    pub digest: DigestAlg,
    /// The padding of an RSA signature.
    pub rsa_padding: RsaPadding,
}

fn signature_method(key: &PrivateKey, opts: &ExiSignOptions) -> Result<&'static str, SignError> {
    match (opts.rsa_padding, key.key_type()) {
        (RsaPadding::Pkcs1v15, t) => Ok(signature_uri(t, opts.digest)),
        (RsaPadding::Pss, KeyType::Rsa) => pss_signature_uri(opts.digest)
            .ok_or_else(|| SignError::unsupported("RSA-PSS with SHA-1")),
        (RsaPadding::Pss, _) => Err(SignError::malformed("RSA-PSS needs an RSA key")),
    }
}

fn method<'a>(out: &mut Vec<Event<'a>>, local: &'static str, uri: &'a str) {
    out.push(dsig_start(local));
    out.push(algorithm(uri));
    out.push(Event::EndElement);
}

/// Signs the elements `opts.references` names over Canonical EXI: returns the document's events
/// with a `ds:Signature` as the last child of the element `opts.place` names, its `SignedInfo`
/// holding one `Reference` per id (the Canonical EXI transform, the digest of the element's
/// canonical EXI fragment), its `SignatureValue` the signature of `SignedInfo`'s canonical EXI
/// fragment, and `KeyInfo` the certificate when one is given (ISO 15118 sends none: the
/// certificate chain travels in the message).
pub fn sign_exi_events(
    events: &[Event<'_>],
    c14n: &ExiC14n,
    key: &PrivateKey,
    cert: Option<&Certificate>,
    opts: &ExiSignOptions,
) -> Result<Vec<Event<'static>>, SignError> {
    check_cert(key, cert)?;
    if opts.references.is_empty() {
        return Err(SignError::malformed("nothing to sign: no reference ids"));
    }
    let tree = Tree::new(events)?;
    if (0..tree.nodes.len()).any(|n| is_dsig(events, tree.nodes[n].0, "Signature")) {
        return Err(SignError::malformed(
            "the document already has a ds:Signature",
        ));
    }
    let place = (0..tree.nodes.len())
        .find(|&n| {
            let q = name(events, tree.nodes[n].0);
            q.namespace == opts.place.namespace && q.local == opts.place.local
        })
        .ok_or_else(|| {
            SignError::malformed(format!(
                "no element {{{}}}{} to put the signature in",
                opts.place.namespace, opts.place.local
            ))
        })?;
    let mut digests = Vec::with_capacity(opts.references.len());
    for id in &opts.references {
        let n = find_id(events, &tree, id)?;
        if tree.is_inside(place, n) {
            return Err(SignError::malformed(format!(
                "the signature would be inside the signed element #{id} (Canonical EXI signatures are not enveloped)"
            )));
        }
        let bytes = c14n.element(events, tree.nodes[n].0)?;
        digests.push(base64::encode(&opts.digest.digest(&bytes)));
    }

    let sm = signature_method(key, opts)?;
    let mut sig: Vec<Event<'static>> = Vec::with_capacity(16 + 12 * digests.len());
    sig.push(dsig_start("Signature"));
    sig.push(Event::Namespace {
        prefix: "ds".into(),
        uri: DSIG_NS.into(),
    });
    let signed_info = sig.len();
    sig.push(dsig_start("SignedInfo"));
    method(&mut sig, "CanonicalizationMethod", CANONICAL_EXI);
    method(&mut sig, "SignatureMethod", sm);
    for (id, digest) in opts.references.iter().zip(digests) {
        sig.push(dsig_start("Reference"));
        sig.push(Event::Attribute {
            name: QName::local("URI"),
            value: format!("#{id}").into(),
        });
        sig.push(dsig_start("Transforms"));
        method(&mut sig, "Transform", CANONICAL_EXI);
        sig.push(Event::EndElement);
        method(&mut sig, "DigestMethod", digest_uri(opts.digest));
        sig.push(dsig_start("DigestValue"));
        sig.push(Event::text(digest));
        sig.push(Event::EndElement);
        sig.push(Event::EndElement); // Reference
    }
    sig.push(Event::EndElement); // SignedInfo
    let info = c14n.signed_info(&sig, signed_info)?;
    let value = key.sign_with(opts.rsa_padding, opts.digest, &info)?;
    sig.push(dsig_start("SignatureValue"));
    sig.push(Event::text(base64::encode(&value)));
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
    sig.push(Event::EndElement); // Signature

    let at = tree.nodes[place].1;
    let mut doc = Vec::with_capacity(events.len() + sig.len());
    doc.extend(events[..at].iter().map(|e| e.clone().into_owned()));
    doc.extend(sig);
    doc.extend(events[at..].iter().map(|e| e.clone().into_owned()));
    Ok(doc)
}

/// A valid Canonical EXI signature: what it covers and how it was made.
#[derive(Clone, Debug)]
pub struct ExiVerified {
    /// The references, each checked (`element` is the signed element's `StartElement`).
    pub references: Vec<VerifiedReference>,
    /// The `SignatureMethod` URI.
    pub signature_method: String,
    /// The certificate whose key verified the signature, with [`KeySource::Embedded`].
    pub certificate: Option<Certificate>,
    /// The local name of each referenced element, in the order of `references` (a decoded
    /// EXI message's prefixes are made up by the decoder).
    pub elements: Vec<String>,
}

/// A reference whose form is checked.
struct Plan<'e> {
    uri: &'e str,
    signed: usize,
    digest: DigestAlg,
    expected: Vec<u8>,
}

fn parse_reference<'e>(
    events: &'e [Event<'_>],
    tree: &Tree,
    r: usize,
    sig: usize,
    opts: &VerifyOptions,
) -> Result<Plan<'e>, SignError> {
    let start = tree.nodes[r].0;
    if !is_dsig(events, start, "Reference") {
        return Err(SignError::malformed(format!(
            "{} in SignedInfo",
            name(events, start).qualified()
        )));
    }
    let uri = attr(events, start, "URI").ok_or_else(|| {
        SignError::refused("a Reference without URI (the application would have to supply it)")
    })?;
    let id = uri
        .strip_prefix('#')
        .filter(|id| !id.is_empty() && !id.contains(['(', ')', ' ', '/', '#']))
        .ok_or_else(|| {
            SignError::refused(format!(
                "the reference URI {uri:?}: a Canonical EXI signature references elements by #id only"
            ))
        })?;
    let signed = find_id(events, tree, id)?;
    if tree.is_inside(signed, sig) || tree.is_inside(sig, signed) {
        return Err(SignError::refused(format!(
            "the reference {uri:?} overlaps the signature (Canonical EXI signatures are not enveloped)"
        )));
    }
    only_elements(events, tree, r)?;
    let mut kids = tree.children(r);
    let transforms = expect_child(events, tree, &mut kids, "Transforms")?;
    only_elements(events, tree, transforms)?;
    let mut ts = tree.children(transforms);
    match (ts.next(), ts.next()) {
        (Some(t), None) if is_dsig(events, tree.nodes[t].0, "Transform") => {
            let alg = attr(events, tree.nodes[t].0, "Algorithm").unwrap_or("");
            if alg != CANONICAL_EXI || tree.children(t).next().is_some() {
                return Err(SignError::refused(format!(
                    "the transform {alg:?}: a Canonical EXI reference has the one transform {CANONICAL_EXI}, without parameters"
                )));
            }
        }
        _ => {
            return Err(SignError::refused(
                "a Canonical EXI reference has exactly one Transform",
            ));
        }
    }
    let dm = expect_child(events, tree, &mut kids, "DigestMethod")?;
    let dm_uri = attr(events, tree.nodes[dm].0, "Algorithm").unwrap_or("");
    let digest = parse_digest_uri(dm_uri)
        .ok_or_else(|| SignError::unsupported(format!("the digest method {dm_uri:?}")))?;
    check_digest(digest, opts)?;
    let dv = expect_child(events, tree, &mut kids, "DigestValue")?;
    if let Some(k) = kids.next() {
        return Err(SignError::malformed(format!(
            "{} after DigestValue",
            name(events, tree.nodes[k].0).qualified()
        )));
    }
    let expected = base64::decode(&text_of(events, tree, dv)?)
        .ok_or_else(|| SignError::malformed("DigestValue is not base64"))?;
    Ok(Plan {
        uri,
        signed,
        digest,
        expected,
    })
}

/// Verifies the one Canonical EXI signature of a document's events (decoded from any format:
/// schema-informed EXI as ISO 15118 sends it, or XML). The form is checked first, then the
/// signature over `SignedInfo`'s canonical EXI, then each reference's digest.
/// `opts.require_document_element` is not used: such signatures cover the elements they name,
/// which [`ExiVerified::references`] lists.
pub fn verify_exi_events(
    events: &[Event<'_>],
    c14n: &ExiC14n,
    key: KeySource<'_>,
    opts: &VerifyOptions,
) -> Result<ExiVerified, SignError> {
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
    let mut rest = kids.peekable();
    let key_info = rest.next_if(|&k| is_dsig(events, tree.nodes[k].0, "KeyInfo"));
    if let Some(k) = rest.next() {
        return Err(SignError::refused(format!(
            "{} in ds:Signature (only SignedInfo, SignatureValue and KeyInfo are accepted)",
            name(events, tree.nodes[k].0).qualified()
        )));
    }

    only_elements(events, &tree, signed_info)?;
    let mut kids = tree.children(signed_info);
    let cm = expect_child(events, &tree, &mut kids, "CanonicalizationMethod")?;
    let cm_uri = attr(events, tree.nodes[cm].0, "Algorithm").unwrap_or("");
    if cm_uri != CANONICAL_EXI || tree.children(cm).next().is_some() {
        return Err(SignError::unsupported(format!(
            "the canonicalization method {cm_uri:?} in a Canonical EXI signature"
        )));
    }
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
    if references.len() > opts.max_references {
        return Err(SignError::refused(format!(
            "{} references (at most {} accepted)",
            references.len(),
            opts.max_references
        )));
    }
    let plans = references
        .iter()
        .map(|&r| parse_reference(events, &tree, r, sig, opts))
        .collect::<Result<Vec<_>, _>>()?;

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
    let info = c14n.signed_info(events, tree.nodes[signed_info].0)?;
    public.verify_with(padding, sig_digest, &info, &value)?;

    let mut verified = Vec::with_capacity(plans.len());
    for plan in &plans {
        let bytes = c14n.element(events, tree.nodes[plan.signed].0)?;
        if plan.digest.digest(&bytes) != plan.expected {
            return Err(SignError::invalid(format!(
                "the digest of the reference {:?} does not match: the signed content was changed",
                plan.uri
            )));
        }
        verified.push(VerifiedReference {
            uri: plan.uri.to_string(),
            element: tree.nodes[plan.signed].0,
            detached: false,
            digest: plan.digest,
        });
    }
    Ok(ExiVerified {
        elements: plans
            .iter()
            .map(|p| name(events, tree.nodes[p.signed].0).local.to_string())
            .collect(),
        references: verified,
        signature_method: sm_uri.to_string(),
        certificate,
    })
}
