//! The `binxml` command as a user runs it.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_binxml"))
}

fn scratch(name: &str) -> PathBuf {
    binxml_testkit::scratch_dir(&format!("cli-{name}"))
}

#[test]
fn malformed_xml_gets_one_error_line_with_position() {
    let dir = scratch("malformed");
    let cases: &[(&str, &[u8], &str)] = &[
        ("truncated", b"<a><b>text</b>", "not closed"),
        ("mismatched", b"<a><b></a>", "expected `</b>`"),
        ("bare-amp", b"<a>fish & chips</a>", ""),
        ("bad-utf8", b"<a>caf\xC3</a>", "invalid UTF-8"),
        ("two-roots", b"<a/><b/>", "second root element"),
    ];
    for (name, doc, what) in cases {
        let path = dir.join(format!("{name}.xml"));
        std::fs::write(&path, doc).unwrap();
        let out = bin()
            .args(["convert"])
            .arg(&path)
            .args(["-t", "xml"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = String::from_utf8(out.stderr).unwrap();
        let lines: Vec<_> = err.lines().collect();
        assert_eq!(lines.len(), 1, "{name}: {err}");
        let prefix = format!("binxml: error: {}: xml: ", path.display());
        assert!(lines[0].starts_with(&prefix), "{name}: {err}");
        assert!(
            lines[0].contains(" at byte ") && lines[0].contains("(line "),
            "{name}: {err}"
        );
        assert!(lines[0].contains(what), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name}: no partial output on stdout");
    }
}

#[test]
fn convert_detects_and_uses_stdin_stdout() {
    let mut child = bin()
        .args(["convert", "-", "-t", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"a": [1, "x", true]}"#)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout)
            .unwrap()
            .replace([' ', '\n'], ""),
        r#"{"a":[1,"x",true]}"#
    );
}

#[test]
fn convert_to_file_and_back() {
    let dir = scratch("file");
    let src = dir.join("in.json");
    std::fs::write(&src, br#"{"n": 1.50, "s": "<&>"}"#).unwrap();
    let xml = dir.join("out.xml");
    let st = bin()
        .arg("convert")
        .arg(&src)
        .args(["-t", "xml", "-o"])
        .arg(&xml)
        .status()
        .unwrap();
    assert!(st.success());
    let back = bin()
        .arg("convert")
        .arg(&xml)
        .args(["-t", "json"])
        .output()
        .unwrap();
    assert!(back.status.success());
    assert_eq!(
        String::from_utf8(back.stdout)
            .unwrap()
            .replace([' ', '\n'], ""),
        r#"{"n":1.50,"s":"<&>"}"#
    );
}

#[test]
fn failed_conversion_leaves_no_output_file() {
    let dir = scratch("nofile");
    let src = dir.join("bad.xml");
    std::fs::write(&src, b"<a>").unwrap();
    let target = dir.join("bad.out.xml");
    let out = bin()
        .arg("convert")
        .arg(&src)
        .args(["-t", "xml", "-o"])
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        std::fs::read_dir(&dir).unwrap().count() == 1,
        "only the input remains"
    );
}

#[test]
fn batch_converts_a_directory() {
    let dir = scratch("batch");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    std::fs::write(src.join("a.xml"), b"<a>1</a>").unwrap();
    std::fs::write(src.join("sub/b.xml"), b"<b x='y'/>").unwrap();
    std::fs::write(src.join("c.xml"), b"<c>").unwrap();
    let out_dir = dir.join("out");
    let out = bin()
        .args(["convert"])
        .arg(&src)
        .args(["-t", "xml", "--out-dir"])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "one input is malformed");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("c.xml: xml: unexpected end of input"), "{err}");
    assert!(err.contains("converted 2 of 3 files"), "{err}");
    assert_eq!(std::fs::read(out_dir.join("a.xml")).unwrap(), b"<a>1</a>");
    assert_eq!(
        std::fs::read(out_dir.join("sub/b.xml")).unwrap(),
        b"<b x=\"y\"/>"
    );
    assert!(!out_dir.join("c.xml").exists());
}

#[test]
fn inspect_prints_offsets() {
    let dir = scratch("inspect");
    let p = dir.join("i.xml");
    std::fs::write(&p, b"<a>\n  <b k='v'/>\n</a>").unwrap();
    let out = bin().arg("inspect").arg(&p).output().unwrap();
    assert!(out.status.success());
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.lines()
            .any(|l| l.trim_start().starts_with("6") && l.contains("StartElement b")),
        "{s}"
    );
    assert!(s.contains("Attribute k = \"v\""), "{s}");
}

#[test]
fn formats_lists_every_codec() {
    let out = bin().arg("formats").output().unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    for f in binxml_formats() {
        assert!(
            s.lines().any(|l| l.starts_with(f)),
            "{f} missing from:\n{s}"
        );
    }
}

fn binxml_formats() -> Vec<&'static str> {
    vec![
        "xml",
        "json",
        "fi",
        "tsf",
        "xebu",
        "asn1-uper",
        "asn1-aper",
        "asn1-ber",
    ]
}

#[test]
fn every_binary_format_round_trips_the_example_through_files() {
    let dir = scratch("formats");
    let example = binxml_testkit::workspace_root().join("examples/invoice.xml");
    for f in ["fi", "tsf", "xebu", "asn1-uper", "asn1-aper", "asn1-ber"] {
        let enc = dir.join(format!("inv.{f}"));
        let out = bin()
            .arg("convert")
            .arg(&example)
            .args(["-t", f, "-o"])
            .arg(&enc)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut back = bin();
        back.arg("convert").arg(&enc).args(["-t", "xml"]);
        if f.starts_with("asn1-") && f != "asn1-ber" {
            back.args(["-f", f]);
        }
        let out = back.output().unwrap();
        assert!(
            out.status.success(),
            "{f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let xml = String::from_utf8(out.stdout).unwrap();
        assert!(
            xml.contains("<LineItem LineID=\"2\">")
                && xml.contains("Installation &amp; commissioning"),
            "{f}: {xml}"
        );
    }
}

#[test]
fn refuses_binary_output_to_nothing_but_writes_to_a_pipe() {
    let example = binxml_testkit::workspace_root().join("examples/invoice.xml");
    let out = bin()
        .arg("convert")
        .arg(&example)
        .args(["-t", "fi"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(&out.stdout[..4], &[0xE0, 0, 0, 1]);
}

#[test]
fn fi_external_vocabulary_round_trip() {
    let dir = scratch("vocab");
    let example = binxml_testkit::workspace_root().join("examples/invoice.xml");
    let vocab = dir.join("invoice.vocab");
    let out = bin()
        .arg("fi-vocabulary")
        .arg(&example)
        .arg("-o")
        .arg(&vocab)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let arg = format!("urn:example:vocab={}", vocab.display());
    let with = dir.join("with.fi");
    let out = bin()
        .arg("convert")
        .arg(&example)
        .args(["-t", "fi", "--fi-vocabulary", &arg, "-o"])
        .arg(&with)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let without = dir.join("without.fi");
    assert!(
        bin()
            .arg("convert")
            .arg(&example)
            .args(["-t", "fi", "-o"])
            .arg(&without)
            .status()
            .unwrap()
            .success()
    );
    let (a, b) = (
        std::fs::metadata(&with).unwrap().len(),
        std::fs::metadata(&without).unwrap().len(),
    );
    assert!(
        a < b,
        "the vocabulary makes the document smaller ({a} vs {b})"
    );
    // Without the vocabulary the decoder refuses, naming the URI.
    let out = bin()
        .arg("convert")
        .arg(&with)
        .args(["-t", "xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("urn:example:vocab"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = bin()
        .arg("convert")
        .arg(&with)
        .args(["-t", "xml", "--fi-vocabulary", &arg])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("<LineItem LineID=\"3\">"));
}

#[test]
fn exi_options_on_the_command_line() {
    let dir = scratch("exi");
    let src = dir.join("in.xml");
    std::fs::write(&src, b"<a x='1'><!--c--><b>t</b></a>").unwrap();
    let exi = dir.join("out.exi");
    // Options in the stream's header: decoding needs none.
    let st = bin()
        .arg("convert")
        .arg(&src)
        .args(["-t", "exi", "--exi", "byte-aligned,comments,header", "-o"])
        .arg(&exi)
        .status()
        .unwrap();
    assert!(st.success());
    let back = bin()
        .arg("convert")
        .arg(&exi)
        .args(["-t", "xml"])
        .output()
        .unwrap();
    assert!(back.status.success());
    let text = String::from_utf8(back.stdout).unwrap();
    assert!(text.contains("<!--c--><b>t</b>"), "{text}");
    // Without them in the header, the decoder needs them: the error says so.
    let bare = dir.join("bare.exi");
    let st = bin()
        .arg("convert")
        .arg(&src)
        .args(["-t", "exi", "--exi", "byte-aligned,comments", "-o"])
        .arg(&bare)
        .status()
        .unwrap();
    assert!(st.success());
    let wrong = bin()
        .arg("convert")
        .arg(&bare)
        .args(["-t", "xml"])
        .output()
        .unwrap();
    assert!(!wrong.status.success());
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains("the header names no options"), "{err}");
    let right = bin()
        .arg("convert")
        .arg(&bare)
        .args(["-t", "xml", "--exi", "byte-aligned,comments"])
        .output()
        .unwrap();
    assert!(right.status.success());
    assert!(
        String::from_utf8(right.stdout)
            .unwrap()
            .contains("<!--c-->")
    );
    // A misspelt option is a usage error naming the known ones.
    let bad = bin()
        .arg("convert")
        .arg(&src)
        .args(["-t", "exi", "--exi", "compresion"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("known:"));
}

#[test]
fn validate_reports_each_error_with_line_and_column() {
    let dir = scratch("validate");
    std::fs::create_dir_all(&dir).unwrap();
    let xsd = dir.join("order.xsd");
    std::fs::write(
        &xsd,
        r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="order"><xs:complexType><xs:sequence>
    <xs:element name="item" maxOccurs="unbounded"><xs:complexType>
      <xs:attribute name="sku" use="required"/></xs:complexType></xs:element>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>"#,
    )
    .unwrap();
    let good = dir.join("good.xml");
    std::fs::write(&good, "<order><item sku='1'/><item sku='2'/></order>").unwrap();
    let bad = dir.join("bad.xml");
    std::fs::write(&bad, "<order>\n  <item/>\n  <extra/>\n</order>").unwrap();
    let out = bin()
        .args(["validate", "--schema"])
        .arg(&xsd)
        .arg(&good)
        .arg(&bad)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("good.xml: valid"), "{stdout}");
    assert!(
        stdout.contains("bad.xml: 2:3: /order/item: the required attribute sku is missing"),
        "{stdout}"
    );
    assert!(
        stdout.contains("bad.xml: 3:3: /order/extra: element extra is not allowed here"),
        "{stdout}"
    );
    assert!(stdout.contains("bad.xml: invalid (2 errors)"), "{stdout}");
    // A schema that cannot be loaded is an error naming the schema's line.
    std::fs::write(&xsd, "<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'>\n<xs:element name='a' type='nope'/></xs:schema>").unwrap();
    let out = bin()
        .args(["validate", "--schema"])
        .arg(&xsd)
        .arg(&good)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("order.xsd:2:1: refers to type nope, which is not declared"),
        "{stderr}"
    );
}

#[test]
fn schema_informed_exi_round_trips_through_files() {
    let dir = scratch("exi-schema");
    std::fs::create_dir_all(&dir).unwrap();
    let xsd = dir.join("order.xsd");
    std::fs::write(
        &xsd,
        r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="order"><xs:complexType><xs:sequence>
    <xs:element name="item" maxOccurs="unbounded"><xs:complexType><xs:simpleContent>
      <xs:extension base="xs:string"><xs:attribute name="sku" use="required"/></xs:extension>
    </xs:simpleContent></xs:complexType></xs:element>
  </xs:sequence><xs:attribute name="id" type="xs:string"/></xs:complexType></xs:element>
</xs:schema>"#,
    )
    .unwrap();
    let xml = r#"<order id="7"><item sku="a1">pen</item><item sku="b2">ink</item></order>"#;
    let input = dir.join("order.xml");
    std::fs::write(&input, xml).unwrap();
    let exi = dir.join("order.exi");
    let out = bin()
        .args(["convert", "-t", "exi", "--schema"])
        .arg(&xsd)
        .arg(&input)
        .arg("-o")
        .arg(&exi)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let schema_less = bin()
        .args(["convert", "-t", "exi"])
        .arg(&input)
        .arg("-o")
        .arg(dir.join("plain.exi"))
        .output()
        .unwrap();
    assert!(schema_less.status.success());
    let informed = std::fs::metadata(&exi).unwrap().len();
    let plain = std::fs::metadata(dir.join("plain.exi")).unwrap().len();
    assert!(
        informed < plain,
        "schema-informed {informed} bytes, schema-less {plain}"
    );
    let back = bin()
        .args(["convert", "-t", "xml", "-f", "exi", "--schema"])
        .arg(&xsd)
        .arg(&exi)
        .output()
        .unwrap();
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&back.stdout).trim(), xml);
    // inspect reads the stream with the schema's grammars, each event with its bit offset;
    // without the schema the stream is not readable as schema-less EXI.
    let shown = bin()
        .args(["inspect", "--schema"])
        .arg(&xsd)
        .arg(&exi)
        .output()
        .unwrap();
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("StartElement item"), "{text}");
    assert!(text.contains("Attribute sku = \"b2\""), "{text}");
    assert!(text.contains("bit "), "{text}");
    // Prefixes, a fragment and a datatype representation map in the header: decoded with the
    // schema alone, back to the same document.
    let rich = dir.join("rich.exi");
    let out = bin()
        .args(["convert", "-t", "exi", "--schema"])
        .arg(&xsd)
        .args([
            "--exi",
            "prefixes,fragment,header,dtr=xsd:string=exi:string",
        ])
        .arg(&input)
        .arg("-o")
        .arg(&rich)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let back = bin()
        .args(["convert", "-t", "xml", "-f", "exi", "--schema"])
        .arg(&xsd)
        .arg(&rich)
        .output()
        .unwrap();
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&back.stdout).trim(), xml);
    // --schema with a format it does not apply to is a usage error.
    let bad = bin()
        .args(["convert", "-f", "xml", "-t", "fi", "--schema"])
        .arg(&xsd)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
