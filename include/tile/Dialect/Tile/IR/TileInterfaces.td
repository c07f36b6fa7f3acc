//===- TileInterfaces.td - tile dialect op interfaces ------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
#define TILE_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_ReductionOpInterface : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    A reduction of a rank-2 tile along one axis: `axis` 1 reduces each row
    (`[R, C] -> [R, 1]`), `axis` 0 each column (`[R, C] -> [1, C]`); `kind`
    says how the elements combine. Everything that places, plans, lowers
    or interprets a reduction asks this interface (and
    `getReductionStrategy`, which decides from it alone how the reduction is
    carried out), never the op's class, so a new reduction is one more op
    that implements it.

    A reduction whose rows span whole warps combines the warps' partials
    through a `scratch` var (`through %p`) that `tile-plan-shared` adds; it
    then reads and writes that var and has no other effect.
  }];
  let methods = [
    InterfaceMethod<"The tile reduced.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getInput">,
    InterfaceMethod<"The reduced tile.",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getResult">,
    InterfaceMethod<"How the elements combine.",
      "::mlir::tile::ReductionKind", "getKind">,
    InterfaceMethod<"The dimension reduced: 1 for rows, 0 for columns.",
      "int64_t", "getAxis">,
    InterfaceMethod<"The scratch var the warps' partials meet in, or null.",
      "::mlir::Value", "getScratch">,
    InterfaceMethod<"Sets (or, with null, removes) the scratch var.",
      "void", "setScratch", (ins "::mlir::Value":$scratch), [{}], [{
        if (scratch)
          $_op.getScratchMutable().assign(scratch);
        else
          $_op.getScratchMutable().clear();
      }]>,
  ];
  let verify = [{ return ::mlir::tile::verifyReduction($_op); }];
}

#endif // TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
