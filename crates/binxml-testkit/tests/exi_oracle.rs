//! The EXI oracle (`ExiOracle`, EXIficient 1.0.7) answers as documented: known bytes for `<a/>`
//! (the worked example of the implementer's notes), a round trip in every alignment, header
//! options honoured on decoding, errors reported as `Err`. Skipped when `interop/exi/setup.sh`
//! has not run, except under `CI=true`.

use binxml_testkit::{ExiOracle, scratch_dir};

#[test]
fn exi_oracle_answers() {
    let Some(mut exi) = ExiOracle::start_or_skip() else {
        return;
    };
    let dir = scratch_dir("exi-oracle");
    // `<a/>` bit-packed: header 80, then URI hit "" (01), local name length 1+1, 'a', EE (00)
    assert_eq!(
        exi.encode_bytes(b"<a/>", "-", &dir).unwrap(),
        [0x80, 0x40, 0x98, 0x40]
    );
    // with the options in the header: A0, options document SE(header) EE, then the body
    assert_eq!(
        exi.encode_bytes(b"<a/>", "header", &dir).unwrap(),
        [0xA0, 0x68, 0x13, 0x08]
    );
    let xml = "<r xmlns:p=\"urn:p\"><p:i k=\"v\">t</p:i><!--c--><p:i k=\"v\">t</p:i></r>";
    for mode in ["bitpacked", "bytealigned", "precompression", "compression"] {
        let opts = format!("{mode},prefixes,comments");
        let bytes = exi.encode_bytes(xml.as_bytes(), &opts, &dir).unwrap();
        let back = exi.decode_bytes(&bytes, &opts, &dir).unwrap();
        assert_eq!(
            String::from_utf8(back).unwrap(),
            format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}",
                xml.replace("\"/>", "\"></p:i>")
            ),
            "{opts}"
        );
    }
    // header options win over the options given to the decoder
    let bytes = exi
        .encode_bytes(b"<a><!--c--></a>", "compression,comments,header", &dir)
        .unwrap();
    let back = exi.decode_bytes(&bytes, "-", &dir).unwrap();
    assert!(
        String::from_utf8(back).unwrap().ends_with("<!--c--></a>"),
        "header options not honoured"
    );
    assert_eq!(
        exi.request(&["options", "strict,lexical,header"]).unwrap(),
        "lexical,strict,header"
    );
    // errors come back as Err, and the driver goes on serving
    assert!(exi.encode_bytes(b"<a>", "-", &dir).is_err());
    assert!(exi.encode_bytes(b"<a/>", "nosuchoption", &dir).is_err());
    assert!(exi.encode_bytes(b"<a/>", "strict,comments", &dir).is_err());
    assert!(exi.decode_bytes(b"not exi", "-", &dir).is_err());
    assert_eq!(exi.encode_bytes(b"<a/>", "", &dir).unwrap().len(), 4);
}
