//! `binxml schema asn1` and `convert -t asn1-xsd-uper --schema`: the UBL 2.1 invoice (in the
//! repository) through the command line, and an invalid document refused before any output.

use std::process::Command;

use binxml_testkit::{scratch_dir, workspace_root};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_binxml"))
}

#[test]
fn schema_asn1_prints_the_module() {
    let xsd = workspace_root().join("tests/schemas/ubl21/xsdrt/maindoc/UBL-Invoice-2.1.xsd");
    let out = bin().args(["schema", "asn1"]).arg(&xsd).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("DEFINITIONS AUTOMATIC TAGS ::="), "{text}");
    assert!(text.contains("\nInvoice ::= InvoiceType\n"), "{text}");
    assert!(text.contains("ENCODING-CONTROL XER"));
    let out = bin()
        .args(["schema", "asn1", "--no-encoding-control"])
        .arg(&xsd)
        .output()
        .unwrap();
    let plain = String::from_utf8(out.stdout).unwrap();
    assert!(!plain.contains("ENCODING-CONTROL") && plain.ends_with("END\n"));
}

#[test]
fn convert_round_trip_and_refusal() {
    let root = workspace_root();
    let xsd = root.join("tests/schemas/ubl21/xsdrt/maindoc/UBL-Invoice-2.1.xsd");
    let xml = root.join("tests/schemas/ubl21/instances/UBL-Invoice-2.1-Example.xml");
    let dir = scratch_dir("cli-x694");
    let per = dir.join("inv.xuper");
    let out = bin()
        .arg("convert")
        .arg(&xml)
        .args(["-t", "asn1-xsd-uper", "--schema"])
        .arg(&xsd)
        .arg("-o")
        .arg(&per)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let size = std::fs::metadata(&per).unwrap().len();
    assert!(
        size * 5 < std::fs::metadata(&xml).unwrap().len(),
        "{size} bytes"
    );
    // The extension names the format; the schema decodes it.
    let out = bin()
        .arg("convert")
        .arg(&per)
        .args(["-t", "xml", "--schema"])
        .arg(&xsd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(">TOSL108<"), "{text}");
    // Aligned PER, through standard output and back by name.
    let out = bin()
        .arg("convert")
        .arg(&xml)
        .args(["-t", "asn1-xsd-aper", "--schema"])
        .arg(&xsd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let aper = dir.join("inv.bin");
    std::fs::write(&aper, &out.stdout).unwrap();
    assert!(out.stdout.len() as u64 > size, "aligned PER is the larger");
    let out = bin()
        .arg("convert")
        .arg(&aper)
        .args(["-f", "asn1-xsd-aper", "-t", "xml", "--schema"])
        .arg(&xsd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8(out.stdout).unwrap().contains(">TOSL108<"));
    // BER to a file (its extension, .xber, names the format) and back; a BER encoding
    // starts with the root SEQUENCE's universal tag.
    let ber = dir.join("inv.xber");
    let out = bin()
        .arg("convert")
        .arg(&xml)
        .args(["-t", "asn1-xsd-ber", "--schema"])
        .arg(&xsd)
        .arg("-o")
        .arg(&ber)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&ber).unwrap();
    assert_eq!(bytes[0], 0x30);
    assert!(bytes.len() as u64 > size, "BER is larger than PER");
    let out = bin()
        .arg("convert")
        .arg(&ber)
        .args(["-t", "xml", "--schema"])
        .arg(&xsd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8(out.stdout).unwrap().contains(">TOSL108<"));

    let bad = dir.join("bad.xml");
    std::fs::write(
        &bad,
        r#"<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><Nope/></Invoice>"#,
    )
    .unwrap();
    let target = dir.join("bad.xuper");
    let out = bin()
        .arg("convert")
        .arg(&bad)
        .args(["-t", "asn1-xsd-uper", "--schema"])
        .arg(&xsd)
        .arg("-o")
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not valid against the schema"), "{err}");
    assert!(!target.exists());
    // Without the schema, the format cannot be written.
    let out = bin()
        .arg("convert")
        .arg(&xml)
        .args(["-t", "asn1-xsd-uper", "-o"])
        .arg(dir.join("none.xuper"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs the schema"));
    let out = bin()
        .arg("convert")
        .arg(&xml)
        .args(["-t", "asn1-xsd-ber", "-o"])
        .arg(dir.join("none.xber"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs the schema"));
}

/// A schema whose root document declares many global elements (UDDI v3): the conversion
/// needs `--schema-root`, and goes through with it, both ways.
#[test]
fn schema_root_names_the_root_element() {
    let root = workspace_root();
    let dir = root.join("tests/schemas/uddi3");
    let xml = dir.join("instances/juddi_tck_v3_businessEntitySigned.xml");
    let scratch = scratch_dir("cli-x694-root");
    let ber = scratch.join("be.xber");
    let convert = |input: &std::path::Path, args: &[&str]| {
        let mut c = bin();
        c.arg("convert").arg(input).args(args).arg("--schema");
        c.arg(dir.join("uddi_v3.xsd"));
        for (url, file) in [
            ("http://www.w3.org/2001/xml.xsd", "../xmlschema/xml.xsd"),
            (
                "http://www.w3.org/TR/xmldsig-core/xmldsig-core-schema.xsd",
                "../fpml4/xmldsig-core-schema.xsd",
            ),
        ] {
            c.arg("--schema-location")
                .arg(format!("{url}={}", dir.join(file).display()));
        }
        c.output().unwrap()
    };
    let out = convert(&xml, &["-t", "asn1-xsd-ber", "-o", ber.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("name the root element"), "{err}");
    let named = ["--schema-root", "{urn:uddi-org:api_v3}businessEntity"];
    let out = convert(
        &xml,
        &[
            &["-t", "asn1-xsd-ber", "-o", ber.to_str().unwrap()][..],
            &named,
        ]
        .concat(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = convert(&ber, &[&["-t", "xml"][..], &named].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains(">John Doe Enterprises<")
    );
}
