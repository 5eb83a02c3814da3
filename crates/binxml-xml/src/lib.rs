//! binxml-xml: the XML text codec.
//!
//! [`XmlDecoder`] turns XML text into binxml events (namespaces resolved, internal entities
//! expanded within [`Limits`](binxml_core::Limits), attribute defaults from the internal subset
//! applied, nothing external fetched); [`XmlWriter`] turns events back into XML text.

#![forbid(unsafe_code)]

mod dtd;
mod lexer;
mod names;
mod read;
mod reader;
mod writer;

use binxml_core::Format;
use std::borrow::Cow;

use binxml_core::{Decoder, Error, Event, Result};

pub use dtd::{Dtd, DtdError, Entity};
pub use read::{DEFAULT_CHUNK, SLACK, XmlReadDecoder};
pub use reader::XmlDecoder;
pub use writer::{XmlWriter, XmlWriterOptions, encode, escape_attr, escape_text};

/// Returns the document as UTF-8: unchanged when it already is (a UTF-8 byte-order mark is kept;
/// the decoder skips it), transcoded from UTF-16 (by byte-order mark or by the `<?xml` pattern)
/// or from the encoding its XML declaration names (ISO-8859-1, windows-1252, ...).
pub fn to_utf8(input: &[u8]) -> Result<Cow<'_, [u8]>> {
    let utf16 = match input {
        [0xFF, 0xFE, ..] | [b'<', 0, b'?', 0, ..] => Some(encoding_rs::UTF_16LE),
        [0xFE, 0xFF, ..] | [0, b'<', 0, b'?', ..] => Some(encoding_rs::UTF_16BE),
        _ => None,
    };
    if let Some(enc) = utf16 {
        let (text, had_errors) = enc.decode_with_bom_removal(input);
        if had_errors {
            return Err(Error::malformed(
                Format::Xml,
                0,
                format!("invalid {} input", enc.name()),
            ));
        }
        let bytes = text.into_owned().into_bytes();
        if let Some((label, _)) = declared_encoding(&bytes)
            && !is_utf16_label(&label)
        {
            return Err(Error::malformed(
                Format::Xml,
                0,
                format!("the input is UTF-16 but its XML declaration says {label:?}"),
            ));
        }
        return Ok(Cow::Owned(bytes));
    }
    let Some((label, at)) = declared_encoding(input) else {
        return Ok(Cow::Borrowed(input));
    };
    if input.starts_with(b"\xEF\xBB\xBF") && !label.eq_ignore_ascii_case("utf-8") {
        return Err(Error::malformed(
            Format::Xml,
            at as u64,
            format!("a UTF-8 byte-order mark, but the XML declaration says {label:?}"),
        )
        .with_line_col(1, at as u64 + 1));
    }
    let enc = encoding_rs::Encoding::for_label(label.as_bytes()).ok_or_else(|| {
        Error::unsupported(Format::Xml, format!("unsupported encoding {label:?}"))
            .at(at as u64)
            .with_line_col(1, at as u64 + 1)
    })?;
    if enc == encoding_rs::UTF_8
        || label.eq_ignore_ascii_case("us-ascii")
        || label.eq_ignore_ascii_case("ascii")
    {
        return Ok(Cow::Borrowed(input));
    }
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        return Err(Error::malformed(
            Format::Xml,
            0,
            "declared UTF-16 but the input is not UTF-16",
        ));
    }
    let (text, _, had_errors) = enc.decode(input);
    if had_errors {
        return Err(Error::malformed(
            Format::Xml,
            0,
            format!("invalid {} input", enc.name()),
        ));
    }
    // The result is UTF-8: say so in its declaration, so that preparing it again is a no-op.
    let mut bytes = text.into_owned().into_bytes();
    // The declaration is ASCII, so the label sits at the same offset after decoding.
    if bytes.get(at..at + label.len()) == Some(label.as_bytes()) {
        bytes.splice(at..at + label.len(), b"UTF-8".iter().copied());
    }
    Ok(Cow::Owned(bytes))
}

/// Whether a document starting with `head` (its first kilobyte is enough) is UTF-8 as it
/// stands: no UTF-16 byte-order mark or pattern, and no XML declaration naming another encoding
/// (US-ASCII is UTF-8). Such a document is decoded as it is read ([`XmlReadDecoder`]); any
/// other is transcoded whole first ([`to_utf8`]).
pub fn is_utf8_document(head: &[u8]) -> bool {
    if matches!(
        head,
        [0xFF, 0xFE, ..] | [b'<', 0, b'?', 0, ..] | [0xFE, 0xFF, ..] | [0, b'<', 0, b'?', ..]
    ) {
        return false;
    }
    match declared_encoding(head) {
        None => true,
        Some((label, _)) => {
            label.eq_ignore_ascii_case("utf-8")
                || label.eq_ignore_ascii_case("us-ascii")
                || label.eq_ignore_ascii_case("ascii")
        }
    }
}

/// The names under which a UTF-16 document may declare its encoding.
fn is_utf16_label(label: &str) -> bool {
    ["utf-16", "utf-16le", "utf-16be", "iso-10646-ucs-2", "ucs-2"]
        .iter()
        .any(|l| label.eq_ignore_ascii_case(l))
}

/// The `encoding` pseudo-attribute of the XML declaration, if any, and its byte offset.
fn declared_encoding(input: &[u8]) -> Option<(String, usize)> {
    let bom = if input.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let input = &input[bom..];
    if !input.starts_with(b"<?xml") {
        return None;
    }
    let end = input.iter().take(512).position(|&b| b == b'>')?;
    let decl = std::str::from_utf8(&input[..end]).ok()?;
    let i = decl.find("encoding")?;
    let rest = decl[i + 8..].trim_start().strip_prefix('=')?.trim_start();
    let q = rest.chars().next()?;
    if q != '"' && q != '\'' {
        return None;
    }
    let val = &rest[1..];
    let at = bom + (val.as_ptr() as usize - decl.as_ptr() as usize);
    Some((val[..val.find(q)?].to_string(), at))
}

/// Parses a whole document into owned events.
pub fn decode(input: &[u8]) -> Result<Vec<Event<'static>>> {
    let utf8 = to_utf8(input)?;
    let mut dec = XmlDecoder::new(&utf8);
    let mut out = Vec::new();
    while let Some(ev) = dec.next_event()? {
        out.push(ev.into_owned());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(s: &str) -> Result<Vec<Event<'static>>> {
        decode(s.as_bytes())
    }

    fn round(s: &str) -> String {
        String::from_utf8(encode(&events(s).unwrap()).unwrap()).unwrap()
    }

    #[test]
    fn basic_round_trip() {
        assert_eq!(
            round("<a x='1'>t&amp;<b/><![CDATA[<c>]]><!--k--><?p d?></a>"),
            "<a x=\"1\">t&amp;<b/><![CDATA[<c>]]><!--k--><?p d?></a>"
        );
        assert_eq!(
            round("<?xml version='1.0' encoding='ISO-8859-1'?><a/>"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a/>"
        );
    }

    #[test]
    fn namespaces() {
        let ev = events("<p:a xmlns:p='urn:p' xmlns='urn:d' p:x='1' y='2'><b/></p:a>").unwrap();
        assert_eq!(ev[1], Event::StartElement(QName::new("p", "urn:p", "a")));
        assert_eq!(
            ev[2],
            Event::Namespace {
                prefix: "p".into(),
                uri: "urn:p".into()
            }
        );
        assert_eq!(
            ev[4],
            Event::Attribute {
                name: QName::new("p", "urn:p", "x"),
                value: "1".into()
            }
        );
        assert_eq!(
            ev[5],
            Event::Attribute {
                name: QName::local("y"),
                value: "2".into()
            }
        );
        assert_eq!(ev[6], Event::StartElement(QName::new("", "urn:d", "b")));
        assert!(
            events("<a:b/>")
                .unwrap_err()
                .message()
                .contains("undeclared namespace prefix")
        );
        assert!(events("<a xmlns:p='u' p:x='1' p:x='2'/>").is_err());
        assert!(
            events("<a xmlns:p='u' xmlns:q='u' p:x='1' q:x='2'/>")
                .unwrap_err()
                .message()
                .contains("duplicate")
        );
    }

    #[test]
    fn entities_and_defaults() {
        let doc = r#"<!DOCTYPE a [
            <!ENTITY lt2 "&#38;#60;"> <!ENTITY m "<b>x&amp;y</b>"> <!ENTITY t "T">
            <!ATTLIST a d CDATA "dv" n NMTOKENS "  p   q " xmlns:z CDATA #FIXED "urn:z">
        ]><a n=" u  v ">&lt2;&m;&t;</a>"#;
        let ev = events(doc).unwrap();
        let xml = String::from_utf8(encode(&ev).unwrap()).unwrap();
        assert!(
            xml.contains("<a xmlns:z=\"urn:z\" n=\"u v\" d=\"dv\">&lt;<b>x&amp;y</b>T</a>"),
            "{xml}"
        );
    }

    #[test]
    fn tokenized_values_collapsed_only_where_needed() {
        // Declared types make values tokens: spaces at the ends and doubled ones go, a value
        // without them is kept as written; an undeclared attribute and a CDATA one keep theirs.
        let doc = r#"<!DOCTYPE r [<!ATTLIST e i ID #IMPLIED t NMTOKENS #IMPLIED c CDATA #IMPLIED>]>
            <r><e i="x1" t="a b" c=" c  d " u=" u  v "/><e i=" x2" t="a  b " c="e"/><f i=" y "/></r>"#;
        let atts: Vec<(String, String)> = events(doc)
            .unwrap()
            .into_iter()
            .filter_map(|e| match e {
                Event::Attribute { name, value } => {
                    Some((name.local.into_owned(), value.into_owned()))
                }
                _ => None,
            })
            .collect();
        let want = [
            ("i", "x1"),
            ("t", "a b"),
            ("c", " c  d "),
            ("u", " u  v "),
            ("i", "x2"),
            ("t", "a b"),
            ("c", "e"),
            ("i", " y "),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        assert_eq!(atts, want);
    }

    #[test]
    fn billion_laughs_fails_fast() {
        let mut doc = String::from("<!DOCTYPE l [<!ENTITY l0 \"lol\">");
        for i in 1..10 {
            doc.push_str(&format!(
                "<!ENTITY l{i} \"{}\">",
                format!("&l{};", i - 1).repeat(10)
            ));
        }
        doc.push_str("]><l>&l9;</l>");
        let t = std::time::Instant::now();
        let e = events(&doc).unwrap_err();
        assert_eq!(e.kind(), binxml_core::ErrorKind::Limit, "{e}");
        assert!(e.message().contains("entity expansion"), "{e}");
        // A hang guard, not a timing test (benchmarks measure speed): it fails in well under a
        // second.
        assert!(t.elapsed().as_secs() < 30);
    }

    #[test]
    fn line_ends_and_attribute_white_space() {
        let text = |doc: &str| -> Vec<String> {
            events(doc)
                .unwrap()
                .into_iter()
                .filter_map(|e| {
                    if let Event::Characters { text, .. } = e {
                        Some(text.into_owned())
                    } else {
                        None
                    }
                })
                .collect()
        };
        assert_eq!(
            text("<a>\r\n  <b>x\ry\r\n\r\nz\r</b>\r\n\t\t<c/>\r\n \t</a>"),
            ["\n  ", "x\ny\n\nz\n", "\n\t\t", "\n \t"]
        );
        assert_eq!(
            text(&format!("<a>\r\n{}</a>", " ".repeat(300))),
            [format!("\n{}", " ".repeat(300))]
        );
        assert_eq!(text("<a>\r\n&amp;\r</a>"), ["\n&\n"]);
        assert_eq!(text("<a><![CDATA[\r\nx]]><!--\r\n--></a>"), ["\nx"]);
        let attrs = |doc: &str| -> Vec<String> {
            events(doc)
                .unwrap()
                .into_iter()
                .filter_map(|e| {
                    if let Event::Attribute { value, .. } = e {
                        Some(value.into_owned())
                    } else {
                        None
                    }
                })
                .collect()
        };
        assert_eq!(
            attrs("<a x='1\n\t2' y='\r\n3\r4' z='&#9;&#10;&amp;\t' w='é\n\u{1F600}'/>"),
            ["1  2", " 3 4", "\t\n& ", "é \u{1F600}"]
        );
    }

    #[test]
    fn string_limit_applies_to_expanded_text() {
        let doc =
            "<!DOCTYPE a [<!ENTITY e '0123456789'>]><a>&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;</a>";
        let limits = binxml_core::Limits::default().with_max_string_len(100);
        let mut dec = XmlDecoder::with_limits(doc.as_bytes(), limits.clone());
        let e = binxml_core::collect_events(&mut dec).unwrap_err();
        assert_eq!(e.kind(), binxml_core::ErrorKind::Limit, "{e}");
        // The input itself is longer than the limit: every string is checked.
        let doc = format!("<a b='{}'/>", "x".repeat(150));
        let mut dec = XmlDecoder::with_limits(doc.as_bytes(), limits);
        assert_eq!(
            binxml_core::collect_events(&mut dec).unwrap_err().kind(),
            binxml_core::ErrorKind::Limit
        );
    }

    #[test]
    fn many_attributes_and_namespaces() {
        let attrs: String = (0..40).map(|i| format!(" a{i}='{i}' p:b{i}='x'")).collect();
        let ev = events(&format!(
            "<r xmlns:p='urn:p' xmlns:q='urn:p'{attrs}><c q:b3='y'/></r>"
        ))
        .unwrap();
        assert_eq!(
            ev.iter()
                .filter(|e| matches!(e, Event::Attribute { .. }))
                .count(),
            81
        );
        assert!(
            events(&format!(
                "<r xmlns:p='urn:p' xmlns:q='urn:p'{attrs} q:b39='y'/>"
            ))
            .unwrap_err()
            .message()
            .contains("duplicate")
        );
        assert!(
            events(&format!("<r xmlns:p='urn:p'{attrs} a39='y'/>"))
                .unwrap_err()
                .message()
                .contains("duplicate")
        );
        // Scopes: a prefix declared on a child is gone after it.
        assert!(
            events("<r><c xmlns:p='urn:p'/><p:d/></r>")
                .unwrap_err()
                .message()
                .contains("undeclared")
        );
        let ev = events("<r xmlns='urn:a'><c xmlns='urn:b'/><d/></r>").unwrap();
        let names: Vec<_> = ev
            .iter()
            .filter_map(|e| {
                if let Event::StartElement(q) = e {
                    Some(q.namespace.to_string())
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(names, ["urn:a", "urn:b", "urn:a"]);
    }

    #[test]
    fn external_entities_are_not_fetched() {
        let ev =
            events("<!DOCTYPE a [<!ENTITY e SYSTEM 'file:///etc/passwd'>]><a>&e;</a>").unwrap();
        assert!(
            ev.iter()
                .any(|e| matches!(e, Event::EntityReference { name, .. } if name == "e"))
        );
    }

    #[test]
    fn malformed() {
        for (doc, what) in [
            ("<a><b></a>", "expected `</b>`"),
            ("<a>", "not closed"),
            ("<a>&</a>", ""),
            ("<a/><b/>", "second root"),
            ("<a>\u{0}</a>", ""),
            ("", "no root"),
            ("<a>&undefined;</a>", "undeclared entity"),
            ("x<a/>", "outside the root"),
            ("<a b='1' b='2'/>", "duplicate attribute"),
            ("<a b='1'c='2'/>", "white space required"),
            ("<a b=1/>", "quoted value"),
            ("<a b='x<y'/>", "'<' in the value"),
            ("<a b='x/>", "unterminated value"),
            ("<a><!-- x -- y --></a>", "'--' inside a comment"),
            ("<a><![CDATA[x</a>", "unterminated CDATA"),
            ("<a>&#0;</a>", "bad character reference"),
            ("<a>&#xZZ;</a>", "bad character reference"),
            ("<a>& b;</a>", "not starting a reference"),
            ("<a xmlns:=''/>", "empty prefix"),
            ("<:a/>", "not a valid qualified name"),
            ("<a:/>", "not a valid qualified name"),
            ("<?xml version='2.0'?><a/>", "unsupported XML version"),
            ("<?xml version='1.'?><a/>", "unsupported XML version"),
            ("<!DOCTYPE a><!DOCTYPE a><a/>", "a second DOCTYPE"),
            (
                "<!DOCTYPE a [<!NOTATION a:b SYSTEM 'n'>]><a/>",
                "contains a colon",
            ),
            (
                "<!DOCTYPE a [<!ATTLIST a xmlns:p NMTOKEN #IMPLIED xmlns:q CDATA #IMPLIED>]>\
                 <a xmlns:p=' urn:x ' xmlns:q='urn:x' p:b='1' q:b='2'/>",
                "duplicate attribute",
            ),
            ("<a/>&#32;", "outside the root element"),
            ("&#32;<a/>", "outside the root element"),
            ("<a\u{D7}/>", "unexpected character in the start tag"),
            ("<\u{D7}/>", "not followed by a name"),
            ("<a><\u{300}b/></a>", "not followed by a name"),
            ("<a>&e\u{D7};</a>", "not starting a reference"),
            (
                "<!DOCTYPE a [<!ELEMENT a (b|c,d)>]><a/>",
                "mixed in one content model",
            ),
            (
                "<!DOCTYPE a [<!ENTITY e '%p;'>]><a/>",
                "parameter-entity reference",
            ),
            ("<!DOCTYPE a PUBLIC 'a{b' 'x'><a/>", "public identifier"),
            (
                "<!DOCTYPE a [<?xml version='1.0'?>]><a/>",
                "XML declaration",
            ),
            (
                "<!DOCTYPE a [<!ATTLIST a b CDATA '&e;'><!ENTITY e 'x'>]><a/>",
                "undeclared entity e",
            ),
            ("<?xml encoding='UTF-8'?><a/>", "without version"),
            (
                "<?xml version='1.0' standalone='maybe'?><a/>",
                "bad standalone",
            ),
            ("<a/><?xml version='1.0'?>", "only allowed at the start"),
            (" <?xml version='1.0'?><a/>", "only allowed at the start"),
            ("<a></a></b>", "without a matching start tag"),
            ("<a><1/></a>", "not followed by a name"),
            (
                "<!DOCTYPE a [<!ENTITY e '<b>'>]><a>&e;</a>",
                "leaves an element open",
            ),
            (
                "<!DOCTYPE a [<!ENTITY e '</a>'>]><a>&e;</a>",
                "without a matching start tag",
            ),
        ] {
            let e = events(doc).unwrap_err();
            assert!(e.offset().is_some() && e.line_col().is_some(), "{doc}: {e}");
            assert!(e.to_string().contains(what), "{doc}: {e}");
        }
        // The position of the error: the byte offset and the line and column.
        let e = events("<a>\n  <b x='1' x='2'/></a>").unwrap_err();
        assert_eq!((e.offset(), e.line_col()), (Some(15), Some((2, 12))), "{e}");
        let e = events("<a>\n  t &x </a>").unwrap_err();
        assert_eq!((e.offset(), e.line_col()), (Some(8), Some((2, 5))), "{e}");
        let e = decode(b"<a>\xff</a>").unwrap_err();
        assert_eq!(e.offset(), Some(3));
        assert!(e.message().contains("UTF-8"));
        let latin1 = b"<?xml version='1.0' encoding='ISO-8859-1'?><a>caf\xE9</a>";
        let once = to_utf8(latin1).unwrap().into_owned();
        assert_eq!(
            once,
            "<?xml version='1.0' encoding='UTF-8'?><a>caf\u{e9}</a>".as_bytes()
        );
        assert_eq!(
            to_utf8(&once).unwrap(),
            once,
            "preparing twice changes nothing"
        );
        let e = decode(b"<?xml version='1.0' encoding='UTF%8'?><a/>").unwrap_err();
        assert_eq!(
            e.to_string(),
            "xml: unsupported encoding \"UTF%8\" at byte 30 (line 1, column 31)"
        );
    }

    #[test]
    fn dtd_errors_point_at_the_declaration() {
        let doc = "<!DOCTYPE a [\n  <!ENTITY e 'x'>\n  <!ELEMENT a (#PCDATA|b)>\n]><a/>";
        let e = events(doc).unwrap_err();
        assert_eq!((e.offset(), e.line_col()), (Some(34), Some((3, 3))), "{e}");
        assert!(e.message().contains("must end in ')*'"), "{e}");
        // In a parameter entity's text: at the reference.
        let doc = "<!DOCTYPE a [<!ENTITY % p '<!ELEMENT a ANY'>\n%p;]><a/>";
        let e = events(doc).unwrap_err();
        assert_eq!(e.line_col(), Some((2, 1)), "{e}");
        assert!(e.message().contains("in %p;"), "{e}");
    }

    #[test]
    fn what_a_conforming_parser_accepts() {
        for doc in [
            "<?xml version='1.7'?><a/>",
            "<\u{E9}t\u{E9} \u{E9}='1'>x</\u{E9}t\u{E9}>",
            "<a\u{B7}\u{300}/>",
            "<!DOCTYPE a [<!ELEMENT a ((b|c)*,d?)+><!ELEMENT b (#PCDATA|c)*>\
             <!ATTLIST a t (x|y) 'x' n NOTATION (g) #IMPLIED><!NOTATION g PUBLIC 'g'>]><a/>",
        ] {
            assert!(events(doc).is_ok(), "{doc}: {:?}", events(doc));
        }
        // An undeclared entity is no error where the declarations were not all read (an
        // external DTD, a parameter entity): in an attribute value it is left out.
        for doc in [
            "<!DOCTYPE p SYSTEM 'x.dtd'><p title='a&nbsp;b'/>",
            "<!DOCTYPE p [<!ENTITY % e ''>%e;]><p title='a&nbsp;b'/>",
        ] {
            let ev = events(doc).unwrap();
            assert!(
                ev.iter()
                    .any(|e| matches!(e, Event::Attribute { value, .. } if value == "ab")),
                "{doc}"
            );
        }
        let ev = events("<!DOCTYPE a [<!ENTITY % e SYSTEM 'e.ent'>%e;%f;]><a>&g;</a>").unwrap();
        assert!(
            ev.iter()
                .any(|e| matches!(e, Event::EntityReference { name, .. } if name == "g"))
        );
    }

    #[test]
    fn writer_refuses_what_xml_cannot_hold() {
        for ev in [
            Event::text("a\u{0}b"),
            Event::Comment("a--b".into()),
            Event::ProcessingInstruction {
                target: "p".into(),
                data: "x?>".into(),
            },
        ] {
            let evs = vec![
                Event::start_document(),
                Event::StartElement(QName::local("r")),
                ev,
                Event::EndElement,
                Event::EndDocument,
            ];
            let e = encode(&evs).unwrap_err();
            assert_eq!(e.kind(), binxml_core::ErrorKind::Unsupported, "{e}");
        }
    }

    #[test]
    fn non_xml_characters_found_in_short_and_long_strings() {
        for len in 0..80 {
            for (bad, at) in [("\u{FFFE}", len / 2), ("\u{FFFF}", len), ("\u{1}", 0)] {
                let s = format!("{}{bad}{}", "\u{FFFD}".repeat(at / 3), "a".repeat(len));
                let want = s.find(bad);
                assert_eq!(reader::first_non_xml_char(&s), want, "{s:?}");
                assert_eq!(
                    reader::first_non_xml_char(&s.replace(bad, "\u{EFBF}")),
                    None
                );
            }
        }
    }

    #[test]
    fn writer_doctype() {
        let doc = |d: binxml_core::DocType<'static>, before_root: Vec<Event<'static>>| {
            let mut evs = vec![Event::start_document(), Event::DocType(d)];
            evs.extend(before_root);
            evs.extend([
                Event::StartElement(QName::local("svg")),
                Event::EndElement,
                Event::EndDocument,
            ]);
            String::from_utf8(encode(&evs).unwrap()).unwrap()
        };
        // What the Java Fast Infoset writer gives for a SYSTEM-only DOCTYPE: a public identifier
        // alone, which XML cannot write; it is the system identifier.
        let fi = binxml_core::DocType {
            name: "".into(),
            public_id: Some("x.dtd".into()),
            system_id: None,
            internal_subset: None,
        };
        assert_eq!(
            doc(fi.clone(), vec![]),
            "<!DOCTYPE svg SYSTEM \"x.dtd\">\n<svg/>"
        );
        // The name comes from the root element, whatever precedes it.
        assert_eq!(
            doc(fi, vec![Event::Comment("c".into()), Event::text("\n")]),
            "<!DOCTYPE svg SYSTEM \"x.dtd\">\n<!--c-->\n\n<svg/>"
        );
        let bad = |d: binxml_core::DocType<'static>| {
            let evs = vec![
                Event::start_document(),
                Event::DocType(d),
                Event::StartElement(QName::local("a")),
                Event::EndElement,
                Event::EndDocument,
            ];
            encode(&evs).unwrap_err()
        };
        let d =
            |public_id: Option<&'static str>, subset: Option<&'static str>| binxml_core::DocType {
                name: "a".into(),
                public_id: public_id.map(Into::into),
                system_id: Some("a.dtd".into()),
                internal_subset: subset.map(Into::into),
            };
        assert!(
            bad(d(Some("a{b"), None))
                .message()
                .contains("public identifier")
        );
        let e = bad(d(None, Some("<!ELEMENT a (#PCDATA|b)>")));
        assert!(
            e.message().contains("internal subset is not well-formed"),
            "{e}"
        );
        assert!(
            bad(d(None, Some("]><x/><!--")))
                .message()
                .contains("not well-formed")
        );
        let e = bad(d(None, Some("<!ENTITY u SYSTEM 'u.xml#f'>")));
        assert!(e.message().contains("fragment identifier"), "{e}");
    }

    use binxml_core::QName;
}
