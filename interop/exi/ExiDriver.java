// Driver for binxml's EXI interop oracle: EXIficient 1.0.7 (com.siemens.ct.exi:exificient),
// schema-less or schema-informed (an XSD read by EXIficient's grammar builder through Xerces,
// see "schema=" below). One JVM serves a whole batch of commands read from stdin, one a line, fields
// separated by tabs; it answers one line each: "ok [...]" or "err <message>" (the protocol of
// interop/fi/FiDriver.java; binxml_testkit::ExiOracle speaks it).
//
//   encode <in.xml> <out.exi> <options>   XML -> SAX (Xerces) -> EXIficient SAX encoder (EXIResult);
//                                          answers "ok <bytes written>"
//   decode <in.exi> <out.xml> <options>   EXIficient SAX decoder (SAXFactory.createEXIReader) ->
//                                          XmlOut (below) -> UTF-8 XML; answers
//                                          "ok <the options the stream was decoded with>"
//   events <in.exi> <out.txt> <options>   the SAX events EXIficient's decoder reports, one a line
//                                          (see the Events class at the end), for debugging
//   grammars <out.json> <options>         the schema-informed grammars of schema= (with catalog=)
//                                          or xsdtypes, as EXIficient's own dump writes them
//                                          (com.siemens.ct.exi.grammars.persistency.Grammars2JSON,
//                                          exificient-grammars; see "Grammars2JSON" below);
//                                          answers "ok"; no other option is accepted
//   options <options>                     "ok <canonical form>": how the driver reads an option list
//   info                                  "ok <Java version> <SAX parser class>"
//
// <options> is a comma-separated list; empty or "-" means EXIficient's defaults (bit-packed, no
// fidelity options, no header options). Each item and the EXIficient 1.0.7 call it makes on a
// fresh DefaultEXIFactory.newInstance():
//
//   bitpacked | bytealigned | precompression | compression   (at most one; default bitpacked)
//                      setCodingMode(CodingMode.BIT_PACKED | BYTE_PACKED | PRE_COMPRESSION | COMPRESSION)
//   comments           getFidelityOptions().setFidelity(FidelityOptions.FEATURE_COMMENT, true)
//   pis                ... FEATURE_PI
//   dtd                ... FEATURE_DTD
//   prefixes           ... FEATURE_PREFIX
//   lexical            ... FEATURE_LEXICAL_VALUE
//   selfcontained[=Q|Q...]  ... FEATURE_SC, and setSelfContainedElements(QName.valueOf(Q)...)
//                      (Q is "local" or "{uri}local"; EXIficient matches both parts as Java
//                      regular expressions). Without "=..." no element is self-contained but the
//                      grammars still carry the SC productions. Not with (pre)compression:
//                      EXIficient refuses ("(Pre-)Compression and selfContained elements cannot
//                      work together").
//   strict             setFidelityOptions(FidelityOptions.createStrict()) (keeps "lexical").
//                      EXIficient silently turns strict off when comments, pis, dtd, prefixes or
//                      selfcontained is enabled after it; the driver answers err instead.
//   fragment           setFragment(true)
//   blocksize=N        setBlockSize(N)
//   valuemaxlength=N   setValueMaxLength(N)
//   capacity=N         setValuePartitionCapacity(N)
//   header             getEncodingOptions().setOption(EncodingOptions.INCLUDE_OPTIONS)
//   cookie             getEncodingOptions().setOption(EncodingOptions.INCLUDE_COOKIE)
//   deflate=N          getEncodingOptions().setOption(EncodingOptions.DEFLATE_COMPRESSION_VALUE, N)
//                      (java.util.zip.Deflater level 0-9, -1 = default; only "compression" uses it;
//                      it is not an EXI option and never goes into the header)
//   entityrefs         getEncodingOptions().setOption(EncodingOptions.RETAIN_ENTITY_REFERENCE):
//                      with "dtd", references to internal entities become ER events instead of
//                      their replacement text (Xerces reports them through startEntity/endEntity)
//   canonical          getEncodingOptions().setOption(EncodingOptions.CANONICAL_EXI): W3C Canonical
//                      EXI (no cookie, attributes sorted, compression written as pre-compression,
//                      a datatype representation map sorted); EXIficient then also sets
//                      INCLUDE_OPTIONS (Canonical EXI's omitOptionsDocument is false by default)
//   omitoptions        after "canonical": getEncodingOptions().unsetOption(INCLUDE_OPTIONS), the
//                      Canonical EXI option omitOptionsDocument (what ISO 15118 signatures use)
//   schemalocation     getEncodingOptions().setOption(EncodingOptions.INCLUDE_XSI_SCHEMALOCATION):
//                      keep xsi:schemaLocation and xsi:noNamespaceSchemaLocation (dropped by
//                      default, see 10 below)
//
// Schema-informed grammars (at most one of schema= and xsdtypes; without either the grammars
// are schema-less, as before):
//   schema=PATH        setGrammars(GrammarFactory.newInstance().createGrammars(PATH, resolver)):
//                      the grammars of the XSD at PATH (a file path, as EXIficient's command
//                      line "-schema" takes it; no commas in it, they separate options).
//                      Xerces's XMLSchemaLoader reads it; EXIficient fails on any schema warning
//                      or error it reports (XSDGrammarsBuilder.toGrammars), so a schema that
//                      does not load answers err. The resolver (Catalog below) never fetches
//                      from the network: a schemaLocation or DTD that is an http(s)/ftp URL must
//                      be in the catalog, else the load fails. Grammars are built once per
//                      (PATH, catalog) and kept for the life of the process (building UBL's
//                      takes seconds).
//   catalog=TSV        with schema=: the URL -> local file map for that resolver, one
//                      "URL<TAB>path" a line, the path relative to the TSV file, "#" comments;
//                      a URL that is a bare file name ("xml.xsd") matches that relative
//                      reference from any document (the format interop/xsd/validate.py reads,
//                      so that both oracles load the same schema documents)
//   xsdtypes           setGrammars(GrammarFactory.newInstance().createXSDTypesOnlyGrammars()):
//                      no user schema, the built-in XML Schema types only (schemaId "")
//   schemaid[=ID]      getEncodingOptions().setOption(EncodingOptions.INCLUDE_SCHEMA_ID): the
//                      header's options carry the schemaId (so it needs "header"). EXIficient's
//                      schemaId is the PATH string given to createGrammars, so a stream made
//                      with it depends on where the schema lay; "=ID" sets it instead
//                      (Grammars.setSchemaId(ID)), for byte-exact comparisons. Decoding a
//                      stream whose header has a schemaId: the driver's SchemaIdResolver
//                      answers the grammars of the request's schema= when the ids match, the
//                      built-in types for "", and fails for any other id.
//   dtr={ns}T={ns}R    setDatatypeRepresentationMap: values of schema type T (and the types
//                      derived from it) take representation R (e.g.
//                      {http://www.w3.org/2009/exi}string); repeatable, in order.
// "strict" with a schema is EXIficient's strict mode proper: no deviations from the schema,
// so an instance with anything the schema does not declare fails to encode.
//
// A failed encode or decode deletes its output file.
//
// Decoding: the options given must be those the stream was written with, unless its header
// carries them: then EXIficient (EXIHeaderDecoder.readEXIOptions) decodes with a fresh factory
// built from the header alone and ignores the options given (checked: a "header" stream written
// with "compression,comments" decodes with options "-"). The decode answer names the options
// actually used (read here with EXIHeaderDecoder.parse on the same bytes).
//
// ===== What EXIficient 1.0.7 does, for a byte-exact comparison =====
// Each point was checked by running tiny documents through this driver ("events" shows what the
// decoder reports) and is explained from the 1.0.7 sources (exificient-*-1.0.7-sources.jar).
//
// Encoder side (SAXEncoder, SAXEncoderExtendedHandler, AbstractEXIBodyEncoder, AttributeListImpl):
//  1. Whitespace-only text is dropped in "complex" positions. The encoder buffers the SAX
//     characters() calls and writes one CH at the next other event (checkPendingCharacters).
//     The text is kept as it is when "lexical" is on, when xml:space="preserve" is in scope, or
//     when the last *structural* event was SE, AT or NS and the next event is EE, CM, PI or DT
//     ("simple" content: <a> </a> and <a>\n  </a> keep their text). Otherwise a text made only
//     of #x20, #x9, #xA, #xD is dropped whole; text with anything else is never trimmed
//     (<a> <b/> x </a> gives CH " x ", the leading " " before <b/> is dropped).
//     - The "last event" is only updated by SD, SE, AT, NS, EE, ED: CH, CM, PI, ER and DT leave
//       it alone. So with comments, <a>x<!--c--> </a> gives CH "x", CM, CH " " (the space is
//       kept: the last structural event is still SE(a)); <a> <!--c--><b/></a> keeps its " "
//       (SE then CM); <a><!--c--> <b/></a> drops it (SE then SE); <a><b/> </a> drops it.
//     - Nothing but "lexical" or xml:space="preserve" turns the dropping off (strict, prefixes,
//       comments... do not). A whitespace character reference (&#32;) is whitespace like any.
//     - In fragment mode, text at the top level (between the fragment's elements) is dropped
//       whatever it is, with a warning ("Skip CH") on stderr.
//  2. xml:space: any attribute in the XML namespace whose value is exactly "preserve" turns
//     preservation on for its element and the descendants, "default" turns it off; the encoder
//     compares only the namespace and the value, so xml:lang="preserve" counts too (checked).
//  3. Adjacent SAX text chunks (split at entity and character references, CDATA boundaries,
//     buffer ends) always become ONE CH: the parser's chunking never shows, unlike Fast
//     Infoset. A comment or PI that is not preserved is no event at all, so
//     <a>a<!--c-->b<?p d?>c<![CDATA[d]]>e&amp;f&#65;</a> gives CH "abcde&fA" without options
//     and CH "a", CM "c", CH "b", PI p "d", CH "cde&fA" with comments,pis.
//  4. CDATA sections become plain characters, joined with the text around them
//     (<a><![CDATA[x<y]]>]]&gt;</a> gives CH "x<y]]>"). EXI has no CDATA.
//  5. Entity references: the parser expands internal entities, predefined entities and
//     character references. With dtd+entityrefs an internal general entity becomes ER(name)
//     instead of its text (<!ENTITY e "ent">, x&e;y: CH "x", ER e, CH "y"; with dtd alone
//     CH "xenty"). A reference the parser skips (an undeclared entity when the DOCTYPE names
//     an external subset, which is not read) becomes ER(name) with dtd, and disappears without
//     it (x&foo;y gives CH "xy").
//  6. The XML declaration leaves no trace: <?xml version="1.0" encoding="ISO-8859-1"
//     standalone="yes"?><a/> gives the same bytes as <a/>.
//  7. DOCTYPE (dtd only): DT(name, public, system, text), public and system "" when absent.
//     The text is NOT the internal subset as written: EXIficient rebuilds it from the parser's
//     DeclHandler and LexicalHandler calls: "<!ELEMENT n model> ", "<!ATTLIST e a type mode> "
//     (the default value is dropped; an attribute with a plain default has mode null, written
//     as the word "null"; #FIXED "p" loses its "p"), "<!ENTITY n \"value\"> " (the value is not
//     escaped, so a " in it breaks the text; parameter entities come as "<!ENTITY %pe ...>"
//     with no space), "<!--c-->" and "<?t d?>" for comments and PIs in the subset (no space
//     after these). External entities, notations and unparsed entities are dropped.
//     The external subset is not read here (load-external-dtd off).
//     So a subset with a default attribute value, a #FIXED attribute, a quote in an entity
//     value or a parameter entity encodes, but EXIficient's own decoder then fails to re-parse
//     the text ("Open quote is expected for attribute ...").
//  8. Comments and PIs are dropped unless "comments" / "pis"; their text is written as the
//     parser gives it (a PI with no data has data "").
//  9. Prefixes: without "prefixes" neither prefixes nor namespace declarations are in the
//     stream (<p:a xmlns:p="urn:p"> and <q:a xmlns:q="urn:p"> give the same bytes); with it,
//     every startPrefixMapping is an NS event, redundant re-declarations included.
// 10. Attributes: schema-less, they are written in document order (<a y="1" x="2"/> and
//     <a x="2" y="1"/> differ), except that xsi:type comes first and xsi:nil second.
//     xsi:type's value is a QName (its prefix resolved; an unbound prefix gives uri "" and the
//     whole "q:T" as local name); xsi:nil is an ordinary string attribute schema-less.
//     xsi:schemaLocation and xsi:noNamespaceSchemaLocation are DROPPED unless
//     "schemalocation" (EncodingOptions.INCLUDE_XSI_SCHEMALOCATION) is given.
//     "lexical" without "prefixes" refuses a document with a prefixed xsi:type: "xsi:type='p:T'
//     not encodable. Preserve lexicalValues requires prefixes preserved as well!".
// 11. "strict" changes nothing in a schema-less body (same bytes as the defaults; only the
//     header options differ when "header" writes them). "selfcontained" alone (no elements)
//     does change the bytes: the SC production is in every StartTagContent grammar.
//
// Decoder side (SAXDecoder):
// 12. Without "prefixes" the decoder invents prefixes "ns<uri id>": ns3 for the first user
//     URI (after "", xml and xsi), ns4 for the next...; a default namespace gets one too, never
//     "". Names in no namespace stay unprefixed. Each prefix is declared on the element that
//     first needs it, and xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" is declared on
//     the root (on every top-level element of a fragment, and on every self-contained
//     element) whether or not xsi is used. xsi:type values come back with the invented prefix
//     (p:T becomes ns3:T). With "prefixes" the declarations come back as they were written.
// 13. The decoder reports each CH as one characters() call (and an empty characters() before
//     startDTD, "to force the XML declaration"); DT as startDTD/endDTD with the text re-parsed
//     into DeclHandler calls (comments and PIs of the text are lost then); ER as
//     skippedEntity (XmlOut writes "&name;").
// 14. Decoding a stream whose header carries options ignores the options given (see above).
//     Without header options nothing in the stream tells wrong options: a compression,comments
//     stream of 3,000 elements "decoded" with compression alone gave a well-formed 346-byte
//     garbage document and "ok"; with "-" it failed ("Not a valid Unicode code point").
//
// Grammars2JSON (the "grammars" command; exificient-grammars 1.0.7, read from its sources and
// checked on the test sets of tests/schemas/, all of which it dumps as valid JSON):
//  - toGrammarsJSON prints nothing itself (its STATS_ON counters are printed only by its own
//    main()), but GrammarsPreperation.prepareGrammars prints "Sorted Grammars: [...]" (every
//    grammar's toString) on System.out, this protocol's channel: the driver points System.out
//    at a null stream for the call. The first use of its slf4j logger writes "SLF4J: No SLF4J
//    providers were found" on stderr (no binding is on the class path; nothing is logged).
//  - Strings are written with printf("\"%s\""), never escaped: a URI, local name or
//    enumeration value holding '"', '\\' or a control character gives invalid (or wrongly
//    read) JSON; enumeration values are Value.toString(). binxml_testkit::exi_grammars reads
//    those lines by their layout.
//  - "grammarID" is a quoted string ("7"); every other id is a number. Ids are positions in
//    the arrays.
//  - A datatype id of -1: EXIficient's default datatype (a plain string) is left out of
//    "simpleDatatypes"; a global attribute's datatype is looked up with Java equals among the
//    datatypes the productions use, so its -1 may also be a datatype no production uses.
//  - "nextGrammarID" is -1 when the next grammar has no productions (after EE and ED).
//  - The JSON goes through an OutputStreamWriter in the JVM's default charset: ExiOracle
//    starts java with -Dfile.encoding=UTF-8 (Java 17 takes it from the locale).
//  - Grammars are numbered by GrammarIdDispenser, which merges grammars it finds structurally
//    equal (a comparison bounded at 100 grammars deep) and compares each with all before it
//    (quadratic: UBL's 2,577 take seconds). Only declared productions are dumped: the
//    undeclared ones of EXI 8.5.4.4 are added by the coders at run time.
//
// XmlOut (our writer; not an identity Transformer, so that the output is fixed: namespace
// declarations in the order reported, ER as "&name;", the DOCTYPE's declarations written back):
// "<?xml version="1.0" encoding="UTF-8"?>" and a newline (left out for fragments); DOCTYPE as
// <!DOCTYPE name [PUBLIC "p" "s" | SYSTEM "s"] [ [decls] ]> and a newline; text escapes & < >
// and CR (&#13;); attribute values also ", TAB, LF; empty elements as <a></a>.

import com.siemens.ct.exi.core.CodingMode;
import com.siemens.ct.exi.core.EXIFactory;
import com.siemens.ct.exi.core.EncodingOptions;
import com.siemens.ct.exi.core.FidelityOptions;
import com.siemens.ct.exi.core.SchemaIdResolver;
import com.siemens.ct.exi.core.coder.EXIHeaderDecoder;
import com.siemens.ct.exi.core.exceptions.EXIException;
import com.siemens.ct.exi.core.grammars.Grammars;
import com.siemens.ct.exi.core.grammars.SchemaInformedGrammars;
import com.siemens.ct.exi.core.helpers.DefaultEXIFactory;
import com.siemens.ct.exi.core.io.channel.BitDecoderChannel;
import com.siemens.ct.exi.main.api.sax.EXIResult;
import com.siemens.ct.exi.grammars.GrammarFactory;
import com.siemens.ct.exi.grammars.persistency.Grammars2JSON;
import com.siemens.ct.exi.main.api.sax.SAXFactory;
import org.apache.xerces.xni.XMLResourceIdentifier;
import org.apache.xerces.xni.XNIException;
import org.apache.xerces.xni.parser.XMLEntityResolver;
import org.apache.xerces.xni.parser.XMLInputSource;
import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.DTDHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.XMLReader;
import org.xml.sax.ext.DeclHandler;
import org.xml.sax.ext.LexicalHandler;
import org.xml.sax.helpers.DefaultHandler;
import org.xml.sax.helpers.XMLFilterImpl;

import javax.xml.namespace.QName;
import javax.xml.parsers.SAXParserFactory;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

public class ExiDriver {
    static final String LEXICAL = "http://xml.org/sax/properties/lexical-handler";
    static final String DECL = "http://xml.org/sax/properties/declaration-handler";

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] f = line.split("\t", -1);
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

    static String arg(String[] f, int i) {
        return f.length > i ? f[i] : "";
    }

    static String run(String[] f) throws Exception {
        switch (f[0]) {
            case "encode": {
                Opts o = Opts.parse(arg(f, 3));
                EXIFactory factory = o.factory();
                File outFile = new File(f[2]);
                try (OutputStream os = new BufferedOutputStream(new FileOutputStream(outFile))) {
                    EXIResult result = new EXIResult(factory);
                    result.setOutputStream(os);
                    XMLReader r = xmlReader();
                    ContentHandler h = result.getHandler();
                    r.setContentHandler(h);
                    r.setProperty(LEXICAL, result.getLexicalHandler());
                    r.setProperty(DECL, result.getLexicalHandler());
                    r.setDTDHandler((DTDHandler) h);
                    InputSource is;
                    if (o.fragment) {
                        // as EXIficientCMD does: wrap the fragment in a root element and keep
                        // that element from the encoder (a leading XML declaration is dropped)
                        byte[] body = stripXmlDecl(Files.readAllBytes(Paths.get(f[1])));
                        ByteArrayOutputStream b = new ByteArrayOutputStream(body.length + 16);
                        b.write("<root>".getBytes(StandardCharsets.US_ASCII));
                        b.write(body);
                        b.write("</root>".getBytes(StandardCharsets.US_ASCII));
                        is = new InputSource(new ByteArrayInputStream(b.toByteArray()));
                        is.setSystemId(new File(f[1]).toURI().toString());
                        r = new SkipRoot(r);
                    } else {
                        is = new InputSource(new File(f[1]).toURI().toString());
                    }
                    r.parse(is);
                } catch (Exception e) {
                    outFile.delete();
                    throw e;
                }
                return String.valueOf(outFile.length());
            }
            case "decode": {
                Opts o = Opts.parse(arg(f, 3));
                EXIFactory factory = o.factory();
                byte[] data = Files.readAllBytes(Paths.get(f[1]));
                // the options the stream is decoded with: the header's when it carries them
                EXIFactory effective = new EXIHeaderDecoder().parse(
                        new BitDecoderChannel(new ByteArrayInputStream(data)), factory);
                XMLReader r = new SAXFactory(factory).createEXIReader();
                try (Writer w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(f[2]), StandardCharsets.UTF_8))) {
                    XmlOut x = new XmlOut(w, effective.isFragment());
                    r.setContentHandler(x);
                    r.setProperty(LEXICAL, x);
                    r.setProperty(DECL, x);
                    r.parse(new InputSource(new ByteArrayInputStream(data)));
                }
                // the stream's own options: what the header says it has, not what was asked for
                String used = Opts.describe(effective, false);
                if (headerHasOptions(data)) used = used.equals("-") ? "header" : used + ",header";
                if (data.length >= 4 && data[0] == '$' && data[1] == 'E' && data[2] == 'X' && data[3] == 'I') {
                    used = used.equals("-") ? "cookie" : used + ",cookie";
                }
                return used;
            }
            case "events": {
                Opts o = Opts.parse(arg(f, 3));
                XMLReader r = new SAXFactory(o.factory()).createEXIReader();
                try (Writer w = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(f[2]), StandardCharsets.UTF_8))) {
                    Events x = new Events(w);
                    r.setContentHandler(x);
                    r.setProperty(LEXICAL, x);
                    r.setProperty(DECL, x);
                    r.parse(new InputSource(new BufferedInputStream(new FileInputStream(f[1]))));
                }
                return null;
            }
            case "grammars": {
                // only the options that choose the grammars: the others (strict, fidelity,
                // fragment, ...) are applied by the coders at run time, not in the grammars
                String opts = arg(f, 2);
                for (String item : opts.equals("-") ? new String[0] : opts.split(",")) {
                    String key = item.indexOf('=') < 0 ? item : item.substring(0, item.indexOf('='));
                    if (!key.equals("schema") && !key.equals("catalog") && !key.equals("xsdtypes")) {
                        throw new IllegalArgumentException("grammars takes only schema=, catalog= and xsdtypes, not " + item);
                    }
                }
                Opts o = Opts.parse(opts);
                if (o.schema == null && !o.xsdTypes) throw new IllegalArgumentException("grammars needs schema= or xsdtypes");
                Grammars g = o.xsdTypes ? Schemas.xsdTypes() : Schemas.load(o.schema, o.catalog);
                File outFile = new File(f[1]);
                // Grammars2JSON prints its whole list of grammars ("Sorted Grammars: [...]",
                // GrammarsPreperation.prepareGrammars) on System.out, which is this protocol's
                // channel: swallowed. Its JSON goes through an OutputStreamWriter in the JVM's
                // default charset (UTF-8 as ExiOracle starts java)
                PrintStream saved = System.out;
                System.setOut(new PrintStream(OutputStream.nullOutputStream()));
                try (OutputStream os = new BufferedOutputStream(new FileOutputStream(outFile))) {
                    new Grammars2JSON().toGrammarsJSON((SchemaInformedGrammars) g, os);
                } catch (Exception e) {
                    outFile.delete();
                    throw e;
                } finally {
                    System.setOut(saved);
                }
                return null;
            }
            case "options":
                return Opts.describe(Opts.parse(arg(f, 1)).factory(), true);
            case "info": {
                return System.getProperty("java.version") + " "
                        + SAXParserFactory.newInstance().newSAXParser().getXMLReader().getClass().getName();
            }
            default:
                throw new IllegalArgumentException("unknown command " + f[0]);
        }
    }

    /** Whether the stream's header has the options-present bit (after an optional "$EXI"). */
    static boolean headerHasOptions(byte[] d) {
        int i = d.length >= 4 && d[0] == '$' && d[1] == 'E' && d[2] == 'X' && d[3] == 'I' ? 4 : 0;
        return d.length > i && (d[i] & 0x20) != 0;
    }

    static byte[] stripXmlDecl(byte[] b) {
        int i = 0;
        if (b.length >= 3 && (b[0] & 0xff) == 0xEF && (b[1] & 0xff) == 0xBB && (b[2] & 0xff) == 0xBF) i = 3;
        if (b.length - i >= 5 && new String(b, i, 5, StandardCharsets.US_ASCII).equals("<?xml")
                && b.length - i > 5 && (b[i + 5] == ' ' || b[i + 5] == '\t' || b[i + 5] == '\n' || b[i + 5] == '\r')) {
            for (int j = i + 5; j + 1 < b.length; j++) {
                if (b[j] == '?' && b[j + 1] == '>') return Arrays.copyOfRange(b, j + 2, b.length);
            }
        }
        return i == 0 ? b : Arrays.copyOfRange(b, i, b.length);
    }

    /** The parser EXIficient's own command line uses (EXIficientCMD.getXMLReader), with the
     *  external DTD subset and external entities not read. With xercesImpl on the class path
     *  the JAXP factory gives Xerces 2.12.2 (the "info" command names it). */
    static XMLReader xmlReader() throws Exception {
        SAXParserFactory f = SAXParserFactory.newInstance();
        f.setNamespaceAware(true);
        f.setValidating(false);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        XMLReader r = f.newSAXParser().getXMLReader();
        r.setFeature("http://xml.org/sax/features/namespaces", true);
        r.setFeature("http://xml.org/sax/features/namespace-prefixes", false);
        r.setFeature("http://xml.org/sax/features/external-general-entities", false);
        r.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
        r.setEntityResolver((publicId, systemId) -> new InputSource(new StringReader("")));
        // errors come back through the "err" answer; Xerces's default handler would also print them
        r.setErrorHandler(new DefaultHandler());
        return r;
    }

    /** Keeps the wrapping root element of a fragment from the encoder (EXIficient's
     *  SkipRootElementXMLReader, with the lexical and declaration handlers passed through). */
    static final class SkipRoot extends XMLFilterImpl {
        int open = 0;

        SkipRoot(XMLReader parent) {
            super(parent);
            setContentHandler(parent.getContentHandler());
            setDTDHandler(parent.getDTDHandler());
        }

        @Override
        public void startElement(String uri, String local, String q, Attributes a) throws SAXException {
            if (open++ > 0) super.startElement(uri, local, q, a);
        }

        @Override
        public void endElement(String uri, String local, String q) throws SAXException {
            if (--open > 0) super.endElement(uri, local, q);
        }
    }

    /** Schema-informed grammars, built once per (schema, catalog) for the life of the process. */
    static final class Schemas {
        static final Map<String, Grammars> cache = new HashMap<>();
        static Grammars xsdTypes;

        static Grammars load(String schema, String catalog) throws Exception {
            File xsd = new File(schema), cat = catalog == null ? null : new File(catalog);
            // the files' times are in the key so that an edited schema is read again
            String key = xsd.getAbsolutePath() + "\u0000" + xsd.lastModified() + "\u0000"
                    + (cat == null ? "" : cat.getAbsolutePath() + "\u0000" + cat.lastModified());
            Grammars g = cache.get(key);
            if (g == null) {
                if (!xsd.isFile()) throw new FileNotFoundException(schema);
                g = GrammarFactory.newInstance().createGrammars(schema, new Catalog(cat));
                cache.put(key, g);
            }
            return g;
        }

        static Grammars xsdTypes() throws EXIException {
            if (xsdTypes == null) xsdTypes = GrammarFactory.newInstance().createXSDTypesOnlyGrammars();
            return xsdTypes;
        }
    }

    /** The entity resolver for schema loading: catalog entries map URLs to local files, and
     *  nothing is fetched from the network (an unmapped http(s) or ftp URL fails the load). Local
     *  files resolve as Xerces resolves them (null: the default). */
    static final class Catalog implements XMLEntityResolver {
        final Map<String, String> map = new HashMap<>();

        Catalog(File tsv) throws IOException {
            if (tsv == null) return;
            File base = tsv.getAbsoluteFile().getParentFile();
            int n = 0;
            for (String line : Files.readAllLines(tsv.toPath(), StandardCharsets.UTF_8)) {
                n++;
                if (line.trim().isEmpty() || line.trim().startsWith("#")) continue;
                String[] f = line.split("\t", -1);
                if (f.length != 2) throw new IOException(tsv + ":" + n + ": expected URL<TAB>path");
                File local = new File(f[1]);
                if (!local.isAbsolute()) local = new File(base, f[1]);
                map.put(f[0], local.getCanonicalFile().toURI().toString());
            }
        }

        public XMLInputSource resolveEntity(XMLResourceIdentifier rid) throws XNIException, IOException {
            for (String id : new String[]{rid.getLiteralSystemId(), rid.getExpandedSystemId()}) {
                if (id != null && map.containsKey(id)) return new XMLInputSource(rid.getPublicId(), map.get(id), null);
            }
            // an entry that is a bare file name stands for that relative reference from any
            // document (validate.py reads the catalog the same way)
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
                throw new IOException("not fetched from the network (give a catalog= entry): " + id);
            }
            return null;
        }
    }

    /** The option list, parsed. */
    static final class Opts {
        CodingMode mode = null;
        boolean comments, pis, dtd, prefixes, lexical, sc, strict, fragment, header, cookie, entityrefs, schemaLocation, canonical, omitOptions;
        String scElements = null;
        Integer blockSize, valueMaxLength, capacity, deflate;
        // schema-informed grammars: schema= (and catalog=), or xsdtypes; schemaid[=ID]
        String schema = null, catalog = null, schemaId = null;
        boolean xsdTypes, includeSchemaId;
        // datatypeRepresentationMap entries: dtr={ns}type={ns}representation (repeatable)
        List<QName> dtrTypes = new ArrayList<>(), dtrReprs = new ArrayList<>();

        static Opts parse(String s) {
            Opts o = new Opts();
            if (s == null || s.isEmpty() || s.equals("-")) return o;
            for (String item : s.split(",")) {
                String t = item.trim();
                if (t.isEmpty()) continue;
                String key = t, val = null;
                int eq = t.indexOf('=');
                if (eq >= 0) {
                    key = t.substring(0, eq);
                    val = t.substring(eq + 1);
                }
                switch (key) {
                    case "bitpacked": o.setMode(CodingMode.BIT_PACKED); break;
                    case "bytealigned": o.setMode(CodingMode.BYTE_PACKED); break;
                    case "precompression": o.setMode(CodingMode.PRE_COMPRESSION); break;
                    case "compression": o.setMode(CodingMode.COMPRESSION); break;
                    case "comments": o.comments = flag(key, val); break;
                    case "pis": o.pis = flag(key, val); break;
                    case "dtd": o.dtd = flag(key, val); break;
                    case "prefixes": o.prefixes = flag(key, val); break;
                    case "lexical": o.lexical = flag(key, val); break;
                    case "selfcontained": o.sc = true; o.scElements = val; break;
                    case "strict": o.strict = flag(key, val); break;
                    case "fragment": o.fragment = flag(key, val); break;
                    case "header": o.header = flag(key, val); break;
                    case "cookie": o.cookie = flag(key, val); break;
                    case "entityrefs": o.entityrefs = flag(key, val); break;
                    case "schemalocation": o.schemaLocation = flag(key, val); break;
                    case "canonical": o.canonical = flag(key, val); break;
                    case "omitoptions": o.omitOptions = flag(key, val); break;
                    case "blocksize": o.blockSize = num(key, val); break;
                    case "valuemaxlength": o.valueMaxLength = num(key, val); break;
                    case "capacity": o.capacity = num(key, val); break;
                    case "deflate": o.deflate = num(key, val); break;
                    case "schema": o.schema = value(key, val); break;
                    case "catalog": o.catalog = value(key, val); break;
                    case "xsdtypes": o.xsdTypes = flag(key, val); break;
                    case "schemaid": o.includeSchemaId = true; o.schemaId = val; break;
                    case "dtr": {
                        String v = value(key, val);
                        int cut = v.indexOf("={", v.indexOf('}'));
                        if (cut < 0) throw new IllegalArgumentException("dtr needs {ns}type={ns}representation");
                        o.dtrTypes.add(QName.valueOf(v.substring(0, cut)));
                        o.dtrReprs.add(QName.valueOf(v.substring(cut + 1)));
                        break;
                    }
                    default: throw new IllegalArgumentException("unknown option " + t);
                }
            }
            if (o.strict && (o.comments || o.pis || o.dtd || o.prefixes || o.sc)) {
                throw new IllegalArgumentException(
                        "strict cannot be combined with comments, pis, dtd, prefixes or selfcontained (EXIficient would silently drop strict)");
            }
            if (o.omitOptions && !o.canonical) {
                throw new IllegalArgumentException("omitoptions is a Canonical EXI option: it needs canonical");
            }
            if (o.schema != null && o.xsdTypes) {
                throw new IllegalArgumentException("schema= and xsdtypes exclude each other");
            }
            if (o.catalog != null && o.schema == null) {
                throw new IllegalArgumentException("catalog= needs schema=");
            }
            if (o.includeSchemaId && !o.header) {
                throw new IllegalArgumentException(
                        "schemaid needs header (EXIficient writes the schemaId only among the header's options)");
            }
            if (o.schemaId != null && o.schema == null) {
                throw new IllegalArgumentException("schemaid=ID needs schema= (built-in types have schemaId \"\")");
            }
            return o;
        }

        static String value(String key, String val) {
            if (val == null || val.isEmpty()) throw new IllegalArgumentException("option " + key + " needs =VALUE");
            return val;
        }

        void setMode(CodingMode m) {
            if (mode != null && mode != m) throw new IllegalArgumentException("more than one alignment given");
            mode = m;
        }

        static boolean flag(String key, String val) {
            if (val != null) throw new IllegalArgumentException("option " + key + " takes no value");
            return true;
        }

        static int num(String key, String val) {
            if (val == null) throw new IllegalArgumentException("option " + key + " needs =N");
            return Integer.parseInt(val);
        }

        EXIFactory factory() throws Exception {
            EXIFactory f = DefaultEXIFactory.newInstance();
            if (mode != null) f.setCodingMode(mode);
            FidelityOptions fo = strict ? FidelityOptions.createStrict() : FidelityOptions.createDefault();
            if (lexical) fo.setFidelity(FidelityOptions.FEATURE_LEXICAL_VALUE, true);
            if (comments) fo.setFidelity(FidelityOptions.FEATURE_COMMENT, true);
            if (pis) fo.setFidelity(FidelityOptions.FEATURE_PI, true);
            if (dtd) fo.setFidelity(FidelityOptions.FEATURE_DTD, true);
            if (prefixes) fo.setFidelity(FidelityOptions.FEATURE_PREFIX, true);
            if (sc) {
                fo.setFidelity(FidelityOptions.FEATURE_SC, true);
                if (scElements != null && !scElements.isEmpty()) {
                    String[] names = scElements.split("\\|");
                    QName[] q = new QName[names.length];
                    for (int i = 0; i < names.length; i++) q[i] = QName.valueOf(names[i]);
                    f.setSelfContainedElements(q);
                }
            }
            f.setFidelityOptions(fo);
            if (fragment) f.setFragment(true);
            if (blockSize != null) f.setBlockSize(blockSize);
            if (valueMaxLength != null) f.setValueMaxLength(valueMaxLength);
            if (capacity != null) f.setValuePartitionCapacity(capacity);
            if (!dtrTypes.isEmpty()) {
                f.setDatatypeRepresentationMap(dtrTypes.toArray(new QName[0]), dtrReprs.toArray(new QName[0]));
            }
            EncodingOptions eo = f.getEncodingOptions();
            if (header) eo.setOption(EncodingOptions.INCLUDE_OPTIONS);
            if (cookie) eo.setOption(EncodingOptions.INCLUDE_COOKIE);
            if (entityrefs) eo.setOption(EncodingOptions.RETAIN_ENTITY_REFERENCE);
            if (schemaLocation) eo.setOption(EncodingOptions.INCLUDE_XSI_SCHEMALOCATION);
            if (deflate != null) eo.setOption(EncodingOptions.DEFLATE_COMPRESSION_VALUE, deflate);
            if (canonical) eo.setOption(EncodingOptions.CANONICAL_EXI);
            if (omitOptions) eo.unsetOption(EncodingOptions.INCLUDE_OPTIONS);
            if (schema != null || xsdTypes) {
                final Grammars g = xsdTypes ? Schemas.xsdTypes() : Schemas.load(schema, catalog);
                if (!xsdTypes) g.setSchemaId(schemaId != null ? schemaId : schema);
                f.setGrammars(g);
                f.setSchemaIdResolver(new SchemaIdResolver() {
                    public Grammars resolveSchemaId(String id) throws EXIException {
                        if (id.equals(g.getSchemaId())) return g;
                        if (id.isEmpty()) return Schemas.xsdTypes();
                        throw new EXIException("the stream's schemaId '" + id + "' is not that of the schema given ('"
                                + g.getSchemaId() + "')");
                    }
                });
            }
            if (includeSchemaId) eo.setOption(EncodingOptions.INCLUDE_SCHEMA_ID);
            return f;
        }

        /** The EXI options a factory stands for, in this driver's option syntax. */
        static String describe(EXIFactory f, boolean encodingOptions) {
            List<String> l = new ArrayList<>();
            switch (f.getCodingMode()) {
                case BIT_PACKED: break;
                case BYTE_PACKED: l.add("bytealigned"); break;
                case PRE_COMPRESSION: l.add("precompression"); break;
                case COMPRESSION: l.add("compression"); break;
            }
            FidelityOptions fo = f.getFidelityOptions();
            if (fo.isFidelityEnabled(FidelityOptions.FEATURE_COMMENT)) l.add("comments");
            if (fo.isFidelityEnabled(FidelityOptions.FEATURE_PI)) l.add("pis");
            if (fo.isFidelityEnabled(FidelityOptions.FEATURE_DTD)) l.add("dtd");
            if (fo.isFidelityEnabled(FidelityOptions.FEATURE_PREFIX)) l.add("prefixes");
            if (fo.isFidelityEnabled(FidelityOptions.FEATURE_LEXICAL_VALUE)) l.add("lexical");
            if (fo.isFidelityEnabled(FidelityOptions.FEATURE_SC)) l.add("selfcontained");
            if (fo.isStrict()) l.add("strict");
            if (f.isFragment()) l.add("fragment");
            if (f.getBlockSize() != 1000000) l.add("blocksize=" + f.getBlockSize());
            if (f.getValueMaxLength() != -1) l.add("valuemaxlength=" + f.getValueMaxLength());
            if (f.getValuePartitionCapacity() != -1) l.add("capacity=" + f.getValuePartitionCapacity());
            Grammars g = f.getGrammars();
            if (g.isSchemaInformed()) l.add(g.isBuiltInXMLSchemaTypesOnly() ? "xsdtypes" : "schema=" + g.getSchemaId());
            EncodingOptions eo = f.getEncodingOptions();
            if (!encodingOptions) return l.isEmpty() ? "-" : String.join(",", l);
            if (eo.isOptionEnabled(EncodingOptions.INCLUDE_SCHEMA_ID)) l.add("schemaid");
            if (eo.isOptionEnabled(EncodingOptions.INCLUDE_OPTIONS)) l.add("header");
            if (eo.isOptionEnabled(EncodingOptions.INCLUDE_COOKIE)) l.add("cookie");
            if (eo.isOptionEnabled(EncodingOptions.RETAIN_ENTITY_REFERENCE)) l.add("entityrefs");
            if (eo.isOptionEnabled(EncodingOptions.INCLUDE_XSI_SCHEMALOCATION)) l.add("schemalocation");
            if (eo.isOptionEnabled(EncodingOptions.CANONICAL_EXI)) l.add("canonical");
            Object d = eo.getOptionValue(EncodingOptions.DEFLATE_COMPRESSION_VALUE);
            if (d != null) l.add("deflate=" + d);
            return l.isEmpty() ? "-" : String.join(",", l);
        }
    }

    /** Writes SAX events as XML, keeping namespace declarations in the order they were reported. */
    static final class XmlOut extends DefaultHandler implements LexicalHandler, DeclHandler {
        final Writer w;
        final boolean fragment;
        final List<String[]> pending = new ArrayList<>();
        boolean inDtd = false;
        boolean subsetOpen = false;

        XmlOut(Writer w, boolean fragment) {
            this.w = w;
            this.fragment = fragment;
        }

        void esc(String s, boolean attr) throws SAXException {
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
            } catch (IOException e) { throw new SAXException(e); }
        }

        void raw(String s) throws SAXException {
            try { w.write(s); } catch (IOException e) { throw new SAXException(e); }
        }

        static String quote(String s) {
            return s.indexOf('"') >= 0 ? "'" + s + "'" : "\"" + s + "\"";
        }

        public void startDocument() throws SAXException {
            if (!fragment) raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        }
        public void startPrefixMapping(String p, String u) { pending.add(new String[]{p, u}); }
        public void startElement(String u, String l, String q, Attributes a) throws SAXException {
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
        public void endElement(String u, String l, String q) throws SAXException { raw("</" + q + ">"); }
        public void characters(char[] c, int s, int n) throws SAXException {
            if (n > 0) esc(new String(c, s, n), false);
        }
        public void ignorableWhitespace(char[] c, int s, int n) throws SAXException { characters(c, s, n); }
        public void processingInstruction(String t, String d) throws SAXException {
            raw("<?" + t + (d == null || d.isEmpty() ? "" : " " + d) + "?>");
        }
        public void skippedEntity(String name) throws SAXException { raw("&" + name + ";"); }
        public void comment(char[] c, int s, int n) throws SAXException {
            if (!inDtd) raw("<!--" + new String(c, s, n) + "-->");
        }
        public void startCDATA() {}
        public void endCDATA() {}
        public void startDTD(String n, String p, String s) throws SAXException {
            inDtd = true;
            raw("<!DOCTYPE " + n);
            if (p != null) raw(" PUBLIC " + quote(p) + " " + quote(s == null ? "" : s));
            else if (s != null) raw(" SYSTEM " + quote(s));
        }
        void decl(String d) throws SAXException {
            if (!subsetOpen) {
                raw(" [");
                subsetOpen = true;
            }
            raw(d);
        }
        public void endDTD() throws SAXException {
            raw(subsetOpen ? "]>\n" : ">\n");
            inDtd = false;
            subsetOpen = false;
        }
        public void startEntity(String n) {}
        public void endEntity(String n) {}
        public void elementDecl(String name, String model) throws SAXException {
            decl("<!ELEMENT " + name + " " + model + ">");
        }
        public void attributeDecl(String e, String a, String type, String mode, String value) throws SAXException {
            decl("<!ATTLIST " + e + " " + a + " " + type + (mode == null ? "" : " " + mode)
                    + (value == null ? "" : " " + quote(value)) + ">");
        }
        public void internalEntityDecl(String name, String value) throws SAXException {
            String n = name.startsWith("%") ? "% " + name.substring(1) : name;
            decl("<!ENTITY " + n + " " + quote(value) + ">");
        }
        public void externalEntityDecl(String name, String p, String s) throws SAXException {
            String n = name.startsWith("%") ? "% " + name.substring(1) : name;
            decl("<!ENTITY " + n + (p != null ? " PUBLIC " + quote(p) + " " + quote(s) : " SYSTEM " + quote(s)) + ">");
        }
    }

    /** Writes every SAX event the EXIficient decoder reports, one a line (the "events" command):
     *  SD, ED, NS prefix uri, SE {uri}local qname, AT {uri}local qname "value", EE qname,
     *  CH "text", CM "text", PI target "data", ER name, DT name "public" "system", DT-DECL text,
     *  DT-END. Strings are quoted with \\ \" \n \r \t and \\uXXXX for other control characters. */
    static final class Events extends DefaultHandler implements LexicalHandler, DeclHandler {
        final Writer w;

        Events(Writer w) { this.w = w; }

        void line(String s) throws SAXException {
            try { w.write(s); w.write('\n'); } catch (IOException e) { throw new SAXException(e); }
        }

        static String q(String s) {
            if (s == null) return "null";
            StringBuilder b = new StringBuilder("\"");
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '\\': b.append("\\\\"); break;
                    case '"': b.append("\\\""); break;
                    case '\n': b.append("\\n"); break;
                    case '\r': b.append("\\r"); break;
                    case '\t': b.append("\\t"); break;
                    default:
                        if (c < 0x20 || c == 0x7f) b.append(String.format("\\u%04x", (int) c));
                        else b.append(c);
                }
            }
            return b.append('"').toString();
        }

        public void startDocument() throws SAXException { line("SD"); }
        public void endDocument() throws SAXException { line("ED"); }
        public void startPrefixMapping(String p, String u) throws SAXException { line("NS " + p + " " + u); }
        public void startElement(String u, String l, String qn, Attributes a) throws SAXException {
            line("SE {" + u + "}" + l + " " + qn);
            for (int i = 0; i < a.getLength(); i++) {
                line("AT {" + a.getURI(i) + "}" + a.getLocalName(i) + " " + a.getQName(i) + " " + q(a.getValue(i)));
            }
        }
        public void endElement(String u, String l, String qn) throws SAXException { line("EE " + qn); }
        public void characters(char[] c, int s, int n) throws SAXException { line("CH " + q(new String(c, s, n))); }
        public void ignorableWhitespace(char[] c, int s, int n) throws SAXException { characters(c, s, n); }
        public void processingInstruction(String t, String d) throws SAXException { line("PI " + t + " " + q(d)); }
        public void skippedEntity(String name) throws SAXException { line("ER " + name); }
        public void comment(char[] c, int s, int n) throws SAXException { line("CM " + q(new String(c, s, n))); }
        public void startCDATA() throws SAXException { line("CDATA-START"); }
        public void endCDATA() throws SAXException { line("CDATA-END"); }
        public void startDTD(String n, String p, String s) throws SAXException { line("DT " + n + " " + q(p) + " " + q(s)); }
        public void endDTD() throws SAXException { line("DT-END"); }
        public void startEntity(String n) {}
        public void endEntity(String n) {}
        public void elementDecl(String name, String model) throws SAXException { line("DT-DECL ELEMENT " + name + " " + model); }
        public void attributeDecl(String e, String a, String type, String mode, String value) throws SAXException {
            line("DT-DECL ATTLIST " + e + " " + a + " " + type + " " + mode + " " + q(value));
        }
        public void internalEntityDecl(String name, String value) throws SAXException { line("DT-DECL ENTITY " + name + " " + q(value)); }
        public void externalEntityDecl(String name, String p, String s) throws SAXException {
            line("DT-DECL ENTITY " + name + " PUBLIC " + q(p) + " SYSTEM " + q(s));
        }
    }
}
