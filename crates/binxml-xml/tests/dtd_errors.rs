//! An error inside the internal DTD subset is reported at the declaration it is in (byte
//! offset, line and column), not at the DOCTYPE. Each document holds several declarations, good
//! ones around one bad one; the expected position is where the bad declaration's text is found
//! in the document, counted here (lines by line feeds, columns in characters from 1).

use binxml_core::ErrorKind;

/// Byte offset, line and column of the first occurrence of `needle` in `doc`.
fn position(doc: &[u8], needle: &str) -> (u64, u64, u64) {
    let at = doc
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .unwrap_or_else(|| panic!("{needle:?} not in the document"));
    let before = &doc[..at];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count() as u64;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let mut text = &before[line_start..];
    // A byte-order mark is no character of the document.
    if line_start == 0 {
        text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    }
    let column = 1 + std::str::from_utf8(text).unwrap().chars().count() as u64;
    (at as u64, line, column)
}

/// `doc` must be refused, with an error at the start of `bad` whose message holds `what`.
fn refused_at(doc: &[u8], bad: &str, what: &str) {
    let shown = String::from_utf8_lossy(doc);
    let e = binxml_xml::decode(doc).expect_err(&shown);
    assert_eq!(e.kind(), ErrorKind::Malformed, "{shown}: {e}");
    let (offset, line, column) = position(doc, bad);
    assert_eq!(
        (e.offset(), e.line_col()),
        (Some(offset), Some((line, column))),
        "{shown}: {e}"
    );
    assert!(e.message().contains(what), "{shown}: {e}");
}

#[test]
fn each_bad_declaration_is_found_where_it_is() {
    // (the document, the bad declaration's text, a word of the message)
    let cases: &[(&str, &str, &str)] = &[
        (
            "<!DOCTYPE a [\n  <!ENTITY e 'x'>\n  <!ATTLIST a b CDATA #IMPLIED>\n  \
             <!ELEMENT a (b|c,d)>\n  <!ELEMENT b EMPTY>\n]>\n<a/>",
            "<!ELEMENT a (b|c,d)>",
            "mixed in one content model",
        ),
        (
            "<?xml version='1.0'?>\n<!DOCTYPE a [\n<!ELEMENT a ANY>\n<!ATTLIST a b WRONG #IMPLIED>\n]><a/>",
            "<!ATTLIST a b WRONG",
            "",
        ),
        (
            "<!DOCTYPE a [<!ENTITY ok 'fine'><!-- a comment with <!ELEMENT in it -->\
             <!ENTITY e '%p;'><!ELEMENT a ANY>]><a/>",
            "<!ENTITY e '%p;'>",
            "parameter-entity reference",
        ),
        (
            "<!DOCTYPE a [\r\n<!ENTITY q '>'>\r\n<!NOTATION n>\r\n]><a/>",
            "<!NOTATION n>",
            "",
        ),
        (
            "<!DOCTYPE a [\n<!ELEMENT a ANY>\n\t<?xml version='1.0'?>\n]><a/>",
            "<?xml version='1.0'?>",
            "XML declaration",
        ),
        (
            "<!DOCTYPE a [\n<!ELEMENT a ANY>\n<!-- two -- dashes -->\n]><a/>",
            "<!-- two -- dashes -->",
            "comment",
        ),
        (
            // Characters of several octets before the declaration, on its line: the column
            // counts characters.
            "<!DOCTYPE \u{e9}t\u{e9} [<!ENTITY \u{e9} '\u{fc}\u{1F600}'> <!ELEMENT \u{e9}t\u{e9} (#PCDATA|b)>]>\
             <\u{e9}t\u{e9}/>",
            "<!ELEMENT \u{e9}t\u{e9} (#PCDATA|b)>",
            "must end in ')*'",
        ),
        (
            "<!DOCTYPE a [\n  <!ELEMENT a ANY>\n  <![INCLUDE[ <!ELEMENT b ANY> ]]>\n]><a/>",
            "<![INCLUDE[",
            "",
        ),
        (
            "\u{FEFF}<!DOCTYPE a [<!ELEMENT a ANY><!ATTLIST a x (p|q) #WRONG>]><a/>",
            "<!ATTLIST a x (p|q) #WRONG>",
            "",
        ),
    ];
    for (doc, bad, what) in cases {
        refused_at(doc.as_bytes(), bad, what);
    }
}

#[test]
fn the_first_of_several_bad_declarations() {
    let doc = "<!DOCTYPE a [\n<!ELEMENT a ANY>\n<!ENTITY x SYSTEM>\n<!ELEMENT b (c|)>\n]><a/>";
    refused_at(doc.as_bytes(), "<!ENTITY x SYSTEM>", "");
}

#[test]
fn in_a_parameter_entity_at_its_reference() {
    // The bad declaration sits in the replacement text of %p;: the error points at the
    // reference, the place in the document where the declaration is read.
    let doc = "<!DOCTYPE a [\n<!ENTITY % p '<!ELEMENT a (b,)>'>\n<!ELEMENT b ANY>\n %p;\n]><a/>";
    refused_at(doc.as_bytes(), "%p;\n", "in %p;");
}

#[test]
fn errors_of_the_doctype_itself_at_the_doctype() {
    // Not inside the subset: the DOCTYPE's own public identifier.
    let doc = "<!-- c -->\n<!DOCTYPE a PUBLIC 'a{b' 'x.dtd' [<!ELEMENT a ANY>]><a/>";
    refused_at(doc.as_bytes(), "<!DOCTYPE", "public identifier");
}
