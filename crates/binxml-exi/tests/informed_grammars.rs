//! Schema-informed grammars built from the schema model.

use std::sync::Arc;

use binxml_exi::informed::{SchemaGrammars, Terminal};
use binxml_schema::{LoadOptions, Schema};

fn grammars(xsd: &str) -> SchemaGrammars {
    let s = Schema::from_bytes_with(xsd.as_bytes(), "t.xsd", &LoadOptions::default()).unwrap();
    SchemaGrammars::new(Arc::new(s)).unwrap()
}

fn describe(g: &SchemaGrammars, start: binxml_exi::informed::GrammarId) -> String {
    let s = g.schema();
    let mut out = String::new();
    let mut seen = vec![start];
    let mut i = 0;
    while i < seen.len() {
        let id = seen[i];
        i += 1;
        let st = g.grammar(id);
        out.push_str(&format!(
            "s{} {:?}:",
            seen.iter().position(|x| *x == id).unwrap(),
            st.kind
        ));
        for p in &st.productions {
            let label = match &p.terminal {
                Terminal::At { name, .. } => format!("AT({name})"),
                Terminal::AtNs(u) => format!("AT({u}:*)"),
                Terminal::AtAny => "AT(*)".into(),
                Terminal::Se(e) => format!("SE({})", s.element(*e).name),
                Terminal::SeRelaxed(n) => format!("SE({n})[relaxed]"),
                Terminal::SeNs(u) => format!("SE({u}:*)"),
                Terminal::SeAny => "SE(*)".into(),
                Terminal::Ee => "EE".into(),
                Terminal::Ch(_) => "CH".into(),
                Terminal::ChMixed => "CH[mixed]".into(),
            };
            out.push_str(&format!(" {label}"));
            if let Some(n) = p.next {
                if !seen.contains(&n) {
                    seen.push(n);
                }
                out.push_str(&format!(
                    "->s{}",
                    seen.iter().position(|x| *x == n).unwrap()
                ));
            }
            out.push(';');
        }
        out.push('\n');
    }
    out
}

#[test]
fn spec_appendix_h_example() {
    // EXI 1.0 appendix H: product with sku (required), color (optional), then
    // sequence(description, quantity?, price?).
    let g = grammars(
        r#"<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="product"><xs:complexType>
    <xs:sequence maxOccurs="2">
      <xs:element name="description" type="xs:string" minOccurs="0"/>
      <xs:element name="quantity" type="xs:integer"/>
      <xs:element name="price" type="xs:float"/>
    </xs:sequence>
    <xs:attribute name="sku" type="xs:string" use="required"/>
    <xs:attribute name="color" type="xs:string"/>
  </xs:complexType></xs:element>
</xs:schema>"#,
    );
    let product = g.document_elements()[0];
    let text = describe(&g, g.element(product).start);
    eprintln!("{text}");
    let first = text.lines().next().unwrap();
    assert_eq!(first, "s0 FirstStartTag: AT(color)->s1; AT(sku)->s2;");
}
