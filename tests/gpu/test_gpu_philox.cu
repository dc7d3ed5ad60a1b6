/* cuRAND's Philox4_32_10 device API (curand_init + curand/curand4 and the
 * uniform conversions) against the host stream of the CPU backend
 * (src/philox.h), for 10^6 draws per kind over many (seed, subsequence,
 * offset) triples; and the counter addressing the PSO kernels use
 * (curand_Philox4x32_10 on (offset / 4, subsequence)) against curand4. */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <curand_kernel.h>

#include "philox.h"

constexpr int kStreams = 1000, kDraws = 1000;

__global__ void draw(const unsigned long long *seed, const unsigned long long *sub,
                     const unsigned long long *off, unsigned int *words, double *dbl, float *flt,
                     int *addressing_ok)
{
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= kStreams) return;
  curandStatePhilox4_32_10_t st;
  curand_init(seed[s], sub[s], off[s], &st);
  for (int k = 0; k < kDraws; k++) words[(size_t)s * kDraws + k] = curand(&st);
  curand_init(seed[s], sub[s], off[s], &st);
  for (int k = 0; k < kDraws; k++) dbl[(size_t)s * kDraws + k] = curand_uniform_double(&st);
  curand_init(seed[s], sub[s], off[s], &st);
  for (int k = 0; k < kDraws; k++) flt[(size_t)s * kDraws + k] = curand_uniform(&st);
  /* The kernels' addressing: block (offset / 4) of subsequence, offset % 4 == 0. */
  unsigned long long o = off[s] & ~3ull;
  curand_init(seed[s], sub[s], o, &st);
  int ok = 1;
  for (int k = 0; k < 16; k++) {
    uint4 a = curand4(&st);
    unsigned long long blk = o / 4 + (unsigned long long)k;
    uint4 ctr = make_uint4((unsigned)blk, (unsigned)(blk >> 32), (unsigned)sub[s],
                           (unsigned)(sub[s] >> 32));
    uint4 b = curand_Philox4x32_10(ctr, make_uint2((unsigned)seed[s], (unsigned)(seed[s] >> 32)));
    ok &= a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
  }
  addressing_ok[s] = ok;
}

#define CUDA_OK(call)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__,                       \
                  cudaGetErrorString(e_));                                                         \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main()
{
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("no GPU: skipped\n");
    return 77;
  }
  static unsigned long long seed[kStreams], sub[kStreams], off[kStreams];
  unsigned long long x = 0x9E3779B97F4A7C15ull;
  for (int s = 0; s < kStreams; s++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    seed[s] = s % 4 == 0 ? (unsigned long long)s : x;
    sub[s] = ((unsigned long long)(s % 8) << 32) | (unsigned long long)(x % 100000);
    off[s] = (s % 3 == 0) ? (unsigned long long)s * 244 : (x >> 20) % (1ull << 40);
  }
  size_t total = (size_t)kStreams * kDraws;
  unsigned long long *d_seed, *d_sub, *d_off;
  unsigned int *d_words;
  double *d_dbl;
  float *d_flt;
  int *d_ok;
  CUDA_OK(cudaMalloc(&d_seed, sizeof seed));
  CUDA_OK(cudaMalloc(&d_sub, sizeof sub));
  CUDA_OK(cudaMalloc(&d_off, sizeof off));
  CUDA_OK(cudaMalloc(&d_words, total * sizeof(unsigned int)));
  CUDA_OK(cudaMalloc(&d_dbl, total * sizeof(double)));
  CUDA_OK(cudaMalloc(&d_flt, total * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_ok, kStreams * sizeof(int)));
  CUDA_OK(cudaMemcpy(d_seed, seed, sizeof seed, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_sub, sub, sizeof sub, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_off, off, sizeof off, cudaMemcpyHostToDevice));
  draw<<<(kStreams + 127) / 128, 128>>>(d_seed, d_sub, d_off, d_words, d_dbl, d_flt, d_ok);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  unsigned int *words = (unsigned int *)std::malloc(total * sizeof(unsigned int));
  double *dbl = (double *)std::malloc(total * sizeof(double));
  float *flt = (float *)std::malloc(total * sizeof(float));
  int ok[kStreams];
  CUDA_OK(cudaMemcpy(words, d_words, total * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(dbl, d_dbl, total * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(flt, d_flt, total * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(ok, d_ok, sizeof ok, cudaMemcpyDeviceToHost));
  long bad_w = 0, bad_d = 0, bad_f = 0, bad_a = 0;
  for (int s = 0; s < kStreams; s++) {
    bad_a += !ok[s];
    for (int k = 0; k < kDraws; k++) {
      size_t e = (size_t)s * kDraws + k;
      uint32_t w = philox_word(seed[s], sub[s], off[s] + (uint64_t)k);
      if (words[e] != w) {
        if (bad_w++ < 5)
          std::printf("word mismatch: seed %llu sub %llu off %llu +%d: device %08x host %08x\n",
                      seed[s], sub[s], off[s], k, words[e], w);
      }
      bad_d += dbl[e] != philox_uniform_double(w);
      bad_f += flt[e] != philox_uniform_float(w);
    }
  }
  std::printf("%zu draws each: words %ld, doubles %ld, floats %ld mismatches; addressing %ld\n",
              total, bad_w, bad_d, bad_f, bad_a);
  return bad_w || bad_d || bad_f || bad_a ? 1 : 0;
}
