// Java peers of binxml's benchmarks, in one warmed JVM that times its own loops (the same
// methodology as the Rust harness and the C drivers):
//
//   java BenchPeers MANIFEST PASSES WARMUP_MS MODE...
//
// MANIFEST: one "path<TAB>reps[<TAB>schema<TAB>catalog]" a line (UTF-8 XML documents; the
// schema-informed modes need the XSD, catalog "-" for none: URL<TAB>local-path lines mapping web
// schemaLocations to files, as interop/exi/ExiDriver.java reads them). Modes:
//   java-sax      the JAXP SAX parser (Xerces 2.12.2, which EXIficient brings onto the class
//                path; namespace aware, no external DTD), empty handler
//   fi-encode    SAX events recorded once, replayed into the Fast Infoset reference serializer
//   fi-decode    the Fast Infoset reference SAX parser (FastInfoset 2.1.1), empty handler
//   exi-encode   recorded SAX events replayed into EXIficient (default options: schema-less,
//                bit-packed, default fidelity), one EXIResult (writer) for every document, its
//                output stream set anew per document (checked: the same bytes as a new
//                EXIResult's on every document, else the document is an error)
//   exi-decode   EXIficient's SAX reader, empty handler
//   exi-encode-compression, exi-decode-compression
//                the same with CodingMode.COMPRESSION (EXIFactory.setCodingMode; otherwise the
//                default options; DEFLATE by java.util.zip at EXIficient's default level); the
//                encoder makes a new EXIResult per document (EXIficient's compression writer
//                cannot take a second document: it closes its Deflater)
//   exi-schema-encode, exi-schema-decode, exi-schema-encode-compression,
//   exi-schema-decode-compression
//                schema-informed EXIficient: the grammars of the document's schema
//                (GrammarFactory.createGrammars, built once per schema before timing), default
//                options otherwise (non-strict, default fidelity) but
//                EncodingOptions.INCLUDE_XSI_SCHEMALOCATION, so that xsi:schemaLocation is kept
//                as binxml keeps it (the same events, the same bytes); with -Dbench.out=DIR the
//                encoders' streams are written to DIR/MODE-INDEX.exi for the harness to compare
//   exi-schema-grammars-first, exi-schema-grammars
//                GrammarFactory.createGrammars of the document's schema (Xerces reads the XSD):
//                -first times one build per document in manifest order, in whatever state the
//                JVM is in (run first in a fresh JVM: the first document's build includes
//                loading and JIT-compiling Xerces and EXIficient); the other warms up, then
//                takes the median over PASSES builds
// For each mode, warm-up passes over every document until WARMUP_MS has passed (at least one),
// then PASSES passes; each document is parsed REPS times in a row per pass. With
// -Dbench.docWarmupMs=N (N >= 0) the timing is JMH's instead: document by document, the
// operation repeated on that document alone for N ms (at least once), then its PASSES timed runs
// of REPS operations each, before the next document (WARMUP_MS is not used); with also
// -Dbench.cpuTime=true the warm-up and those runs are timed in the thread's CPU time
// (ThreadMXBean.getCurrentThreadCpuTime), not the wall clock. Prints one line a
// document: "ok<TAB>MODE<TAB>INDEX<TAB>NS_PER_OP[<TAB>ENCODED_BYTES]" (median over the passes) or
// "err<TAB>MODE<TAB>INDEX<TAB>MESSAGE".

import com.siemens.ct.exi.core.CodingMode;
import com.siemens.ct.exi.core.EXIFactory;
import com.siemens.ct.exi.core.EncodingOptions;
import com.siemens.ct.exi.core.grammars.Grammars;
import com.siemens.ct.exi.core.helpers.DefaultEXIFactory;
import com.siemens.ct.exi.grammars.GrammarFactory;
import org.apache.xerces.xni.XMLResourceIdentifier;
import org.apache.xerces.xni.XNIException;
import org.apache.xerces.xni.parser.XMLEntityResolver;
import org.apache.xerces.xni.parser.XMLInputSource;
import com.siemens.ct.exi.main.api.sax.EXIResult;
import com.siemens.ct.exi.main.api.sax.SAXFactory;
import com.sun.xml.fastinfoset.sax.SAXDocumentParser;
import com.sun.xml.fastinfoset.sax.SAXDocumentSerializer;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.XMLReader;
import org.xml.sax.ext.DefaultHandler2;
import org.xml.sax.ext.LexicalHandler;
import org.xml.sax.helpers.AttributesImpl;
import org.xml.sax.helpers.DefaultHandler;

import javax.xml.parsers.SAXParserFactory;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

public class BenchPeers {
    static final String LEXICAL = "http://xml.org/sax/properties/lexical-handler";

    /** SAX events kept in memory, to be replayed into a serializer. */
    static final class Events extends DefaultHandler2 {
        final List<Object[]> ops = new ArrayList<>();

        @Override public void startPrefixMapping(String p, String u) { ops.add(new Object[]{0, p, u}); }
        @Override public void endPrefixMapping(String p) { ops.add(new Object[]{1, p}); }
        @Override public void startElement(String u, String l, String q, Attributes a) { ops.add(new Object[]{2, u, l, q, new AttributesImpl(a)}); }
        @Override public void endElement(String u, String l, String q) { ops.add(new Object[]{3, u, l, q}); }
        @Override public void characters(char[] c, int s, int n) { ops.add(new Object[]{4, Arrays.copyOfRange(c, s, s + n)}); }
        @Override public void ignorableWhitespace(char[] c, int s, int n) { characters(c, s, n); }
        @Override public void processingInstruction(String t, String d) { ops.add(new Object[]{5, t, d}); }
        @Override public void comment(char[] c, int s, int n) { ops.add(new Object[]{6, Arrays.copyOfRange(c, s, s + n)}); }

        void replay(ContentHandler h) throws SAXException {
            LexicalHandler lex = h instanceof LexicalHandler ? (LexicalHandler) h : null;
            h.startDocument();
            for (Object[] o : ops) {
                switch ((Integer) o[0]) {
                    case 0: h.startPrefixMapping((String) o[1], (String) o[2]); break;
                    case 1: h.endPrefixMapping((String) o[1]); break;
                    case 2: h.startElement((String) o[1], (String) o[2], (String) o[3], (Attributes) o[4]); break;
                    case 3: h.endElement((String) o[1], (String) o[2], (String) o[3]); break;
                    case 4: { char[] c = (char[]) o[1]; h.characters(c, 0, c.length); break; }
                    case 5: h.processingInstruction((String) o[1], (String) o[2]); break;
                    case 6: if (lex != null) { char[] c = (char[]) o[1]; lex.comment(c, 0, c.length); } break;
                    default: throw new IllegalStateException();
                }
            }
            h.endDocument();
        }
    }

    static XMLReader jdkReader() throws Exception {
        SAXParserFactory f = SAXParserFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return f.newSAXParser().getXMLReader();
    }

    interface Op { int run(int doc) throws Exception; }

    static byte[][] xml;
    static Events[] events;
    static byte[][] fi, exi, exiZ;
    static String[] broken;
    static final DefaultHandler EMPTY = new DefaultHandler();
    static final EXIFactory EXI = DefaultEXIFactory.newInstance();
    static final EXIFactory EXI_Z = compression();

    static EXIFactory compression() {
        EXIFactory f = DefaultEXIFactory.newInstance();
        f.setCodingMode(CodingMode.COMPRESSION);
        return f;
    }

    static boolean compressed(String mode) { return mode.endsWith("-compression"); }

    static String[] schemas, catalogs;
    /** Schema-informed factories per document ([0] bit-packed, [1] compression), sharing one
     *  Grammars and one pair of factories per (schema, catalog). */
    static EXIFactory[][] schemaFactories;
    static byte[][] exiS, exiSZ;

    static Grammars buildGrammars(int doc) throws Exception {
        if (schemas[doc] == null) throw new IllegalArgumentException("no schema for this document in the manifest");
        return GrammarFactory.newInstance().createGrammars(schemas[doc], new Catalog(catalogs[doc]));
    }

    static EXIFactory schemaFactory(int doc, boolean compression) throws Exception {
        if (schemaFactories[doc] == null) {
            for (int j = 0; j < doc; j++) {
                if (schemaFactories[j] != null && Objects.equals(schemas[j], schemas[doc])
                        && Objects.equals(catalogs[j], catalogs[doc])) {
                    schemaFactories[doc] = schemaFactories[j];
                    return schemaFactories[doc][compression ? 1 : 0];
                }
            }
            Grammars g = buildGrammars(doc);
            EXIFactory[] fs = new EXIFactory[2];
            for (int k = 0; k < 2; k++) {
                fs[k] = DefaultEXIFactory.newInstance();
                if (k == 1) fs[k].setCodingMode(CodingMode.COMPRESSION);
                fs[k].setGrammars(g);
                fs[k].getEncodingOptions().setOption(EncodingOptions.INCLUDE_XSI_SCHEMALOCATION);
            }
            schemaFactories[doc] = fs;
        }
        return schemaFactories[doc][compression ? 1 : 0];
    }

    /** Schema loading's entity resolver: catalog entries map URLs to local files (an entry that
     *  is a bare file name stands for that relative reference from any document); nothing is
     *  fetched from the network. The same resolution as interop/exi/ExiDriver.java's. */
    static final class Catalog implements XMLEntityResolver {
        final Map<String, String> map = new HashMap<>();

        Catalog(String path) throws IOException {
            if (path == null) return;
            File tsv = new File(path);
            File base = tsv.getAbsoluteFile().getParentFile();
            for (String line : Files.readAllLines(tsv.toPath(), StandardCharsets.UTF_8)) {
                if (line.trim().isEmpty() || line.trim().startsWith("#")) continue;
                String[] f = line.split("\t", -1);
                if (f.length != 2) throw new IOException(tsv + ": expected URL<TAB>path");
                File local = new File(f[1]);
                if (!local.isAbsolute()) local = new File(base, f[1]);
                map.put(f[0], local.getCanonicalFile().toURI().toString());
            }
        }

        public XMLInputSource resolveEntity(XMLResourceIdentifier rid) throws XNIException, IOException {
            for (String id : new String[]{rid.getLiteralSystemId(), rid.getExpandedSystemId()}) {
                if (id != null && map.containsKey(id)) return new XMLInputSource(rid.getPublicId(), map.get(id), null);
            }
            String exp = rid.getExpandedSystemId();
            if (exp != null) {
                for (Map.Entry<String, String> e : map.entrySet()) {
                    String k = e.getKey();
                    if (k.indexOf('/') < 0 && k.indexOf(':') < 0 && exp.endsWith("/" + k)) {
                        return new XMLInputSource(rid.getPublicId(), e.getValue(), null);
                    }
                }
            }
            String id = exp != null ? exp : rid.getLiteralSystemId();
            String lower = id == null ? "" : id.toLowerCase(Locale.ROOT);
            if (lower.startsWith("http:") || lower.startsWith("https:") || lower.startsWith("ftp:")) {
                throw new IOException("not fetched from the network (no catalog entry): " + id);
            }
            return null;
        }
    }

    static byte[] exiEncode(EXIFactory f, Events ev) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        EXIResult r = new EXIResult(f);
        r.setOutputStream(b);
        ev.replay(r.getHandler());
        return b.toByteArray();
    }
    static XMLReader jdk;
    static SAXDocumentParser fiParser;
    static SAXDocumentSerializer fiSerializer;
    static final ByteArrayOutputStream OUT = new ByteArrayOutputStream(1 << 20);

    static Op op(String mode) throws Exception {
        switch (mode) {
            case "java-sax":
                jdk = jdkReader();
                jdk.setContentHandler(EMPTY);
                return d -> { jdk.parse(new InputSource(new ByteArrayInputStream(xml[d]))); return 0; };
            case "fi-encode":
                fiSerializer = new SAXDocumentSerializer();
                return d -> {
                    OUT.reset();
                    fiSerializer.reset();
                    fiSerializer.setOutputStream(OUT);
                    events[d].replay(fiSerializer);
                    return OUT.size();
                };
            case "fi-decode":
                fiParser = new SAXDocumentParser();
                fiParser.setContentHandler(EMPTY);
                return d -> { fiParser.parse(new ByteArrayInputStream(fi[d])); return 0; };
            case "exi-encode": {
                // One writer for every document and run, as exi-decode keeps one reader:
                // setOutputStream writes the header and hands the body encoder a new channel on
                // OUT, and startDocument (EXIBodyEncoder.encodeStartDocument -> initForEachRun)
                // clears its string tables and learned grammars. checkReuse proves the bytes
                // equal to a new EXIResult's on every document.
                EXIResult r = new EXIResult(EXI);
                return d -> {
                    OUT.reset();
                    r.setOutputStream(OUT);
                    events[d].replay(r.getHandler());
                    return OUT.size();
                };
            }
            case "exi-encode-compression":
                // a new writer per document: EXIficient's compression encoder closes its
                // Deflater at the end of the stream, and a second document on the same writer
                // fails ("Deflater has been closed")
                return d -> {
                    OUT.reset();
                    EXIResult r = new EXIResult(EXI_Z);
                    r.setOutputStream(OUT);
                    events[d].replay(r.getHandler());
                    return OUT.size();
                };
            case "exi-decode":
            case "exi-decode-compression": {
                XMLReader reader = new SAXFactory(compressed(mode) ? EXI_Z : EXI).createEXIReader();
                reader.setContentHandler(EMPTY);
                byte[][] in = compressed(mode) ? exiZ : exi;
                return d -> { reader.parse(new InputSource(new ByteArrayInputStream(in[d]))); return 0; };
            }
            case "exi-schema-encode":
            case "exi-schema-encode-compression": {
                boolean z = compressed(mode);
                return d -> {
                    OUT.reset();
                    EXIResult r = new EXIResult(schemaFactory(d, z));
                    r.setOutputStream(OUT);
                    events[d].replay(r.getHandler());
                    return OUT.size();
                };
            }
            case "exi-schema-decode":
            case "exi-schema-decode-compression": {
                boolean z = compressed(mode);
                XMLReader[] readers = new XMLReader[xml.length];
                byte[][] in = z ? exiSZ : exiS;
                return d -> {
                    if (readers[d] == null) {
                        // one reader per schema, shared by that schema's documents
                        for (int j = 0; j < d && readers[d] == null; j++) {
                            if (readers[j] != null && schemaFactory(j, z) == schemaFactory(d, z)) readers[d] = readers[j];
                        }
                        if (readers[d] == null) {
                            readers[d] = new SAXFactory(schemaFactory(d, z)).createEXIReader();
                            readers[d].setContentHandler(EMPTY);
                        }
                    }
                    readers[d].parse(new InputSource(new ByteArrayInputStream(in[d])));
                    return 0;
                };
            }
            case "exi-schema-grammars":
            case "exi-schema-grammars-first":
                return d -> { buildGrammars(d); return 0; };
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    static String message(Throwable e) {
        String m = String.valueOf(e);
        return m.replace('\n', ' ').replace('\t', ' ').replace('\r', ' ');
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        List<String> paths = new ArrayList<>();
        List<Integer> reps = new ArrayList<>();
        List<String> schemaCol = new ArrayList<>(), catalogCol = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            if (f.length < 2) continue;
            paths.add(f[0]);
            reps.add(Math.max(1, Integer.parseInt(f[1])));
            schemaCol.add(f.length > 2 && !f[2].equals("-") ? f[2] : null);
            catalogCol.add(f.length > 3 && !f[3].equals("-") ? f[3] : null);
        }
        out.println("info\t" + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
                + "; SAX parser: " + jdkReader().getClass().getName());
        int passes = Integer.parseInt(args[1]);
        long warmupNs = Long.parseLong(args[2]) * 1_000_000L;
        long docWarmupNs = Long.getLong("bench.docWarmupMs", -1L);
        if (docWarmupNs > 0) docWarmupNs *= 1_000_000L;
        boolean cpu = Boolean.getBoolean("bench.cpuTime");
        int n = paths.size();
        xml = new byte[n][];
        events = new Events[n];
        fi = new byte[n][];
        exi = new byte[n][];
        exiZ = new byte[n][];
        broken = new String[n];
        schemas = schemaCol.toArray(new String[0]);
        catalogs = catalogCol.toArray(new String[0]);
        schemaFactories = new EXIFactory[n][];
        exiS = new byte[n][];
        exiSZ = new byte[n][];
        String dump = System.getProperty("bench.out");
        for (int i = 0; i < n; i++) {
            try {
                xml[i] = Files.readAllBytes(Paths.get(paths.get(i)));
                Events ev = new Events();
                XMLReader r = jdkReader();
                r.setContentHandler(ev);
                r.setProperty(LEXICAL, ev);
                r.parse(new InputSource(new ByteArrayInputStream(xml[i])));
                events[i] = ev;
            } catch (Throwable e) {
                broken[i] = "JDK parser: " + message(e);
            }
        }
        for (int a = 3; a < args.length; a++) {
            String mode = args[a];
            Op op = op(mode);
            if (mode.equals("exi-schema-grammars-first")) {
                // one build per document, no warm-up: what a fresh process pays
                for (int i = 0; i < n; i++) {
                    try {
                        long s = System.nanoTime();
                        op.run(i);
                        out.printf(Locale.ROOT, "ok\t%s\t%d\t%d%n", mode, i, System.nanoTime() - s);
                    } catch (Throwable e) {
                        out.println("err\t" + mode + "\t" + i + "\t" + message(e));
                    }
                }
                continue;
            }
            String[] failed = broken.clone();
            long[] sizes = new long[n];
            // Prepare the inputs the decoders need (encoded by the same reference encoder).
            for (int i = 0; i < n; i++) {
                if (failed[i] != null) continue;
                try {
                    if (mode.equals("fi-decode") && fi[i] == null) {
                        ByteArrayOutputStream b = new ByteArrayOutputStream();
                        SAXDocumentSerializer s = new SAXDocumentSerializer();
                        s.setOutputStream(b);
                        events[i].replay(s);
                        fi[i] = b.toByteArray();
                    }
                    if (mode.equals("exi-decode") && exi[i] == null) exi[i] = exiEncode(EXI, events[i]);
                    if (mode.equals("exi-decode-compression") && exiZ[i] == null) exiZ[i] = exiEncode(EXI_Z, events[i]);
                    // grammars built before the warm-up, so that it warms the coders only
                    if (mode.startsWith("exi-schema-") && !mode.startsWith("exi-schema-grammars")) schemaFactory(i, false);
                    if (mode.equals("exi-schema-decode") && exiS[i] == null) exiS[i] = exiEncode(schemaFactory(i, false), events[i]);
                    if (mode.equals("exi-schema-decode-compression") && exiSZ[i] == null) exiSZ[i] = exiEncode(schemaFactory(i, true), events[i]);
                } catch (Throwable e) {
                    failed[i] = "encoding the input: " + message(e);
                }
            }
            double[][] per = new double[n][passes];
            if (docWarmupNs >= 0) {
                // JMH's way: each document warmed alone (the JIT compiles for its shape of
                // input), then its timed passes, before the next document is touched
                for (int i = 0; i < n; i++) {
                    if (failed[i] != null) continue;
                    try {
                        long w0 = now(cpu);
                        do {
                            sizes[i] = op.run(i);
                        } while (now(cpu) - w0 < docWarmupNs);
                        int r = reps.get(i);
                        for (int p = 0; p < passes; p++) {
                            long s = now(cpu);
                            for (int k = 0; k < r; k++) op.run(i);
                            per[i][p] = (now(cpu) - s) / (double) r;
                        }
                    } catch (Throwable e) {
                        failed[i] = message(e);
                    }
                }
                checkReuse(mode, op, failed);
                dumpStreams(dump, mode, op, failed);
                report(out, mode, failed, per, sizes, passes);
                continue;
            }
            long t0 = System.nanoTime();
            boolean first = true;
            while (first || System.nanoTime() - t0 < warmupNs) {
                for (int i = 0; i < n; i++) {
                    if (failed[i] != null) continue;
                    try {
                        sizes[i] = op.run(i);
                    } catch (Throwable e) {
                        failed[i] = message(e);
                    }
                }
                first = false;
            }
            checkReuse(mode, op, failed);
            dumpStreams(dump, mode, op, failed);
            for (int p = 0; p < passes; p++) {
                for (int i = 0; i < n; i++) {
                    if (failed[i] != null) continue;
                    int r = reps.get(i);
                    long s = System.nanoTime();
                    for (int k = 0; k < r; k++) op.run(i);
                    per[i][p] = (System.nanoTime() - s) / (double) r;
                }
            }
            report(out, mode, failed, per, sizes, passes);
        }
    }

    static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /** Nanoseconds: the thread's CPU time (cpu) or the wall clock. */
    static long now(boolean cpu) {
        return cpu ? THREADS.getCurrentThreadCpuTime() : System.nanoTime();
    }

    // exi-encode keeps one writer (EXIResult) for every document: each document's bytes from
    // that writer, just after it encoded another document, must equal those of a new
    // EXIResult; a document where they do not is reported as an error, not timed.
    static void checkReuse(String mode, Op op, String[] failed) {
        if (!mode.equals("exi-encode")) return;
        for (int i = 0; i < failed.length; i++) {
            if (failed[i] != null) continue;
            try {
                op.run(i);
                byte[] reused = OUT.toByteArray();
                if (!Arrays.equals(reused, exiEncode(EXI, events[i]))) {
                    failed[i] = "the reused EXIResult's bytes differ from a new EXIResult's";
                }
            } catch (Throwable e) {
                failed[i] = message(e);
            }
        }
    }

    // With -Dbench.out=DIR, an encoder's stream of each document to DIR/MODE-INDEX.exi, for the
    // harness to compare with binxml's.
    static void dumpStreams(String dump, String mode, Op op, String[] failed) {
        if (dump == null || !mode.startsWith("exi-schema-encode")) return;
        for (int i = 0; i < failed.length; i++) {
            if (failed[i] != null) continue;
            try {
                op.run(i);
                Files.write(Paths.get(dump, mode + "-" + i + ".exi"), OUT.toByteArray());
            } catch (Throwable e) {
                failed[i] = message(e);
            }
        }
    }

    static void report(PrintStream out, String mode, String[] failed, double[][] per, long[] sizes, int passes) {
        for (int i = 0; i < failed.length; i++) {
            if (failed[i] != null) {
                out.println("err\t" + mode + "\t" + i + "\t" + failed[i]);
                continue;
            }
            Arrays.sort(per[i]);
            String size = mode.contains("-encode") ? "\t" + sizes[i] : "";
            out.printf(Locale.ROOT, "ok\t%s\t%d\t%.0f%s%n", mode, i, per[i][passes / 2], size);
        }
    }
}
