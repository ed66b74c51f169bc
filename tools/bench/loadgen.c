/*
 * The bench's load generator, open loop: request i is due at start + i/rate, whatever happened
 * to the ones before it, and latency counts from that time. In C with epoll, because one core
 * of Node sends at most ~15,000 requests a second and the overload steps through Nginx need
 * more than 25,000. Built on demand by native-generator.ts with the system's C compiler; one
 * process per step.
 *
 * usage: loadgen HOST PORT RATE WARMUP_S DURATION_S TIMEOUT_MS MAX_CONNECTIONS PATHS_FILE ROTATION
 * stdout: "measuring" and "measured" as the window opens and closes, then one JSON line:
 *         {"counts":StepCounts,"warmup":StepCounts,"pool":PoolStats} (native-generator.ts).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define READ_BUF 65536
#define HEAD_MAX 16384

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A growable list of doubles, sorted once at the end. */
typedef struct { double *v; size_t n, cap; } samples_t;
static void add(samples_t *s, double x) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 4096;
    s->v = realloc(s->v, s->cap * sizeof(double));
    if (!s->v) { perror("realloc"); exit(1); }
  }
  s->v[s->n++] = x;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
/* Nearest-rank percentile of a sorted list. */
static double pct(samples_t *s, double p) {
  if (s->n == 0) return -1;
  size_t rank = (size_t)((p / 100.0) * s->n + 0.999999999);
  if (rank < 1) rank = 1;
  if (rank > s->n) rank = s->n;
  return s->v[rank - 1];
}

#define NCODES 8
static const char *code_names[NCODES] = {"ECONNREFUSED", "ECONNRESET", "ECLOSED", "ECONNECT", "EPARSE", "EPIPE", "ETIMEDOUT", "EOTHER"};

/* One window's counts (StepCounts in native-generator.ts). */
typedef struct {
  double start, end, timeout;
  long scheduled, answered, ok, non2xx, s503, s503ra, errors, timeouts, timeouts_unsent, ssr, last_good, shell, shell_nginx;
  long unknown_mode, no_mode;
  long writes, ok_in_window, ssr_in_window, last_good_in_window;
  long codes[NCODES];
  samples_t latency, send_delay;
} tally_t;

static int in_window(tally_t *t, double at) { return at >= t->start && at < t->end; }

/* X-Render-Mode, as the answer said it: who made the page. */
enum { MODE_NONE, MODE_SSR, MODE_SHELL, MODE_UNKNOWN, MODE_LAST_GOOD };

typedef struct {
  int status;
  int mode; /* MODE_*: a value this file does not know is MODE_UNKNOWN, never server-rendered */
  int retry_after, keep_alive, static_file;
} answer_t;

static void t_answered(tally_t *t, double sched, double at, answer_t *a) {
  int ok = a->status >= 200 && a->status < 300;
  if (ok && in_window(t, at)) {
    t->ok_in_window++;
    if (a->mode == MODE_SSR) t->ssr_in_window++;
    else if (a->mode == MODE_LAST_GOOD) t->last_good_in_window++;
  }
  if (!in_window(t, sched)) return;
  t->answered++;
  add(&t->latency, at - sched);
  if (ok) {
    t->ok++;
    if (a->mode == MODE_SSR) t->ssr++;
    else if (a->mode == MODE_LAST_GOOD) t->last_good++;
    else if (a->mode == MODE_SHELL) {
      t->shell++;
      /* Nginx's shell is a static file: it carries Last-Modified, which no Node answer has. */
      if (a->static_file) t->shell_nginx++;
    } else if (a->mode == MODE_UNKNOWN) t->unknown_mode++;
    else t->no_mode++;
  } else {
    t->non2xx++;
  }
  if (a->status == 503) {
    t->s503++;
    if (a->retry_after) t->s503ra++;
  }
}

typedef struct {
  int fd;
  int connected, busy, closed_flag;
  long req;          /* index of the request in flight, -1 none */
  double opened_at;
  /* response parsing */
  char head[HEAD_MAX];
  size_t head_len;
  int in_body;
  long body_left;    /* -1: until close; -2: chunked */
  answer_t ans;
  /* chunked state */
  int chunk_state;   /* 0 size line, 1 data, 2 crlf after data, 3 trailer */
  long chunk_left;
  char line[64];
  size_t line_len;
  int idx;
} conn_t;

static char **reqs;
static size_t *req_len;
static size_t npaths;
static double start_ms, rate;
static long rotation;
static tally_t tallies[2];
static conn_t *conns;
static int max_conns, open_count, peak_open;
static long opened, connect_errors, waited;
static samples_t connect_ms;
static int *idle_stack, idle_top;
/* Whether a connection's index is on the idle stack: entries go stale when it closes, never twice. */
static char *on_stack;
static long *queue;
static size_t q_head, q_tail, q_cap;
static int ep;
static struct sockaddr_in addr;
static long outstanding;
static double timeout_ms;

static double sched_of(long i) { return start_ms + (double)i * 1000.0 / rate; }

static void each_tally_failed(long i, int code) {
  double s = sched_of(i);
  for (int k = 0; k < 2; k++) {
    tally_t *t = &tallies[k];
    if (!in_window(t, s)) continue;
    t->errors++;
    t->codes[code]++;
  }
}

static void q_push(long i) {
  if (q_tail == q_cap) {
    if (q_head > 0) {
      memmove(queue, queue + q_head, (q_tail - q_head) * sizeof(long));
      q_tail -= q_head;
      q_head = 0;
    } else {
      q_cap = q_cap ? q_cap * 2 : 65536;
      queue = realloc(queue, q_cap * sizeof(long));
      if (!queue) { perror("realloc"); exit(1); }
    }
  }
  queue[q_tail++] = i;
}

static void send_req(conn_t *c, long i) {
  c->req = i;
  c->busy = 1;
  c->head_len = 0;
  c->in_body = 0;
  double at = now_ms();
  const char *buf = reqs[(rotation + i) % npaths];
  size_t len = req_len[(rotation + i) % npaths];
  ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
  for (int k = 0; k < 2; k++) {
    if (in_window(&tallies[k], at)) tallies[k].writes++;
    if (in_window(&tallies[k], sched_of(i))) add(&tallies[k].send_delay, at - sched_of(i));
  }
  (void)n; /* a short or failed write shows as a reset or a timeout on this connection */
}

static void close_conn(conn_t *c, int code);

static void open_conn(long first) {
  int idx = -1;
  for (int k = 0; k < max_conns; k++) {
    if (conns[k].fd < 0) { idx = k; break; }
  }
  conn_t *c = &conns[idx];
  memset(c, 0, sizeof(*c));
  c->idx = idx;
  c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  c->req = first;
  c->busy = 1;
  c->opened_at = now_ms();
  open_count++;
  opened++;
  if (open_count > peak_open) peak_open = open_count;
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP, .data.u32 = (uint32_t)idx};
  epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
  if (connect(c->fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 && errno != EINPROGRESS) close_conn(c, 3);
}

static void next_or_idle(conn_t *c) {
  if (q_head < q_tail) {
    send_req(c, queue[q_head++]);
  } else {
    c->busy = 0;
    c->req = -1;
    if (!on_stack[c->idx]) {
      on_stack[c->idx] = 1;
      idle_stack[idle_top++] = c->idx;
    }
  }
}

/* The connection is gone; its request (if any) failed; a queued request opens a new one. */
static void close_conn(conn_t *c, int code) {
  if (c->fd < 0) return;
  epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  c->fd = -1;
  open_count--;
  if (!c->connected) connect_errors++;
  if (c->busy && c->req >= 0) {
    each_tally_failed(c->req, code);
    outstanding--;
  }
  c->busy = 0;
  c->req = -1;
  if (q_head < q_tail) open_conn(queue[q_head++]);
}

static void finish_answer(conn_t *c) {
  double at = now_ms();
  long i = c->req;
  if (i >= 0) {
    for (int k = 0; k < 2; k++) t_answered(&tallies[k], sched_of(i), at, &c->ans);
    outstanding--;
  }
  c->in_body = 0;
  c->head_len = 0;
  if (!c->ans.keep_alive) {
    c->busy = 0;
    c->req = -1;
    close_conn(c, 2);
    return;
  }
  next_or_idle(c);
}

static int header_is(const char *line, size_t len, const char *name) {
  size_t n = strlen(name);
  return len > n && strncasecmp(line, name, n) == 0 && line[n] == ':';
}
static const char *header_value(const char *line, size_t len, const char *name, size_t *vlen) {
  const char *v = line + strlen(name) + 1;
  while (v < line + len && (*v == ' ' || *v == '\t')) v++;
  *vlen = (size_t)(line + len - v);
  return v;
}

/* The header's value, exactly (ASCII case aside): "ssr", "last-good" or "shell"; anything else is unknown. */
static int render_mode(const char *v, size_t vl) {
  if (vl == 3 && strncasecmp(v, "ssr", 3) == 0) return MODE_SSR;
  if (vl == 9 && strncasecmp(v, "last-good", 9) == 0) return MODE_LAST_GOOD;
  if (vl == 5 && strncasecmp(v, "shell", 5) == 0) return MODE_SHELL;
  return MODE_UNKNOWN;
}

/* Parses a complete head; 0 ok, -1 malformed. */
static int parse_head(conn_t *c) {
  char *h = c->head;
  size_t len = c->head_len;
  if (len < 12 || strncmp(h, "HTTP/1.", 7) != 0) return -1;
  answer_t a = {.status = atoi(h + 9), .mode = MODE_NONE, .keep_alive = h[7] == '1'};
  long content_length = -1;
  int chunked = 0;
  char *p = memchr(h, '\n', len);
  while (p && p < h + len) {
    char *line = p + 1;
    char *e = memchr(line, '\n', (size_t)(h + len - line));
    if (!e) break;
    size_t l = (size_t)(e - line);
    if (l > 0 && line[l - 1] == '\r') l--;
    size_t vl;
    const char *v;
    if (header_is(line, l, "content-length")) content_length = atol(header_value(line, l, "content-length", &vl));
    else if (header_is(line, l, "transfer-encoding")) {
      v = header_value(line, l, "transfer-encoding", &vl);
      if (vl >= 7 && strncasecmp(v, "chunked", 7) == 0) chunked = 1;
    } else if (header_is(line, l, "connection")) {
      v = header_value(line, l, "connection", &vl);
      if (vl >= 5 && strncasecmp(v, "close", 5) == 0) a.keep_alive = 0;
      else if (vl >= 10 && strncasecmp(v, "keep-alive", 10) == 0) a.keep_alive = 1;
    } else if (header_is(line, l, "x-render-mode")) {
      v = header_value(line, l, "x-render-mode", &vl);
      while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t')) vl--;
      a.mode = render_mode(v, vl);
    } else if (header_is(line, l, "retry-after")) a.retry_after = 1;
    else if (header_is(line, l, "last-modified")) a.static_file = 1;
    p = e;
  }
  c->ans = a;
  c->in_body = 1;
  if (a.status == 204 || a.status == 304 || (a.status >= 100 && a.status < 200)) c->body_left = 0;
  else if (chunked) { c->body_left = -2; c->chunk_state = 0; c->line_len = 0; }
  else if (content_length >= 0) c->body_left = content_length;
  else { c->body_left = -1; c->ans.keep_alive = 0; }
  return 0;
}

/* Consumes body bytes; returns bytes used, sets *done when the response is complete. */
static size_t eat_body(conn_t *c, const char *b, size_t n, int *done) {
  size_t used = 0;
  *done = 0;
  if (c->body_left >= 0) {
    size_t take = (size_t)c->body_left < n ? (size_t)c->body_left : n;
    c->body_left -= (long)take;
    if (c->body_left == 0) *done = 1;
    return take;
  }
  if (c->body_left == -1) return n; /* until close */
  while (used < n && !*done) {
    if (c->chunk_state == 1) {
      size_t take = (size_t)c->chunk_left < n - used ? (size_t)c->chunk_left : n - used;
      c->chunk_left -= (long)take;
      used += take;
      if (c->chunk_left == 0) { c->chunk_state = 2; c->line_len = 0; }
      continue;
    }
    char ch = b[used++];
    if (ch != '\n') {
      if (c->line_len < sizeof(c->line) - 1) c->line[c->line_len++] = ch;
      continue;
    }
    c->line[c->line_len] = 0;
    if (c->chunk_state == 0) {
      c->chunk_left = strtol(c->line, NULL, 16);
      c->chunk_state = c->chunk_left == 0 ? 3 : 1;
    } else if (c->chunk_state == 2) {
      c->chunk_state = 0;
    } else if (c->chunk_state == 3) {
      if (c->line_len == 0 || (c->line_len == 1 && c->line[0] == '\r')) *done = 1;
    }
    c->line_len = 0;
  }
  return used;
}

static void on_readable(conn_t *c) {
  static char buf[READ_BUF];
  for (;;) {
    ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    if (n == 0) {
      if (c->in_body && c->body_left == -1) { finish_answer(c); if (c->fd >= 0) close_conn(c, 2); return; }
      close_conn(c, 2);
      return;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      close_conn(c, errno == ECONNRESET ? 1 : errno == ECONNREFUSED ? 0 : 7);
      return;
    }
    size_t off = 0;
    while (off < (size_t)n && c->fd >= 0) {
      if (!c->in_body) {
        /* Copy into the head buffer until the blank line. */
        while (off < (size_t)n && c->head_len < HEAD_MAX) {
          c->head[c->head_len++] = buf[off++];
          if (c->head_len >= 4 && memcmp(c->head + c->head_len - 4, "\r\n\r\n", 4) == 0) break;
        }
        if (c->head_len >= HEAD_MAX) { close_conn(c, 4); return; }
        if (c->head_len < 4 || memcmp(c->head + c->head_len - 4, "\r\n\r\n", 4) != 0) break;
        if (!c->busy || c->req < 0) { close_conn(c, 4); return; } /* an answer nobody asked for */
        if (parse_head(c) < 0) { close_conn(c, 4); return; }
        if (c->ans.status >= 100 && c->ans.status < 200) { c->in_body = 0; c->head_len = 0; continue; }
        if (c->body_left == 0) { finish_answer(c); continue; }
      } else {
        int done;
        off += eat_body(c, buf + off, (size_t)n - off, &done);
        if (done) finish_answer(c);
      }
    }
    if (c->fd < 0) return;
  }
}

static void expire(double now) {
  for (int k = 0; k < max_conns; k++) {
    conn_t *c = &conns[k];
    if (c->fd < 0 || !c->busy || c->req < 0) continue;
    if (now - sched_of(c->req) >= timeout_ms) {
      double s = sched_of(c->req);
      for (int t = 0; t < 2; t++) if (in_window(&tallies[t], s)) { tallies[t].timeouts++; add(&tallies[t].latency, timeout_ms); }
      c->req = -1;
      c->busy = 0;
      outstanding--;
      close_conn(c, 6);
    }
  }
  while (q_head < q_tail && now - sched_of(queue[q_head]) >= timeout_ms) {
    double s = sched_of(queue[q_head++]);
    for (int t = 0; t < 2; t++) if (in_window(&tallies[t], s)) { tallies[t].timeouts++; tallies[t].timeouts_unsent++; add(&tallies[t].latency, timeout_ms); }
    outstanding--;
  }
}

static void print_summary(samples_t *s) {
  qsort(s->v, s->n, sizeof(double), cmp);
  if (s->n == 0) printf("{\"p50\":null,\"p90\":null,\"p99\":null,\"max\":null}");
  else printf("{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f}", pct(s, 50), pct(s, 90), pct(s, 99), s->v[s->n - 1]);
}

static void print_counts(tally_t *t) {
  double window_s = (t->end - t->start) / 1000.0;
  printf("{\"offeredPerS\":%.3f,\"windowS\":%.3f,\"scheduled\":%ld,\"sentPerS\":%.3f,\"answered\":%ld,\"ok\":%ld,\"achievedPerS\":%.3f,",
         rate, window_s, t->scheduled, t->writes / window_s, t->answered, t->ok, t->ok_in_window / window_s);
  printf("\"non2xx\":%ld,\"status503\":%ld,\"status503WithRetryAfter\":%ld,\"errors\":%ld,\"errorCodes\":{", t->non2xx, t->s503, t->s503ra, t->errors);
  int first = 1;
  for (int k = 0; k < NCODES; k++) {
    if (!t->codes[k]) continue;
    printf("%s\"%s\":%ld", first ? "" : ",", code_names[k], t->codes[k]);
    first = 0;
  }
  printf("},\"timeouts\":%ld,\"timeoutsUnsent\":%ld,\"ssr\":%ld,\"lastGood\":%ld,\"shell\":%ld,\"shellNginx\":%ld,\"unknownMode\":%ld,\"noMode\":%ld,",
         t->timeouts, t->timeouts_unsent, t->ssr, t->last_good, t->shell, t->shell_nginx, t->unknown_mode, t->no_mode);
  printf("\"ssrShare\":%.6f,\"ssrPerS\":%.3f,\"lastGoodPerS\":%.3f,\"latencyMs\":",
         t->scheduled ? (double)t->ssr / t->scheduled : 0.0, t->ssr_in_window / window_s, t->last_good_in_window / window_s);
  print_summary(&t->latency);
  printf(",\"sendDelayMs\":");
  print_summary(&t->send_delay);
  printf("}");
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, f) != (size_t)n) { perror("fread"); exit(2); }
  s[n] = 0;
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 10) {
    fprintf(stderr, "usage: loadgen HOST PORT RATE WARMUP_S DURATION_S TIMEOUT_MS MAX_CONNECTIONS PATHS_FILE ROTATION\n");
    return 2;
  }
  const char *host = argv[1];
  int port = atoi(argv[2]);
  rate = atof(argv[3]);
  double warmup_s = atof(argv[4]), duration_s = atof(argv[5]);
  timeout_ms = atof(argv[6]);
  max_conns = atoi(argv[7]);
  rotation = atol(argv[9]);
  if (rate <= 0 || max_conns <= 0 || port <= 0) { fprintf(stderr, "loadgen: bad arguments\n"); return 2; }

  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { rl.rlim_cur = rl.rlim_max; setrlimit(RLIMIT_NOFILE, &rl); }

  /* The paths file is a JSON array of strings without escapes (article paths). */
  char *json = read_file(argv[8]);
  size_t cap = 1024;
  reqs = malloc(cap * sizeof(char *));
  req_len = malloc(cap * sizeof(size_t));
  char hostport[300];
  snprintf(hostport, sizeof(hostport), "%s:%d", host, port);
  for (char *p = strchr(json, '"'); p; ) {
    char *e = strchr(p + 1, '"');
    if (!e) break;
    *e = 0;
    if (npaths == cap) { cap *= 2; reqs = realloc(reqs, cap * sizeof(char *)); req_len = realloc(req_len, cap * sizeof(size_t)); }
    /* A browser's user agent, so a guard that treats crawlers differently sees readers. */
    int n = asprintf(&reqs[npaths], "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36\r\nAccept: text/html\r\n\r\n", p + 1, hostport);
    req_len[npaths++] = (size_t)n;
    p = strchr(e + 1, '"');
  }
  if (npaths == 0) { fprintf(stderr, "loadgen: no paths in %s\n", argv[8]); return 2; }

  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) { fprintf(stderr, "loadgen: HOST must be an IPv4 address\n"); return 2; }

  conns = calloc((size_t)max_conns, sizeof(conn_t));
  for (int k = 0; k < max_conns; k++) conns[k].fd = -1;
  idle_stack = malloc((size_t)max_conns * sizeof(int));
  on_stack = calloc((size_t)max_conns, 1);
  ep = epoll_create1(0);
  struct epoll_event *events = malloc(1024 * sizeof(struct epoll_event));

  long total = (long)(rate * (warmup_s + duration_s) + 0.5);
  if (total < 1) total = 1;
  start_ms = now_ms() + 5;
  double window_start = start_ms + warmup_s * 1000, window_end = window_start + duration_s * 1000;
  tallies[0].start = window_start; tallies[0].end = window_end;
  tallies[1].start = start_ms; tallies[1].end = window_start;
  int phase = 0;
  long issued = 0;
  double last_expire = start_ms;

  for (;;) {
    double now = now_ms();
    long due = now < start_ms ? 0 : (long)((now - start_ms) * rate / 1000.0) + 1;
    if (due > total) due = total;
    for (; issued < due; issued++) {
      double s = sched_of(issued);
      for (int k = 0; k < 2; k++) if (in_window(&tallies[k], s)) tallies[k].scheduled++;
      outstanding++;
      int idle = -1;
      while (idle_top > 0) {
        int k = idle_stack[--idle_top];
        on_stack[k] = 0;
        if (conns[k].fd >= 0 && conns[k].connected && !conns[k].busy) { idle = k; break; }
      }
      if (idle >= 0) send_req(&conns[idle], issued);
      else if (open_count < max_conns) open_conn(issued);
      else { waited++; q_push(issued); }
    }
    if (now - last_expire >= 50) { expire(now); last_expire = now; }
    if (phase == 0 && now >= window_start) { puts("measuring"); fflush(stdout); phase = 1; }
    if (phase == 1 && now >= window_end) { puts("measured"); fflush(stdout); phase = 2; }
    if (issued >= total && phase == 2 && outstanding <= 0) break;

    double next = issued < total ? sched_of(issued) - now_ms() : 10;
    int wait = next <= 0 ? 0 : next < 1 ? 1 : (int)next;
    if (wait > 10) wait = 10;
    int n = epoll_wait(ep, events, 1024, wait);
    for (int e = 0; e < n; e++) {
      conn_t *c = &conns[events[e].data.u32];
      if (c->fd < 0) continue;
      if (!c->connected && (events[e].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        int err = 0;
        socklen_t el = sizeof(err);
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) { close_conn(c, err == ECONNREFUSED ? 0 : 3); continue; }
        c->connected = 1;
        add(&connect_ms, now_ms() - c->opened_at);
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.u32 = (uint32_t)c->idx};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
        if (c->busy && c->req >= 0) send_req(c, c->req);
        continue;
      }
      if (events[e].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) on_readable(c);
    }
  }

  for (int k = 0; k < max_conns; k++) if (conns[k].fd >= 0) close(conns[k].fd);
  printf("{\"counts\":");
  print_counts(&tallies[0]);
  printf(",\"warmup\":");
  print_counts(&tallies[1]);
  printf(",\"pool\":{\"opened\":%ld,\"peakOpen\":%d,\"connectErrors\":%ld,\"waitedForConnection\":%ld,\"connectMs\":", opened, peak_open, connect_errors, waited);
  print_summary(&connect_ms);
  printf("}}\n");
  return 0;
}
