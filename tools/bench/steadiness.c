/*
 * How steady the host is: the same fixed work, in chunks, timed in this thread's CPU time.
 * Two kinds alternate: arithmetic that stays in registers, and memory-bound work (random
 * updates over 8 MB, beyond a core's own caches), which whatever else shares the host's cache
 * and memory slows down. On a steady machine every chunk of a kind costs the same CPU
 * time; their spread is how much CPU per request can move with no change in the server.
 *
 *   steadiness SECONDS   prints {"arithmetic":[ms,...],"memory":[ms,...]} on stdout
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

#define WORDS (1u << 20) /* 8 MB of uint64_t */
static uint64_t words[WORDS];

int main(int argc, char **argv) {
  double total = argc > 1 ? atof(argv[1]) : 0;
  if (total <= 0 || total > 600) {
    fprintf(stderr, "usage: steadiness SECONDS (0 < SECONDS <= 600)\n");
    return 2;
  }
  /* Room for a pair of chunks every 0.5 ms: far more than any machine runs, so time ends the loop. */
  size_t cap = (size_t)(total * 2000) + 16, n = 0;
  double *arithmetic = malloc(cap * sizeof(double)), *memory = malloc(cap * sizeof(double));
  if (!arithmetic || !memory) return 1;
  volatile uint64_t x = 1;
  for (size_t i = 0; i < WORDS; i++) words[i] = i; /* touch every page before timing */
  double start = seconds(CLOCK_MONOTONIC);
  while (n < cap && seconds(CLOCK_MONOTONIC) - start < total) {
    double t0 = seconds(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < 5000000; i++) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    double t1 = seconds(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < 1000000; i++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      words[(x >> 20) & (WORDS - 1)] += x;
    }
    double t2 = seconds(CLOCK_THREAD_CPUTIME_ID);
    arithmetic[n] = (t1 - t0) * 1000;
    memory[n] = (t2 - t1) * 1000;
    n++;
  }
  printf("{\"arithmetic\":[");
  for (size_t i = 0; i < n; i++) printf("%s%.3f", i ? "," : "", arithmetic[i]);
  printf("],\"memory\":[");
  for (size_t i = 0; i < n; i++) printf("%s%.3f", i ? "," : "", memory[i]);
  printf("]}\n");
  return 0;
}
