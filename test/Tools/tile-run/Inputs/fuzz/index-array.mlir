// utils/fuzz.py seed 103, iteration 4060 (minimised, in a kernel): MLIR's
// parser dereferences null on a dense array of index; the tools reject it.
// A string or a comment that spells it is not one: "array<index: 0>".
tile.kernel @k(%O: !tile.tensor<[32], f32>) attributes {threads = 32 : i64, note = "array<index: 1>"} {
  %c0 = arith.constant {tile.scatter = array<index: 0, 1>} 0 : index
  tile.return
}
