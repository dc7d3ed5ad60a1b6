/* Philox4x32-10 on the host: cuRAND's device-API stream (curand_init(seed,
 * subsequence, offset), then curand()) and its uniform conversions, so the
 * CPU draws what the GPU draws. Counter: offset / 4 in the low 64 bits, the
 * subsequence in the high 64; key: the seed. */
#ifndef IPSO_PHILOX_H
#define IPSO_PHILOX_H

#include <stdint.h>

/* The 4 words of the block with counter CTR under key (k0, k1): Philox's
 * multipliers and Weyl key increments. */
static inline void philox4x32_10(const uint32_t ctr[4], uint32_t k0, uint32_t k1, uint32_t out[4])
{
  uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  for (int round = 0; round < 10; round++) {
    uint64_t p0 = (uint64_t)UINT32_C(0xD2511F53) * c0;
    uint64_t p1 = (uint64_t)UINT32_C(0xCD9E8D57) * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += UINT32_C(0x9E3779B9);
    k1 += UINT32_C(0xBB67AE85);
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/* Block BLOCK of stream (SEED, SUBSEQUENCE): its words 4 BLOCK .. 4 BLOCK + 3. */
static inline void philox_block(uint64_t seed, uint64_t subsequence, uint64_t block,
                                uint32_t out[4])
{
  uint32_t ctr[4] = {(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)subsequence,
                     (uint32_t)(subsequence >> 32)};
  philox4x32_10(ctr, (uint32_t)seed, (uint32_t)(seed >> 32), out);
}

/* Word OFFSET of stream (SEED, SUBSEQUENCE): what curand() returns after
 * curand_init(seed, subsequence, offset). */
static inline uint32_t philox_word(uint64_t seed, uint64_t subsequence, uint64_t offset)
{
  uint32_t b[4];
  philox_block(seed, subsequence, offset / 4, b);
  return b[offset % 4];
}

/* curand_uniform_double() of one word: x 2^-32 + 2^-32, in (0, 1]. */
static inline double philox_uniform_double(uint32_t w)
{
  return (double)w * 0x1p-32 + 0x1p-32;
}

/* curand_uniform() of one word: x 2^-32 + 2^-33 in float, in (0, 1]. */
static inline float philox_uniform_float(uint32_t w)
{
  return (float)w * 0x1p-32f + 0x1p-33f;
}

#endif
