/* Shared timing loop of binxml's C peer drivers (bench/peers/c): the same methodology as the Rust
 * harness. Usage of a driver:
 *   DRIVER time MODE MANIFEST PASSES WARMUP_MS    MANIFEST: one "path<TAB>reps" a line
 *   DRIVER mem MODE FILE
 * `time` prints one line per document: "ok<TAB>MODE<TAB>INDEX<TAB>NS_PER_PARSE" (the median over
 * PASSES passes of the time of REPS parses divided by REPS) or "err<TAB>MODE<TAB>INDEX<TAB>MSG".
 * `mem` prints "ok<TAB>HWM_BEFORE_KB<TAB>HWM_AFTER_KB" (VmHWM from /proc/self/status).
 * Each driver defines `int run_mode(const char *mode, const char *buf, size_t len)` (0 = ok,
 * -1 = unknown mode, other = parse error) and `int keep_mode(...)` for mem (parse and keep the
 * result alive while the peak is read). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int run_mode(const char *mode, const char *buf, size_t len);
void *keep_mode(const char *mode, const char *buf, size_t len);

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc(n + 1);
  if (fread(b, 1, n, f) != (size_t)n) { fclose(f); free(b); return NULL; }
  fclose(f);
  b[n] = 0;
  *len = (size_t)n;
  return b;
}

static long vm_hwm_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmHWM:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  fclose(f);
  return kb;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "mem") == 0) {
    size_t len;
    char *buf = read_file(argv[3], &len);
    if (!buf) { printf("err\tcannot read %s\n", argv[3]); return 1; }
    long before = vm_hwm_kb();
    void *kept = keep_mode(argv[2], buf, len);
    long after = vm_hwm_kb();
    if (!kept) { printf("err\tparse failed\n"); return 1; }
    printf("ok\t%ld\t%ld\n", before, after);
    return 0;
  }
  if (argc != 6 || strcmp(argv[1], "time") != 0) {
    fprintf(stderr, "usage: %s time MODE MANIFEST PASSES WARMUP_MS | mem MODE FILE\n", argv[0]);
    return 2;
  }
  const char *mode = argv[2];
  int passes = atoi(argv[4]);
  double warmup_ns = atof(argv[5]) * 1e6;
  FILE *m = fopen(argv[3], "r");
  if (!m) { fprintf(stderr, "cannot read manifest\n"); return 2; }
  size_t cap = 16, n = 0;
  char **bufs = malloc(cap * sizeof *bufs);
  size_t *lens = malloc(cap * sizeof *lens);
  int *reps = malloc(cap * sizeof *reps);
  char line[4096];
  while (fgets(line, sizeof line, m)) {
    char *tab = strchr(line, '\t');
    if (!tab) continue;
    *tab = 0;
    if (n == cap) {
      cap *= 2;
      bufs = realloc(bufs, cap * sizeof *bufs);
      lens = realloc(lens, cap * sizeof *lens);
      reps = realloc(reps, cap * sizeof *reps);
    }
    bufs[n] = read_file(line, &lens[n]);
    reps[n] = atoi(tab + 1);
    if (reps[n] < 1) reps[n] = 1;
    n++;
  }
  fclose(m);
  int *failed = calloc(n, sizeof *failed);
  /* Warm-up: one pass, then more until WARMUP_MS has passed. Failures are found here. */
  double t0 = now_ns();
  for (int first = 1; first || now_ns() - t0 < warmup_ns; first = 0) {
    for (size_t i = 0; i < n; i++) {
      if (failed[i]) continue;
      if (!bufs[i]) { failed[i] = 1; printf("err\t%s\t%zu\tcannot read the document\n", mode, i); continue; }
      int r = run_mode(mode, bufs[i], lens[i]);
      if (r == -1) { printf("err\t%s\t%zu\tunknown mode\n", mode, i); return 2; }
      if (r != 0) { failed[i] = 1; printf("err\t%s\t%zu\tparse error\n", mode, i); }
    }
  }
  double *per = malloc((size_t)passes * n * sizeof *per);
  for (int p = 0; p < passes; p++) {
    for (size_t i = 0; i < n; i++) {
      if (failed[i]) continue;
      double s = now_ns();
      for (int r = 0; r < reps[i]; r++) run_mode(mode, bufs[i], lens[i]);
      per[i * passes + p] = (now_ns() - s) / reps[i];
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (failed[i]) continue;
    qsort(per + i * passes, passes, sizeof *per, cmp_double);
    printf("ok\t%s\t%zu\t%.0f\n", mode, i, per[i * passes + passes / 2]);
  }
  return 0;
}
