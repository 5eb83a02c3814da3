/* libxml2 peer for binxml's benchmarks: "libxml2-sax" (SAX2 parse, empty element and text
 * handlers; entity declarations kept so that internal entities expand), "libxml2-tree"
 * (xmlReadMemory into a DOM tree, then xmlFreeDoc) and "libxml2-serialize" (the tree parsed once
 * beforehand is written to memory with xmlDocDumpMemory). */
#include "peer.h"
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/SAX2.h>
#include <libxml/parserInternals.h>

static void s_start(void *c, const xmlChar *l, const xmlChar *p, const xmlChar *u, int nn, const xmlChar **ns, int na, int nd, const xmlChar **a) {
  (void)c; (void)l; (void)p; (void)u; (void)nn; (void)ns; (void)na; (void)nd; (void)a;
}
static void s_end(void *c, const xmlChar *l, const xmlChar *p, const xmlChar *u) { (void)c; (void)l; (void)p; (void)u; }
static void s_text(void *c, const xmlChar *s, int len) { (void)c; (void)s; (void)len; }

static int sax_parse(const char *buf, size_t len) {
  static xmlSAXHandler h;
  static int init = 0;
  if (!init) {
    xmlSAXVersion(&h, 2);
    h.startElementNs = s_start;
    h.endElementNs = s_end;
    h.characters = s_text;
    h.ignorableWhitespace = s_text;
    h.cdataBlock = s_text;
    h.comment = NULL;
    h.processingInstruction = NULL;
    init = 1;
  }
  xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(buf, (int)len);
  if (!ctxt) return 1;
  xmlSAXHandlerPtr old = ctxt->sax;
  ctxt->sax = &h;
  ctxt->userData = ctxt;
  xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_HUGE);
  xmlParseDocument(ctxt);
  int ok = ctxt->wellFormed;
  if (ctxt->myDoc) xmlFreeDoc(ctxt->myDoc);
  ctxt->myDoc = NULL;
  ctxt->sax = old;
  xmlFreeParserCtxt(ctxt);
  return ok ? 0 : 1;
}

static xmlDocPtr tree_parse(const char *buf, size_t len) {
  return xmlReadMemory(buf, (int)len, NULL, NULL, XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
}

int run_mode(const char *mode, const char *buf, size_t len) {
  if (strcmp(mode, "libxml2-sax") == 0) return sax_parse(buf, len);
  if (strcmp(mode, "libxml2-tree") == 0) {
    xmlDocPtr d = tree_parse(buf, len);
    if (!d) return 1;
    xmlFreeDoc(d);
    return 0;
  }
  if (strcmp(mode, "libxml2-serialize") == 0) {
    /* Parse once per document (cached by buffer address), then only serialize. */
    static const char *cached_buf = NULL;
    static xmlDocPtr cached = NULL;
    if (buf != cached_buf) {
      if (cached) xmlFreeDoc(cached);
      cached = tree_parse(buf, len);
      cached_buf = buf;
    }
    if (!cached) return 1;
    xmlChar *out;
    int n;
    xmlDocDumpMemory(cached, &out, &n);
    if (!out) return 1;
    xmlFree(out);
    return 0;
  }
  return -1;
}

void *keep_mode(const char *mode, const char *buf, size_t len) {
  if (strcmp(mode, "libxml2-tree") == 0) return tree_parse(buf, len);
  if (strcmp(mode, "libxml2-sax") == 0) return sax_parse(buf, len) == 0 ? (void *)buf : NULL;
  return NULL;
}
