/* The swarms' state captured on the device for a background checkpoint:
 * gpu_capture() copies it, dense, into a second device buffer in the
 * stream's order and returns; the checkpoint's I/O threads read it in pieces
 * through pinned buffers of their own (gpu_read_captured_piece), so the
 * run's thread never waits for a copy to the host. A held state (gpu_hold,
 * the last checkpoint) is read the same way from the swarms' own arrays. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu_swarm.h"

/* Offset and bytes of each of the six arrays (gpu_state_array; the frames
 * none where there are none) in a capture, dense, for all K islands; the
 * capture's size. */
static size_t capture_layout(const struct gpu_swarm *g, size_t off[6], size_t bytes[6])
{
  size_t n = (size_t)g->N * (size_t)g->count, D = (size_t)g->D;
  for (int a = 0; a < 6; a++) {
    bytes[a] = (a < 3 ? n * D : a < 5 ? n : g->s.frame ? (size_t)g->count * D * D : 0) * g->es;
    off[a] = a == 0 ? 0 : off[a - 1] + bytes[a - 1];
  }
  return off[5] + bytes[5];
}

/* The capture's event, on first use. */
static int capture_events(struct gpu_capture *c)
{
  if (!c->taken) IPSO_CHECK_CUDA(cudaEventCreateWithFlags(&c->taken, cudaEventDisableTiming));
  return IPSO_OK;
}

/* Marks the swarms themselves as the capture, once the stream gets there. */
int gpu_hold(struct backend *b)
{
  struct gpu_swarm *g = b->impl;
  struct gpu_capture *c = &g->capture;
  IPSO_TRY(capture_events(c));
  IPSO_CHECK_CUDA(cudaEventRecord(c->taken, g->stream));
  c->held = 1;
  return IPSO_OK;
}

/* Enqueues the dense device copy of the state and the event after it, in
 * a buffer made on first use; *CAPTURED 0 when the device has no memory for
 * it (the caller then copies synchronously). */
int gpu_capture(struct backend *b, int *captured)
{
  struct gpu_swarm *g = b->impl;
  struct gpu_capture *c = &g->capture;
  size_t off[6], bytes[6], n = (size_t)g->N * (size_t)g->count;
  size_t size = capture_layout(g, off, bytes);
  *captured = 0;
  if (g->capture_failed) return IPSO_OK;
  if (!c->d) {
    cudaError_t e = cudaMalloc(&c->d, size);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      c->d = NULL;
      g->capture_failed = 1;
      return IPSO_OK;
    }
    IPSO_CHECK_CUDA(e);
  }
  IPSO_TRY(capture_events(c));
  *captured = 1;
  c->held = 0;
  size_t w = (size_t)g->D * g->es, pitch = (size_t)g->plan.map.pitch * g->es;
  char *d = c->d;
  for (int a = 0; a < 3; a++)
    IPSO_CHECK_CUDA(cudaMemcpy2DAsync(d + off[a], w, gpu_state_array(g, a), pitch, w, n,
                                      cudaMemcpyDeviceToDevice, g->stream));
  for (int a = 3; a < 6; a++)
    if (bytes[a])
      IPSO_CHECK_CUDA(cudaMemcpyAsync(d + off[a], gpu_state_array(g, a), bytes[a],
                                      cudaMemcpyDeviceToDevice, g->stream));
  IPSO_CHECK_CUDA(cudaEventRecord(c->taken, g->stream));
  return IPSO_OK;
}

/* Enqueues on STREAM the copy of elements FIRST .. FIRST + N - 1 of array
 * ARRAY (0-2 rows, 3-4 costs, 5 frames; dense order) to TO, in the device's type: from
 * C's buffer, or, held, from the swarms' pitched rows (any start and end). */
static int copy_elements(const struct gpu_swarm *g, const struct gpu_capture *c,
                         cudaStream_t stream, int array, size_t first, size_t n, void *to)
{
  const size_t es = g->es;
  char *dst = to;
  const char *base = gpu_state_array(g, array);
  if (!c->held || array >= 3) {
    size_t off[6], bytes[6];
    capture_layout(g, off, bytes);
    const char *src = c->held ? base + first * es : (const char *)c->d + off[array] + first * es;
    IPSO_CHECK_CUDA(cudaMemcpyAsync(dst, src, n * es, cudaMemcpyDeviceToHost, stream));
    return IPSO_OK;
  }
  const size_t D = (size_t)g->D, pitch = (size_t)g->plan.map.pitch * es;
  size_t row = first / D, col = first % D;
  if (col) { /* the rest of the row the piece starts in */
    size_t k = D - col < n ? D - col : n;
    IPSO_CHECK_CUDA(cudaMemcpyAsync(dst, base + row * pitch + col * es, k * es,
                                    cudaMemcpyDeviceToHost, stream));
    dst += k * es;
    n -= k;
    row++;
  }
  if (n >= D) { /* whole rows */
    size_t rows = n / D;
    IPSO_CHECK_CUDA(cudaMemcpy2DAsync(dst, D * es, base + row * pitch, pitch, D * es, rows,
                                      cudaMemcpyDeviceToHost, stream));
    dst += rows * D * es;
    n -= rows * D;
    row += rows;
  }
  if (n) /* the start of the row it ends in */
    IPSO_CHECK_CUDA(
        cudaMemcpyAsync(dst, base + row * pitch, n * es, cudaMemcpyDeviceToHost, stream));
  return IPSO_OK;
}

/* One piece of the capture for thread READER, in its pinned buffer. */
int gpu_read_captured_piece(struct backend *b, int reader, int array, int64_t first, int64_t n,
                            const double **data)
{
  struct gpu_swarm *g = b->impl;
  struct gpu_capture *c = &g->capture;
  size_t off[6], bytes[6];
  capture_layout(g, off, bytes);
  if (reader < 0 || reader >= STATE_PIECE_READERS || array < 0 || array >= 6 || first < 0 ||
      n < 0 || n > STATE_PIECE_ELEMENTS || (size_t)(first + n) * g->es > bytes[array] ||
      (!c->d && !c->held))
    return IPSO_FAIL("gpu", "reading elements %lld..%lld of captured array %d: out of range",
                     (long long)first, (long long)(first + n), array);
  struct gpu_capture_reader *r = &c->reader[reader];
  /* The runtime's current device is per thread. */
  IPSO_CHECK_CUDA(cudaSetDevice(g->device));
  if (!r->out)
    IPSO_CHECK_CUDA(
        cudaMallocHost((void **)&r->out, (size_t)STATE_PIECE_ELEMENTS * sizeof(double)));
  if (g->fl && !r->raw)
    IPSO_CHECK_CUDA(cudaMallocHost(&r->raw, (size_t)STATE_PIECE_ELEMENTS * g->es));
  if (!r->stream) IPSO_CHECK_CUDA(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking));
  IPSO_CHECK_CUDA(cudaStreamWaitEvent(r->stream, c->taken, 0));
  IPSO_TRY(copy_elements(g, c, r->stream, array, (size_t)first, (size_t)n,
                         g->fl ? r->raw : (void *)r->out));
  IPSO_CHECK_CUDA(cudaStreamSynchronize(r->stream));
  if (g->fl) gpu_rows_from_real(r->out, r->raw, 1, (size_t)n, 1, 1);
  *data = r->out;
  return IPSO_OK;
}

/* Frees the capture's buffer, event and readers' streams and buffers. */
void gpu_capture_free(struct gpu_swarm *g)
{
  struct gpu_capture *c = &g->capture;
  for (int j = 0; j < STATE_PIECE_READERS; j++) {
    struct gpu_capture_reader *r = &c->reader[j];
    if (r->stream) cudaStreamDestroy(r->stream);
    if (r->out) cudaFreeHost(r->out);
    if (r->raw) cudaFreeHost(r->raw);
  }
  if (c->d) cudaFree(c->d);
  if (c->taken) cudaEventDestroy(c->taken);
  memset(c, 0, sizeof *c);
}
