// A gpu-dialect kernel of 512 threads, for threads.test.
module attributes {gpu.container_module} {
  gpu.module @m [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">] {
    gpu.func @wide(%p: !llvm.ptr<1>) kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
      gpu.return
    }
  }
}
