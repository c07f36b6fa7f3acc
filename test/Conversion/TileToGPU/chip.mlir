// RUN: not tile-opt %s --tile-to-gpu=chip=sm_60 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: tile-opt %s --tile-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: tile-opt %s --tile-to-gpu=chip=sm_100 | FileCheck %s --check-prefix=SM100

// OLD: error: unsupported chip 'sm_60': expected sm_70 to sm_100
// SM80: gpu.module @tile_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">]
// SM100: gpu.module @tile_kernels [#nvvm.target<O = 3, chip = "sm_100", features = "+ptx86">]
tile.kernel @k() attributes {threads = 32 : i64, tile.synchronized} {
  tile.return
}
