//===- ExecMemory.cpp - slices, copies, atomics and vars ------------------===//
//
// Tensor slices (loads, stores, gathers, scatters, atomics) with their
// bounds, copies, and the state of vars and ring stages: what each thread
// wrote, so that a read of what nothing wrote is a fault.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::reference;

/// Loads (`stored` null) or stores the slice of `tensor` at `offsets` with
/// the tile's shape; elements outside the tensor read 0 and are dropped on
/// store. Each element uses its thread's offsets.
LogicalResult Interpreter::executeSlice(
    Operation &op, Value tensorValue, ValueRange offsetValues,
    RankedTensorType tileType, const Val *stored, const Val *other,
    const Val *mask, int64_t width, Val *loadedOut, ValueRange indices,
    ArrayRef<int64_t> indexDims, std::optional<AtomicKind> atomic) {
  rt::HostTensor *tensor = getTensor(op, tensorValue);
  if (!tensor)
    return failure();
  SmallVector<const Val *> offsets;
  bool offsetsThresholded = false;
  for (Value offset : offsetValues) {
    offsets.push_back(&get(offset));
    offsetsThresholded |= offsets.back()->thresholded;
    if (failed(requireDefined(&op, *offsets.back(),
                              "an offset of '" + op.getName().getStringRef() +
                                  "'")))
      return failure();
  }
  // The index tile of each dimension, or null.
  SmallVector<const Val *> indexOf(offsets.size(), nullptr);
  for (auto [index, dim] : llvm::zip(indices, indexDims)) {
    indexOf[dim] = &get(index);
    offsetsThresholded |= indexOf[dim]->thresholded;
  }
  // A scatter's targets, to catch two elements reaching one: the element
  // of the tile that first wrote each.
  DenseMap<int64_t, int64_t> scattered;
  std::vector<rt::ElementMark> *marks = nullptr;
  if (stored && !report.marks.empty())
    marks = &report.marks[paramIndex.lookup(tensorValue)];
  rt::ElementMark mark;
  // An element stored under a mask of an inexact comparison is thresholded
  // like one under such control flow.
  Accuracy storedAccuracy = stored ? stored->accuracy : Accuracy::Exact;
  bool storedThresholded =
      stored && (stored->thresholded || offsetsThresholded ||
                 controlThresholded || (mask && mask->thresholded));
  if (stored)
    mark = rt::ElementMark::written(storedAccuracy, storedThresholded);
  Val loaded = Val::zeros(tileType);
  loaded.thresholded = offsetsThresholded;
  if (other) {
    // Per thread when `other` is: each element takes its thread's value.
    for (size_t e = 0; e < loaded.size(); ++e)
      loaded.copyElement(e, *other, other->indexFor(e, true, threads));
    loaded.accuracy = other->accuracy;
    loaded.thresholded |= other->thresholded;
  }
  ArrayRef<int64_t> tileShape = tileType.getShape();
  int64_t rank = tileShape.size();
  for (int64_t e = 0; e < tileType.getNumElements(); ++e) {
    if (stored && !isActive((e / width) % threads))
      continue;
    // Row-major position of element e in the tile, then in the tensor.
    SmallVector<int64_t> coords(rank);
    for (int64_t dim = rank - 1, remaining = e; dim >= 0; --dim) {
      coords[dim] = remaining % tileShape[dim];
      remaining /= tileShape[dim];
    }
    int64_t linear = 0;
    bool inside = true;
    for (int64_t dim = rank - 1, stride = 1; dim >= 0; --dim) {
      const Val &offset = *offsets[dim];
      int64_t local = coords[dim];
      if (const Val *index = indexOf[dim]) {
        // Its element at e's position, size-1 dimensions broadcast.
        int64_t at = 0;
        for (int64_t d = 0; d < rank; ++d)
          at = at * index->shape[d] + (index->shape[d] == 1 ? 0 : coords[d]);
        local = index->ints[at];
        if (index->isUndefined(at))
          return undefinedUse(
              &op, *index,
              "index " +
                  rt::formatIndex({index->shape.begin(), index->shape.end()},
                                  at) +
                  " of '" + op.getName().getStringRef() + "'");
      }
      int64_t position;
      if (__builtin_add_overflow(offset.ints[offset.indexFor(e, true, threads)],
                                 local, &position) ||
          position < 0 || position >= tensor->shape[dim])
        inside = false;
      else
        linear += position * stride;
      stride *= tensor->shape[dim];
    }
    if (mask && mask->isUndefined(e))
      return undefinedUse(&op, *mask,
                          "mask element " +
                              rt::formatIndex(tileShape.vec(), e) + " of '" +
                              op.getName().getStringRef() + "'");
    if (!inside || (mask && mask->ints[e] == 0))
      continue;
    if (stored && !indices.empty() && !atomic) {
      auto [first, isNew] = scattered.try_emplace(linear, e);
      if (!isNew)
        return fault(&op) << "scatter writes element "
                          << rt::formatIndex(tensor->shape, linear) << " of '"
                          << kernel.getParamName(paramIndex.lookup(tensorValue))
                          << "' from elements "
                          << rt::formatIndex(tileShape.vec(), first->second)
                          << " and " << rt::formatIndex(tileShape.vec(), e)
                          << " of the tile: which one lands is undefined";
    }
    if (stored && stored->isUndefined(e))
      return undefinedUse(
          &op, *stored,
          "the value written to element " +
              rt::formatIndex(tensor->shape, linear) + " of '" +
              kernel.getParamName(paramIndex.lookup(tensorValue)) + "'");
    if (stored) {
      double value = stored->isFloat ? stored->floats[e]
                                     : static_cast<double>(stored->ints[e]);
      double current = tensor->get(linear);
      if (atomic) {
        // One read-modify-write, rounded (or wrapped) to the tensor's type.
        if (*atomic == AtomicKind::add)
          value += current;
        else if (stored->isFloat)
          value = *atomic == AtomicKind::max ? std::fmax(current, value)
                                             : std::fmin(current, value);
        else
          value = *atomic == AtomicKind::max ? std::max(current, value)
                                             : std::min(current, value);
      }
      tensor->set(linear, value);
      if (!marks)
        continue;
      unsigned param = paramIndex.lookup(tensorValue);
      if (atomic && stored->isFloat) {
        (*marks)[linear] = markAtomicUpdate(
            {param, linear}, *atomic, *stored, e, storedThresholded,
            (*marks)[linear], current, tensor->get(linear));
        continue;
      }
      atomicUpdates.erase(std::make_pair(param, linear)); // starts over
      if (stored->isFloat &&
          isUncheckedError(errorBound(*stored, e, storedAccuracy)))
        (*marks)[linear] = rt::ElementMark::unchecked();
      else
        (*marks)[linear] =
            storedAccuracy == Accuracy::Exact
                ? mark
                : rt::ElementMark::written(
                      storedAccuracy, storedThresholded,
                      amplificationOf(errorBound(*stored, e, storedAccuracy),
                                      stored->floats[e], storedAccuracy));
    } else if (loaded.isFloat) {
      loaded.floats[e] = tensor->get(linear);
      loaded.setUndefined(e, false, nullptr);
      if (!loaded.errors.empty())
        loaded.setError(e, 0);
    } else {
      loaded.setInt(e, static_cast<int64_t>(tensor->get(linear)));
      loaded.setUndefined(e, false, nullptr);
    }
  }
  if (loadedOut)
    *loadedOut = std::move(loaded);
  else if (!stored)
    set(op.getResult(0), std::move(loaded));
  return success();
}

rt::ElementMark
Interpreter::markAtomicUpdate(std::pair<unsigned, int64_t> element,
                              AtomicKind kind, const Val &stored, size_t e,
                              bool thresholded, rt::ElementMark previous,
                              double before, double after) {
  auto [updates, first] = atomicUpdates.try_emplace(element);
  AtomicUpdates &state = updates->second;
  if (first && previous.isWritten()) {
    // What was there: its own bound, as absolute error.
    state.unchecked = previous.isUnchecked();
    state.thresholded = previous.isThresholded();
    state.accuracy = previous.getAccuracy();
    if (!state.unchecked && state.accuracy != Accuracy::Exact)
      state.error = previous.isUnbounded()
                        ? INFINITY
                        : std::ldexp(rt::relativeTolerance(state.accuracy),
                                     previous.getAmplification()) *
                              std::fabs(before);
  }
  if (first)
    state.magnitude = std::fabs(before);
  ++state.updates;
  state.thresholded |= thresholded;
  state.accuracy = rt::loosest(state.accuracy, stored.accuracy);
  double termError = errorBound(stored, e, stored.accuracy) *
                     rt::relativeTolerance(stored.accuracy);
  state.unchecked |= isUncheckedError(termError);
  double term = stored.floats[e];
  if (kind == AtomicKind::add) {
    state.magnitude += std::fabs(term);
    state.error += termError;
  } else {
    // A maximum or minimum is as far off as the farthest of its terms.
    state.error = std::max(state.error, termError);
  }
  if (state.unchecked)
    return rt::ElementMark::unchecked();
  // One update rounds once, as the reference does; more round in the
  // order they come, which may be any: one tolerance of their magnitudes,
  // as a sum's. Past the type's range that order decides which overflow.
  Accuracy accuracy = state.accuracy;
  double error = state.error;
  if (kind == AtomicKind::add && state.updates > 1) {
    if (mayOverflow(state.magnitude, stored.elementType))
      return rt::ElementMark::unchecked();
    accuracy = rt::loosest(accuracy, accuracyOfType(stored.elementType));
    error += rt::relativeTolerance(accuracy) * state.magnitude;
  }
  if (accuracy == Accuracy::Exact)
    return rt::ElementMark::written(Accuracy::Exact, state.thresholded);
  double units = error / rt::relativeTolerance(accuracy);
  if (kind == AtomicKind::add && state.updates > 1)
    units = std::max(units, ownError(after, accuracy, true));
  return rt::ElementMark::written(accuracy, state.thresholded,
                                  amplificationOf(units, after, accuracy));
}

VarState *Interpreter::stateOf(Operation &op, Value handle, bool create) {
  if (auto stage = handle.getDefiningOp<StageOp>()) {
    auto ring = rings.find(stage.getRing());
    auto index = stageIndex.find(handle);
    if (ring != rings.end() && index != stageIndex.end())
      return &ring->second[index->second];
  } else if (auto found = vars.find(handle); found != vars.end()) {
    return &found->second;
  } else if (create && handle.getDefiningOp<VarOp>()) {
    return &vars[handle];
  }
  op.emitError("the interp backend accesses only vars made by tile.var and "
               "stages made by tile.stage");
  return nullptr;
}

LogicalResult Interpreter::executeCopy(CopyOp copy) {
  Operation &op = *copy;
  RankedTensorType box = copy.getBoxType();
  int64_t width = copy.getWidth();
  const Val *mask = copy.getMask() ? &get(copy.getMask()) : nullptr;
  // A box of a var at uniform offsets, as flat element indices of the var.
  auto varElements =
      [&](Value handle, ValueRange offsets) -> FailureOr<SmallVector<int64_t>> {
    ArrayRef<int64_t> dims = cast<VarType>(handle.getType()).getShape();
    SmallVector<int64_t> start;
    for (auto [dim, offset] : llvm::enumerate(offsets)) {
      const Val &value = get(offset);
      if (failed(requireDefined(&op, value, "an offset of 'tile.copy'")))
        return failure();
      if (!value.isUniform())
        return op.emitError("the interp backend needs the offsets into a "
                            "var to be the same in every thread");
      // start > size - extent: start + extent overflowed for a start near
      // 2^63 and the box passed (utils/fuzz.py seed 104, iteration 28756).
      if (value.scalarInt() < 0 ||
          value.scalarInt() > dims[dim] - box.getDimSize(dim))
        return fault(&op) << "the box [" << value.scalarInt() << " :+ "
                          << box.getDimSize(dim) << "] in dimension " << dim
                          << " is outside the var of size " << dims[dim];
      start.push_back(value.scalarInt());
    }
    SmallVector<int64_t> elements;
    for (int64_t e = 0; e < box.getNumElements(); ++e) {
      int64_t remaining = e, linear = 0, stride = 1;
      for (int64_t dim = box.getRank() - 1; dim >= 0; --dim) {
        linear += (start[dim] + remaining % box.getDimSize(dim)) * stride;
        stride *= dims[dim];
        remaining /= box.getDimSize(dim);
      }
      elements.push_back(linear);
    }
    return elements;
  };

  // The var side's state and the elements of its box.
  struct VarBox {
    VarState *state;
    SmallVector<int64_t> elements;
  };
  auto varBox = [&](Value handle, ValueRange offsets) -> FailureOr<VarBox> {
    VarState *state = stateOf(op, handle);
    if (!state)
      return failure();
    FailureOr<SmallVector<int64_t>> elements = varElements(handle, offsets);
    if (failed(elements))
      return failure();
    return VarBox{state, std::move(*elements)};
  };

  Val moved = Val::zeros(box);
  if (isa<GlobalTensorType>(copy.getSource().getType())) {
    if (failed(executeSlice(op, copy.getSource(), copy.getSourceOffsets(), box,
                            nullptr, nullptr, nullptr, width, &moved)))
      return failure();
  } else {
    FailureOr<VarBox> from = varBox(copy.getSource(), copy.getSourceOffsets());
    if (failed(from))
      return failure();
    const VarState &state = *from->state;
    if (!state.value || !state.written.empty())
      return fault(&op) << "copies from var '"
                        << getVarOp(copy.getSource()).getName()
                        << "' before every thread wrote it";
    for (auto [e, element] : llvm::enumerate(from->elements))
      moved.copyElement(e, *state.value, element);
    noteOrigin(moved, op, copy.getSource(), from->elements);
    moved.accuracy = state.value->accuracy;
    moved.thresholded = state.value->thresholded;
  }

  if (isa<GlobalTensorType>(copy.getDest().getType()))
    return executeSlice(op, copy.getDest(), copy.getDestOffsets(), box, &moved,
                        nullptr, mask, width);
  if (!active.empty())
    return op.emitError("the interp backend copies into a var only where "
                        "every thread runs the copy, not under control flow "
                        "that depends on ctx.thread");
  FailureOr<VarBox> to = varBox(copy.getDest(), copy.getDestOffsets());
  if (failed(to))
    return failure();
  VarState *state = to->state;
  // A var a copy first fills holds nothing where the copy does not reach:
  // on a GPU whatever the memory held. Using those is the kernel's fault.
  if (!state->value) {
    state->value =
        Val::zeros(cast<VarType>(copy.getDest().getType()).getValueType());
    state->value->undefined.assign(state->value->size(), 1);
  }
  state->written.clear();
  Val &value = *state->value;
  for (auto [e, element] : llvm::enumerate(to->elements))
    if (!mask || mask->ints[e])
      value.copyElement(element, moved, e);
  value.accuracy = rt::loosest(value.accuracy, moved.accuracy);
  value.thresholded |= moved.thresholded || controlThresholded;
  return success();
}

LogicalResult Interpreter::writeVar(Value var, Val value) {
  VarState *found = stateOf(*var.getDefiningOp(), var, /*create=*/true);
  if (!found)
    return failure();
  VarState &state = *found;
  value.thresholded |= controlThresholded;
  if (!state.value) {
    state.value = std::move(value);
    state.written = active;
    return success();
  }
  if (active.empty()) {
    state.value = std::move(value);
    state.written.clear();
    return success();
  }
  state.value = mergeByThread(*state.value, value, active, threads);
  if (!state.written.empty())
    for (int64_t t = 0; t < threads; ++t)
      state.written[t] |= active[t];
  return success();
}

LogicalResult Interpreter::readVar(ReadOp read) {
  VarState *found = stateOf(*read, read.getVar());
  if (!found)
    return failure();
  StringRef name = getVarOp(read.getVar()).getName();
  const VarState &state = *found;
  if (!state.value)
    return fault(read) << "reads var '" << name
                       << "' before anything was written to it";
  if (!state.written.empty()) {
    // Only threads that own elements read any.
    int64_t owners = state.value->isTile
                         ? std::min<int64_t>(threads, state.value->size())
                         : threads;
    for (int64_t t = 0; t < owners; ++t)
      if (isActive(t) && !state.written[t])
        return fault(read) << "reads var '" << name << "' in thread " << t
                           << ", which never wrote it";
  }
  Val value = *state.value;
  noteOrigin(value, *read, read.getVar());
  set(read.getResult(), std::move(value));
  return success();
}
