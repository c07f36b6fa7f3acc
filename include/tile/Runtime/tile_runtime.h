/*===- tile_runtime.h - C API of the tile runtime -------------------*- C -*-===
 *
 * Launch a compiled tile kernel (PTX + manifest, docs/abi.md) from C, or
 * from Python through ctypes. Buffers are matched to parameters by name;
 * their shapes follow from the manifest and the symbol values. Every call
 * returns a status; on failure, tile_last_error() says why.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TILE_RUNTIME_TILE_RUNTIME_H
#define TILE_RUNTIME_TILE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The statuses, equal to tile-launch's exit codes. */
enum tile_status {
  TILE_OK = 0,
  TILE_MISMATCH = 1,
  TILE_BAD_INPUT = 2,
  TILE_NO_DEVICE = 3, /* also: a driver call failed */
};

/* A host buffer for the parameter `name`: dense, row-major, little-endian. */
typedef struct tile_buffer {
  const char *name;
  void *data;
  size_t bytes;
} tile_buffer;

typedef struct tile_launch_result {
  double median_ms;
  int registers, local_bytes, shared_bytes, max_threads_per_block;
  int blocks_per_sm;
  double occupancy_percent;
} tile_launch_result;

/* The message of this thread's last failed call ("" when none). */
const char *tile_last_error(void);

/* The PTX entry of the variant this thread's last successful tile_launch
 * ran ("" when none): the most specialized of the manifest's `variants`
 * whose conditions the launch's sizes meet (docs/abi.md). */
const char *tile_last_entry(void);

/* TILE_OK when device 0 answers. driver_library: NULL or "" for the
 * default (TILE_CUDA_DRIVER_LIBRARY, else libcuda.so.1). */
int tile_cuda_probe(const char *driver_library);

/* Launches the kernel of `manifest_json` in `ptx` on `buffers` (one per
 * parameter, any order) with the symbols `symbol_names[i] =
 * symbol_values[i]`, then copies written parameters back into their
 * buffers. `timed_runs` > 0 also times it (median, after `warmup_runs`).
 * It runs the manifest's most specialized variant whose conditions the
 * symbol values meet (tile_last_entry says which).
 * `result` may be NULL. */
int tile_launch(const char *ptx, size_t ptx_bytes, const char *manifest_json,
                size_t manifest_bytes, const tile_buffer *buffers,
                size_t num_buffers, const char *const *symbol_names,
                const int64_t *symbol_values, size_t num_symbols,
                int warmup_runs, int timed_runs, const char *driver_library,
                tile_launch_result *result);

#ifdef __cplusplus
}
#endif

#endif /* TILE_RUNTIME_TILE_RUNTIME_H */
