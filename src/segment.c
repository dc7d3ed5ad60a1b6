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
