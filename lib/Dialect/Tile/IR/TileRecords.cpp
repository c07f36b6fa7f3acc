//===- TileRecords.cpp - verifiers of the records passes leave ------------===//
//
// #tile.promoted_var, #tile.pipelined_loop and #tile.staged_load: what
// tile-promote-registers and tile-pipeline-loads record on a kernel for the
// manifest and the reports. Each field is checked against the others, so
// that a planned module read back holds records the passes could have left.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

/// Fails with `message` unless every one of `counts` is non-negative.
static LogicalResult
verifyCounts(function_ref<InFlightDiagnostic()> emitError,
             ArrayRef<std::pair<StringRef, int64_t>> counts) {
  for (auto [name, count] : counts)
    if (count < 0)
      return emitError() << name << " must not be negative, got " << count;
  return success();
}

LogicalResult
PromotedVarAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        StringAttr name, RankedTensorType type, int64_t threads,
                        int64_t slots, int64_t shuffles, int64_t spills) {
  if (name.getValue().empty())
    return emitError() << "a promoted var has a name";
  if (threads <= 0)
    return emitError() << "threads must be positive, got " << threads;
  if (!type.hasStaticShape())
    return emitError() << "a promoted var's type has a static shape";
  int64_t expected = llvm::divideCeil(type.getNumElements(), threads);
  if (slots != expected)
    return emitError() << "slots must be the elements per thread of " << type
                       << " over " << threads << " threads (" << expected
                       << "), got " << slots;
  return verifyCounts(emitError, {{"shuffles", shuffles}, {"spills", spills}});
}

LogicalResult
StagedLoadAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringAttr name, LocationAttr loc, StringAttr in,
                       int64_t bytes, int64_t chunkBytes, StringAttr why) {
  if (name.getValue().empty())
    return emitError() << "a staged load has a name";
  bool shared = in.getValue() == "shared";
  if (!shared && in.getValue() != "registers")
    return emitError() << "a load is staged in \"shared\" or \"registers\", "
                          "got \""
                       << in.getValue() << "\"";
  if (bytes <= 0)
    return emitError() << "bytes must be positive, got " << bytes;
  if (shared ? !llvm::is_contained({4, 8, 16}, chunkBytes) : chunkBytes != 0)
    return emitError() << "chunkBytes must be "
                       << (shared ? "4, 8 or 16 (an async copy)"
                                  : "0 in registers")
                       << ", got " << chunkBytes;
  return success();
}

LogicalResult PipelinedLoopAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringAttr loop,
    LocationAttr loc, int64_t loads, int64_t stages, StringAttr stagesChosen,
    int64_t ahead, int64_t sharedLoads, int64_t sharedBytes,
    int64_t elementsPerThread, ArrayAttr staged) {
  if (stages < 2 || stages > 8)
    return emitError() << "stages must be 2 to 8, got " << stages;
  if (ahead != stages - 1)
    return emitError() << "ahead must be stages - 1 (" << stages - 1
                       << "), got " << ahead;
  if (stagesChosen.getValue() != "given" && stagesChosen.getValue() != "auto")
    return emitError() << "stagesChosen must be \"given\" or \"auto\", got \""
                       << stagesChosen.getValue() << "\"";
  if (failed(
          verifyCounts(emitError, {{"sharedBytes", sharedBytes},
                                   {"elementsPerThread", elementsPerThread}})))
    return failure();
  if (loads <= 0 || static_cast<int64_t>(staged.size()) != loads)
    return emitError() << "a pipelined loop has a record per load: loads is "
                       << loads << ", staged has " << staged.size();
  int64_t inShared = 0;
  for (Attribute record : staged) {
    auto load = dyn_cast<StagedLoadAttr>(record);
    if (!load)
      return emitError() << "staged holds #tile.staged_load records, got "
                         << record;
    inShared += load.getIn().getValue() == "shared";
  }
  if (sharedLoads != inShared)
    return emitError() << "sharedLoads must count the loads staged in shared "
                          "memory ("
                       << inShared << "), got " << sharedLoads;
  return success();
}
