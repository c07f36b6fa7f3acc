//===- launch.cpp - a C++ program that launches a saved tile kernel -------===//
//
// Deployment without Python or LLVM (docs/python.md, "Deployment"): the
// header examples/aot/save_copy.py saves (copy.h: the PTX, the manifest and
// copy_launch) and libTileRuntime, which loads the CUDA driver at the
// launch. Build and run:
//
//   build/venv/bin/python examples/aot/save_copy.py out
//   g++ -std=c++17 -I out -I include/tile/Runtime examples/aot/launch.cpp
//       build/lib/libTileRuntime.a -ldl -o launch
//   ./launch [K] [driver library]
//
//===----------------------------------------------------------------------===//

#include "copy.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  int64_t k = argc > 1 ? std::atoll(argv[1]) : 1000;
  const char *driver = argc > 2 ? argv[2] : nullptr;
  std::vector<float> x(4 * k), o(4 * k, 0.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.25f * static_cast<float>(i);
  if (int status = copy_launch(x.data(), o.data(), k, driver)) {
    std::fprintf(stderr, "launch: %s\n", tile_last_error());
    return status;
  }
  for (size_t i = 0; i < x.size(); ++i)
    if (o[i] != x[i]) {
      std::fprintf(stderr, "launch: O[%zu] is %g, want %g\n", i, o[i], x[i]);
      return 1;
    }
  std::printf("copy: %zu elements copied by %s\n", o.size(), tile_last_entry());
  return 0;
}
