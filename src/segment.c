/* Cutting a run into segments. */
#include "segment.h"

/* The next multiple of K after T. */
static int64_t next_multiple(int64_t t, int64_t k)
{
  return (t / k + 1) * k;
}

int64_t segment_length(double updates, int64_t particles, int dims)
{
  double k = updates / ((double)particles * (double)dims);
  return k < 1 ? 1 : (k > SEGMENT_MAX_ITERATIONS ? SEGMENT_MAX_ITERATIONS : (int64_t)k);
}

int64_t segment_end(const struct segment_plan *p, int64_t t)
{
  int64_t end = p->max_iterations;
  if (p->length > 0 && next_multiple(t, p->length) < end) end = next_multiple(t, p->length);
  for (int i = 0; i < 3; i++)
    if (p->every[i] > 0 && next_multiple(t, p->every[i]) < end) end = next_multiple(t, p->every[i]);
  if (p->single && t + 1 < end) end = t + 1;
  return end;
}

double segment_slice_budget(double watchdog, double checkpoint_seconds)
{
  double b = 1.0;
  if (watchdog > 0 && watchdog / 4 < b) b = watchdog / 4;
  if (checkpoint_seconds > 0 && checkpoint_seconds / 4 < b) b = checkpoint_seconds / 4;
  return b;
}

int64_t segment_next_slice(int64_t n, double seconds, double budget)
{
  /* Beyond 4-fold only while the slice is predicted to take at most a
   * sixteenth of the budget: a slice that runs 16 times slower than its
   * first iterations still ends within the budget. */
  double growth = seconds > 0 ? budget / 16 / seconds : 4.0;
  if (growth < 4.0) growth = 4.0;
  double fit = seconds > 0 ? budget / seconds * (double)n : growth * (double)n;
  if (fit > growth * (double)n) fit = growth * (double)n;
  if (fit > (double)SEGMENT_MAX_ITERATIONS) fit = SEGMENT_MAX_ITERATIONS;
  return fit < 1 ? 1 : (int64_t)fit;
}
