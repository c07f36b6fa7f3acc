// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-ptx-thread-limit))' | FileCheck %s
// In the tile-to-ptx pipeline, after convert-gpu-to-nvvm: squares at 256
// threads has no .maxntid, at 512 it keeps it.
// RUN: tile-translate --tile-to-ptx %tile_src/examples/squares.tile | FileCheck %s --check-prefix=PTX256 --implicit-check-not=.maxntid
// PTX256: .entry squares(
// RUN: sed 's/@launch(256/@launch(512/' %tile_src/examples/squares.tile | tile-translate --tile-to-ptx - | FileCheck %s --check-prefix=PTX512
// PTX512: .entry squares(
// PTX512: .maxntid 512, 1, 1

// Up to 256 threads .maxntid limits no register (255 a thread fit), and
// ptxas reads it as a target of CTAs an SM: it goes. Above, it is the
// register limit, and stays.
// CHECK: llvm.func @threads256() attributes {nvvm.kernel} {
// CHECK: llvm.func @threads128x2() attributes {nvvm.kernel} {
// CHECK: llvm.func @threads512() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 512, 1, 1>} {
// CHECK: llvm.func @no_limit() attributes {nvvm.kernel} {
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @threads256() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>} {
      llvm.return
    }
    llvm.func @threads128x2() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 2, 1>} {
      llvm.return
    }
    llvm.func @threads512() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 512, 1, 1>} {
      llvm.return
    }
    llvm.func @no_limit() attributes {nvvm.kernel} {
      llvm.return
    }
  }
}
