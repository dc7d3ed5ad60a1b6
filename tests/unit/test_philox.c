/* The host Philox4x32-10 stream of the CPU backend: the published
 * Philox4x32-10 known-answer vectors (Random123), and every value of
 * cuRAND's device API recorded on a GPU (tests/data/curand_philox4_32_10.txt:
 * curand4, curand_uniform_double, curand_uniform; its curand_uniform2_double
 * lines are skipped: the host stream has no such conversion). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "philox.h"

static int failures = 0;

static void kat(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1,
                uint32_t e0, uint32_t e1, uint32_t e2, uint32_t e3)
{
  uint32_t ctr[4] = {c0, c1, c2, c3}, out[4];
  philox4x32_10(ctr, k0, k1, out);
  if (out[0] != e0 || out[1] != e1 || out[2] != e2 || out[3] != e3) {
    printf("FAIL known answer for counter %08x %08x %08x %08x key %08x %08x: got %08x %08x %08x "
           "%08x\n",
           c0, c1, c2, c3, k0, k1, out[0], out[1], out[2], out[3]);
    failures++;
  }
}

int main(void)
{
  kat(0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8);
  kat(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
      0x41c83b0e, 0xa20bc7c6, 0x6d5451fd);
  kat(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
      0x94fdcceb, 0x5001e420, 0x24126ea1);

  const char *dir = getenv("IPSO_TEST_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/data/curand_philox4_32_10.txt", dir ? dir : "tests");
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("FAIL cannot open %s\n", path);
    return 1;
  }
  char line[4096];
  long values = 0, triples = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char kind[32];
    unsigned long long seed, sub, off;
    int pos;
    if (sscanf(line, "%31s %llu %llu %llu%n", kind, &seed, &sub, &off, &pos) != 4) continue;
    char *p = line + pos;
    int bad = 0;
    if (strcmp(kind, "curand4") == 0) {
      triples++;
      for (int i = 0; i < 16; i++, values++)
        bad |= (uint32_t)strtoul(p, &p, 16) != philox_word(seed, sub, off + (uint64_t)i);
    } else if (strcmp(kind, "uniform_double") == 0) {
      for (int i = 0; i < 6; i++, values++)
        bad |= strtod(p, &p) != philox_uniform_double(philox_word(seed, sub, off + (uint64_t)i));
    } else if (strcmp(kind, "uniform") == 0) {
      for (int i = 0; i < 6; i++, values++)
        bad |= strtof(p, &p) != philox_uniform_float(philox_word(seed, sub, off + (uint64_t)i));
    }
    if (bad) {
      printf("FAIL %s seed %llu subsequence %llu offset %llu\n", kind, seed, sub, off);
      failures++;
    }
  }
  fclose(f);
  printf("%ld recorded values of %ld (seed, subsequence, offset) triples checked\n", values,
         triples);
  if (triples < 90) {
    printf("FAIL expected the 96 recorded triples\n");
    failures++;
  }
  printf("%s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}
