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


def Tile_LayoutAttrInterface : AttrInterface<"LayoutAttrInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    Where each element of a tile lives: a tile of `shape` spread over the
    `threads` threads of a CTA is, in each thread, a vector of *slots*, and
    a layout says which element (by its coordinates) each slot of each
    thread holds. A slot may hold no element (a tile whose elements do not
    divide among the threads), and an element may be held by several
    threads (a replicated layout, such as a row result every lane of its
    row has); one of them, its *primary holder*, is the one that writes it
    to memory.

    Everything layout-generic in tile asks only this interface: loads,
    stores, elementwise ops, vars, `tile.convert_layout` (through shuffles
    where a warp suffices, else shared memory), and row reductions (a
    butterfly over the lanes that share a row, found by enumerating the
    layout). A new layout (an mma fragment) implements these methods and
    gets all of that; the answers for a given (shape, threads) must be the
    same every time they are asked.
  }];
  let methods = [
    InterfaceMethod<[{
        Checks that a tile of `type` can be laid out this way over `threads`
        threads; reports what is wrong through `emitError`.
      }], "::llvm::LogicalResult", "verifyLayout",
      (ins "::mlir::RankedTensorType":$type, "int64_t":$threads,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
    InterfaceMethod<"The slots each thread holds of a tile of `shape`.",
      "int64_t", "getSlotCount",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads)>,
    InterfaceMethod<[{
        The coordinates of the element `thread` holds in `slot`, or none for
        a slot that holds no element.
      }], "std::optional<::llvm::SmallVector<int64_t>>", "getSlotElement",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "int64_t":$thread, "int64_t":$slot)>,
    InterfaceMethod<[{
        IR for the coordinates of the element the thread `thread` holds in
        `slot`; where emitSlotValid fails they may lie outside the tile.
      }], "::llvm::SmallVector<::mlir::Value>", "emitSlotElement",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "::mlir::Value":$thread, "int64_t":$slot)>,
    InterfaceMethod<[{
        IR for the row-major index of that element (where emitSlotValid
        fails it may lie outside the tile).
      }], "::mlir::Value", "emitSlotLinearIndex",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "::mlir::Value":$thread, "int64_t":$slot), [{}], [{
        return ::mlir::tile::linearizeCoordinates(
            builder, loc,
            $_attr.emitSlotElement(builder, loc, shape, threads, thread, slot),
            shape);
      }]>,
    InterfaceMethod<[{
        IR for whether `slot` of the thread `thread` holds an element; null
        when every thread's does.
      }], "::mlir::Value", "emitSlotValid",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "::mlir::Value":$thread, "int64_t":$slot)>,
    InterfaceMethod<[{
        Whether some element is held by more than one thread.
      }], "bool", "isReplicated", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{
        Whether `thread` is the primary holder of the element of its `slot`:
        the one that writes it.
      }], "bool", "isPrimaryHolder",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "int64_t":$thread, "int64_t":$slot), [{}], [{
        return $_attr.getSlotElement(shape, threads, thread, slot)
            .has_value();
      }]>,
    InterfaceMethod<[{
        IR for isPrimaryHolder; null when every thread's slot is.
      }], "::mlir::Value", "emitPrimaryHolder",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "::mlir::Value":$thread, "int64_t":$slot), [{}], [{
        return $_attr.emitSlotValid(builder, loc, shape, threads, thread, slot);
      }]>,
    InterfaceMethod<[{
        The primary holder of the element at `coords`: its thread and slot.
      }], "std::pair<int64_t, int64_t>", "getElementHolder",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "::llvm::ArrayRef<int64_t>":$coords)>,
    InterfaceMethod<[{
        IR for the thread of the primary holder of the element at `coords`.
      }], "::mlir::Value", "emitElementHolderThread",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads,
           "::mlir::ValueRange":$coords)>,
    InterfaceMethod<[{
        How many consecutive slots, starting at multiples of it, hold
        consecutive elements of a row in every thread: the widest vector
        access the layout allows.
      }], "int64_t", "getRunLength",
      (ins "::llvm::ArrayRef<int64_t>":$shape, "int64_t":$threads), [{}],
      [{ return 1; }]>,
  ];
}

#endif // TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
