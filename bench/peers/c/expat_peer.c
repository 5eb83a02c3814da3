/* libexpat peer for binxml's benchmarks: "expat-empty" (namespace-aware parse, empty handlers)
 * and "expat-tree" (builds a simple element tree with attributes and text, then frees it). */
#include "peer.h"
#include <expat.h>

static void XMLCALL e_start(void *u, const XML_Char *n, const XML_Char **a) { (void)u; (void)n; (void)a; }
static void XMLCALL e_end(void *u, const XML_Char *n) { (void)u; (void)n; }
static void XMLCALL e_text(void *u, const XML_Char *s, int len) { (void)u; (void)s; (void)len; }

typedef struct Node {
  char *name;
  char **attrs; /* name, value, ..., NULL */
  char *text;
  size_t text_len;
  struct Node *first, *last, *next, *parent;
} Node;

typedef struct { Node *root, *cur; } Tree;

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  memcpy(d, s, n);
  return d;
}

static void XMLCALL t_start(void *u, const XML_Char *name, const XML_Char **a) {
  Tree *t = u;
  Node *n = calloc(1, sizeof *n);
  n->name = dup_str(name);
  size_t k = 0;
  while (a[k]) k++;
  n->attrs = malloc((k + 1) * sizeof *n->attrs);
  for (size_t i = 0; i < k; i++) n->attrs[i] = dup_str(a[i]);
  n->attrs[k] = NULL;
  n->parent = t->cur;
  if (t->cur) {
    if (t->cur->last) t->cur->last->next = n; else t->cur->first = n;
    t->cur->last = n;
  } else {
    t->root = n;
  }
  t->cur = n;
}

static void XMLCALL t_end(void *u, const XML_Char *name) {
  Tree *t = u;
  (void)name;
  t->cur = t->cur->parent;
}

static void XMLCALL t_text(void *u, const XML_Char *s, int len) {
  Tree *t = u;
  Node *n = t->cur;
  if (!n) return;
  n->text = realloc(n->text, n->text_len + len + 1);
  memcpy(n->text + n->text_len, s, len);
  n->text_len += len;
  n->text[n->text_len] = 0;
}

static void free_node(Node *n) {
  while (n) {
    Node *next = n->next;
    free_node(n->first);
    for (char **a = n->attrs; *a; a++) free(*a);
    free(n->attrs);
    free(n->name);
    free(n->text);
    free(n);
    n = next;
  }
}

static int parse(const char *buf, size_t len, int tree, Tree *t) {
  XML_Parser p = XML_ParserCreateNS(NULL, ' ');
  if (tree) {
    XML_SetUserData(p, t);
    XML_SetElementHandler(p, t_start, t_end);
    XML_SetCharacterDataHandler(p, t_text);
  } else {
    XML_SetElementHandler(p, e_start, e_end);
    XML_SetCharacterDataHandler(p, e_text);
  }
  int ok = XML_Parse(p, buf, (int)len, 1) == XML_STATUS_OK;
  XML_ParserFree(p);
  return ok ? 0 : 1;
}

int run_mode(const char *mode, const char *buf, size_t len) {
  if (strcmp(mode, "expat-empty") == 0) return parse(buf, len, 0, NULL);
  if (strcmp(mode, "expat-tree") == 0) {
    Tree t = {0};
    int r = parse(buf, len, 1, &t);
    free_node(t.root);
    return r;
  }
  return -1;
}

void *keep_mode(const char *mode, const char *buf, size_t len) {
  static Tree t;
  if (strcmp(mode, "expat-tree") == 0) return parse(buf, len, 1, &t) == 0 ? (void *)&t : NULL;
  if (strcmp(mode, "expat-empty") == 0) return parse(buf, len, 0, NULL) == 0 ? (void *)&t : NULL;
  return NULL;
}
