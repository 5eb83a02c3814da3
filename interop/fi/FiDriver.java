// Driver for binxml's Fast Infoset interop tests: one JVM serves a whole batch of commands read
// from stdin, one a line, fields separated by tabs; it answers one line each: "ok" or
// "err <message>".
//
//   encode <in.xml> <out.fi> [<vocabulary.txt> <uri>]   XML -> SAX (JDK parser) -> FI serializer
//   decode <in.fi> <out.xml> [<vocabulary.txt> <uri>]   FI SAX parser -> identity transform -> XML
//   time-decode <in.fi> <iterations> [warm-up ms]        FI SAX parse with an empty handler, after
//                                                        warming the JIT (default 3000 ms); answers
//                                                        "ok <nanoseconds per parse>"
//   time-encode <in.xml> <iterations> [warm-up ms]       SAX events recorded once, replayed into the
//                                                        FI serializer; "ok <nanoseconds>"
//
// The vocabulary file is binxml's text form (binxml_fi::Vocabulary::to_text): one entry a line,
// "table<TAB>value" or "element-name|attribute-name<TAB>prefix<TAB>namespace<TAB>local".

import com.sun.xml.fastinfoset.sax.SAXDocumentParser;
import com.sun.xml.fastinfoset.sax.SAXDocumentSerializer;
import org.jvnet.fastinfoset.ExternalVocabulary;
import org.jvnet.fastinfoset.Vocabulary;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.InputSource;
import org.xml.sax.XMLReader;
import org.xml.sax.ext.LexicalHandler;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.DefaultHandler;

import javax.xml.namespace.QName;
import javax.xml.parsers.SAXParserFactory;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.sax.SAXSource;
import javax.xml.transform.stream.StreamResult;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

public class FiDriver {
    static final String LEXICAL = "http://xml.org/sax/properties/lexical-handler";

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] f = line.split("\t");
            try {
                String r = run(f);
                out.println(r == null ? "ok" : "ok " + r);
            } catch (Throwable e) {
                String m = String.valueOf(e);
                Throwable c = e.getCause();
                while (c != null) {
                    m += " / " + c;
                    c = c.getCause();
                }
                out.println("err " + m.replace('\n', ' ').replace('\r', ' '));
            }
        }
    }

    static String run(String[] f) throws Exception {
        switch (f[0]) {
            case "encode": {
                ExternalVocabulary ev = f.length >= 5 ? loadVocabulary(f[3], f[4]) : null;
                try (OutputStream os = new BufferedOutputStream(new FileOutputStream(f[2]))) {
                    SAXDocumentSerializer s = new SAXDocumentSerializer();
                    if (ev != null) s.setExternalVocabulary(ev);
                    s.setOutputStream(os);
                    XMLReader r = xmlReader();
                    r.setContentHandler(s);
                    r.setProperty(LEXICAL, s);
                    r.parse(new InputSource(new File(f[1]).toURI().toString()));
                }
                return null;
            }
            case "decode": {
                ExternalVocabulary ev = f.length >= 5 ? loadVocabulary(f[3], f[4]) : null;
                SAXDocumentParser p = new SAXDocumentParser();
                if (ev != null) {
                    Map<String, Object> m = new HashMap<>();
                    m.put(ev.URI, ev);
                    setVocabularies(p, m);
                }
                try (InputStream is = new BufferedInputStream(new FileInputStream(f[1]));
                     Writer w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(f[2]), StandardCharsets.UTF_8))) {
                    XmlOut x = new XmlOut(w);
                    p.setContentHandler(x);
                    p.setLexicalHandler(x);
                    p.parse(is);
                }
                return null;
            }
            case "time-decode": {
                byte[] data = Files.readAllBytes(Paths.get(f[1]));
                int n = Integer.parseInt(f[2]);
                SAXDocumentParser p = new SAXDocumentParser();
                DefaultHandler h = new DefaultHandler();
                p.setContentHandler(h);
                // warm the JIT as the bench harness does (bench/peers/java/BenchPeers.java: 3 s):
                // a few parses leave the hot methods interpreted or in C1 code, and the reference
                // then measures 2-3x slower than it runs
                long warm = f.length > 3 ? Long.parseLong(f[3]) : 3000;
                long w0 = System.nanoTime();
                for (int i = 0; i < Math.max(3, n / 5) || System.nanoTime() - w0 < warm * 1_000_000L; i++) {
                    p.parse(new ByteArrayInputStream(data));
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) p.parse(new ByteArrayInputStream(data));
                return String.valueOf((System.nanoTime() - t0) / n);
            }
            case "time-encode": {
                Recorder rec = new Recorder();
                XMLReader r = xmlReader();
                r.setContentHandler(rec);
                r.setProperty(LEXICAL, rec);
                r.parse(new InputSource(new File(f[1]).toURI().toString()));
                int n = Integer.parseInt(f[2]);
                ByteArrayOutputStream bos = new ByteArrayOutputStream(1 << 20);
                SAXDocumentSerializer s = new SAXDocumentSerializer();
                long warm = f.length > 3 ? Long.parseLong(f[3]) : 3000;
                long w0 = System.nanoTime();
                for (int i = 0; i < Math.max(3, n / 5) || System.nanoTime() - w0 < warm * 1_000_000L; i++) {
                    bos.reset();
                    s.reset();
                    s.setOutputStream(bos);
                    rec.replay(s);
                }
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    bos.reset();
                    s.reset();
                    s.setOutputStream(bos);
                    rec.replay(s);
                }
                return String.valueOf((System.nanoTime() - t0) / n);
            }
            default:
                throw new IllegalArgumentException("unknown command " + f[0]);
        }
    }

    @SuppressWarnings("unchecked")
    static void setVocabularies(SAXDocumentParser p, Map<String, Object> m) {
        // the parser accepts ExternalVocabulary values in the map (it converts them itself)
        Map raw = m;
        p.setExternalVocabularies(raw);
    }

    static XMLReader xmlReader() throws Exception {
        SAXParserFactory f = SAXParserFactory.newInstance();
        f.setNamespaceAware(true);
        f.setValidating(false);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        XMLReader r = f.newSAXParser().getXMLReader();
        r.setFeature("http://xml.org/sax/features/namespace-prefixes", false);
        r.setFeature("http://xml.org/sax/features/external-general-entities", false);
        r.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
        return r;
    }

    static String unescape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char d = s.charAt(++i);
                switch (d) {
                    case 't': b.append('\t'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    default: b.append(d);
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    static ExternalVocabulary loadVocabulary(String file, String uri) throws IOException {
        Vocabulary v = new Vocabulary();
        for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) {
            if (line.isEmpty()) continue;
            String[] p = line.split("\t", -1);
            for (int i = 1; i < p.length; i++) p[i] = unescape(p[i]);
            switch (p[0]) {
                case "restricted-alphabet": v.restrictedAlphabets.add(p[1]); break;
                case "encoding-algorithm": v.encodingAlgorithms.add(p[1]); break;
                case "prefix": if (!p[1].equals("xml")) v.prefixes.add(p[1]); break;
                case "namespace-name":
                    if (!p[1].equals("http://www.w3.org/XML/1998/namespace")) v.namespaceNames.add(p[1]);
                    break;
                case "local-name": v.localNames.add(p[1]); break;
                case "other-ncname": v.otherNCNames.add(p[1]); break;
                case "other-uri": v.otherURIs.add(p[1]); break;
                case "attribute-value": v.attributeValues.add(p[1]); break;
                case "content-character-chunk": v.characterContentChunks.add(p[1]); break;
                case "other-string": v.otherStrings.add(p[1]); break;
                case "element-name": v.elements.add(new QName(p[2], p[3], p[2].isEmpty() ? "" : p[1])); break;
                case "attribute-name": v.attributes.add(new QName(p[2], p[3], p[2].isEmpty() ? "" : p[1])); break;
                default: throw new IOException("unknown vocabulary table " + p[0]);
            }
        }
        return new ExternalVocabulary(uri, v);
    }

    /** Writes SAX events as XML, keeping namespace declarations in the order they were reported. */
    static final class XmlOut extends DefaultHandler implements LexicalHandler {
        final Writer w;
        final List<String[]> pending = new ArrayList<>();

        XmlOut(Writer w) { this.w = w; }

        void esc(String s, boolean attr) throws org.xml.sax.SAXException {
            try {
                for (int i = 0; i < s.length(); i++) {
                    char c = s.charAt(i);
                    switch (c) {
                        case '&': w.write("&amp;"); break;
                        case '<': w.write("&lt;"); break;
                        case '>': w.write("&gt;"); break;
                        case '\r': w.write("&#13;"); break;
                        case '"': w.write(attr ? "&quot;" : "\""); break;
                        case '\t': w.write(attr ? "&#9;" : "\t"); break;
                        case '\n': w.write(attr ? "&#10;" : "\n"); break;
                        default: w.write(c);
                    }
                }
            } catch (IOException e) { throw new org.xml.sax.SAXException(e); }
        }

        void raw(String s) throws org.xml.sax.SAXException {
            try { w.write(s); } catch (IOException e) { throw new org.xml.sax.SAXException(e); }
        }

        public void startDocument() throws org.xml.sax.SAXException { raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"); }
        public void startPrefixMapping(String p, String u) { pending.add(new String[]{p, u}); }
        public void startElement(String u, String l, String q, Attributes a) throws org.xml.sax.SAXException {
            raw("<" + q);
            for (String[] d : pending) {
                raw(d[0].isEmpty() ? " xmlns=\"" : " xmlns:" + d[0] + "=\"");
                esc(d[1], true);
                raw("\"");
            }
            pending.clear();
            for (int i = 0; i < a.getLength(); i++) {
                String qn = a.getQName(i);
                if (qn.equals("xmlns") || qn.startsWith("xmlns:")) continue;
                raw(" " + qn + "=\"");
                esc(a.getValue(i), true);
                raw("\"");
            }
            raw(">");
        }
        public void endElement(String u, String l, String q) throws org.xml.sax.SAXException { raw("</" + q + ">"); }
        public void characters(char[] c, int s, int n) throws org.xml.sax.SAXException { esc(new String(c, s, n), false); }
        public void ignorableWhitespace(char[] c, int s, int n) throws org.xml.sax.SAXException { characters(c, s, n); }
        public void processingInstruction(String t, String d) throws org.xml.sax.SAXException {
            raw("<?" + t + (d.isEmpty() ? "" : " " + d) + "?>");
        }
        public void comment(char[] c, int s, int n) throws org.xml.sax.SAXException { raw("<!--" + new String(c, s, n) + "-->"); }
        public void startCDATA() {}
        public void endCDATA() {}
        public void startDTD(String n, String p, String s) {}
        public void endDTD() {}
        public void startEntity(String n) {}
        public void endEntity(String n) {}
    }

    /** Records SAX events (content and lexical) to replay them into a serializer. */
    static final class Recorder extends DefaultHandler implements LexicalHandler {
        final List<Object[]> ev = new ArrayList<>();

        public void startDocument() { ev.add(new Object[]{0}); }
        public void endDocument() { ev.add(new Object[]{1}); }
        public void startPrefixMapping(String p, String u) { ev.add(new Object[]{2, p, u}); }
        public void startElement(String u, String l, String q, Attributes a) {
            ev.add(new Object[]{3, u, l, q, new AttributesImpl(a)});
        }
        public void endElement(String u, String l, String q) { ev.add(new Object[]{4, u, l, q}); }
        public void characters(char[] c, int s, int n) { ev.add(new Object[]{5, Arrays.copyOfRange(c, s, s + n)}); }
        public void ignorableWhitespace(char[] c, int s, int n) { characters(c, s, n); }
        public void processingInstruction(String t, String d) { ev.add(new Object[]{6, t, d}); }
        public void comment(char[] c, int s, int n) { ev.add(new Object[]{7, Arrays.copyOfRange(c, s, s + n)}); }
        public void startCDATA() { ev.add(new Object[]{8}); }
        public void endCDATA() { ev.add(new Object[]{9}); }
        public void startDTD(String n, String p, String s) { ev.add(new Object[]{10, n, p, s}); }
        public void endDTD() { ev.add(new Object[]{11}); }
        public void startEntity(String n) {}
        public void endEntity(String n) {}

        void replay(SAXDocumentSerializer s) throws Exception {
            ContentHandler h = s;
            for (Object[] e : ev) {
                switch ((Integer) e[0]) {
                    case 0: h.startDocument(); break;
                    case 1: h.endDocument(); break;
                    case 2: h.startPrefixMapping((String) e[1], (String) e[2]); break;
                    case 3: h.startElement((String) e[1], (String) e[2], (String) e[3], (Attributes) e[4]); break;
                    case 4: h.endElement((String) e[1], (String) e[2], (String) e[3]); break;
                    case 5: { char[] c = (char[]) e[1]; h.characters(c, 0, c.length); break; }
                    case 6: h.processingInstruction((String) e[1], (String) e[2]); break;
                    case 7: { char[] c = (char[]) e[1]; s.comment(c, 0, c.length); break; }
                    case 8: s.startCDATA(); break;
                    case 9: s.endCDATA(); break;
                    case 10: s.startDTD((String) e[1], (String) e[2], (String) e[3]); break;
                    case 11: s.endDTD(); break;
                }
            }
        }
    }
}
