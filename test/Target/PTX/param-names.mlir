// RUN: tile-translate --tile-to-manifest %s | FileCheck %s
// A parameter's name comes from its tile.name, else its NameLoc when that
// is an identifier, else its position: a location such as loc("a b") does
// not become a name the manifest cannot carry (the verifier rejects such a
// tile.name; test/Dialect/Tile/errors.mlir).
// CHECK: "name": "arg0"
// CHECK: "name": "B"
tile.kernel @k(%A: !tile.tensor<[16], f32> loc("a b"), %B: !tile.tensor<[16], f32> loc("B")) attributes {threads = 32 : i64} {
  tile.return
}
