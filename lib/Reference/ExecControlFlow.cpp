//===- ExecControlFlow.cpp - scf.if, scf.for and scf.while ----------------===//
//
// A condition or bounds that differ by thread run the region under a mask
// of the threads that take it; a loop whose bounds differ runs each
// thread's own iterations.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::reference;

static bool anyOf(const ThreadMask &mask) {
  return llvm::any_of(mask, [](uint8_t t) { return t; });
}

LogicalResult Interpreter::executeIf(scf::IfOp op) {
  const Val &condition = get(op.getCondition());
  if (failed(requireDefined(op, condition, "the condition of 'scf.if'")))
    return failure();
  bool thresholded = condition.thresholded;
  std::optional<SmallVector<Val>> thenValues, elseValues;
  ThreadMask takesThen;
  if (condition.isUniform()) {
    Region &region =
        condition.scalarInt() ? op.getThenRegion() : op.getElseRegion();
    if (region.empty())
      return success();
    FailureOr<SmallVector<Val>> results =
        runBlockUnder(region.front(), {}, active, thresholded);
    if (failed(results))
      return failure();
    thenValues = std::move(*results);
  } else {
    // Each thread takes its own branch.
    ThreadMask thenMask(threads), elseMask(threads);
    takesThen.assign(threads, 0);
    for (int64_t t = 0; t < threads; ++t) {
      takesThen[t] = condition.ints[t] != 0;
      thenMask[t] = isActive(t) && takesThen[t];
      elseMask[t] = isActive(t) && !takesThen[t];
    }
    if (anyOf(thenMask)) {
      FailureOr<SmallVector<Val>> results = runBlockUnder(
          op.getThenRegion().front(), {}, std::move(thenMask), thresholded);
      if (failed(results))
        return failure();
      thenValues = std::move(*results);
    }
    if (!op.getElseRegion().empty() && anyOf(elseMask)) {
      FailureOr<SmallVector<Val>> results = runBlockUnder(
          op.getElseRegion().front(), {}, std::move(elseMask), thresholded);
      if (failed(results))
        return failure();
      elseValues = std::move(*results);
    }
  }
  for (auto [index, result] : llvm::enumerate(op.getResults())) {
    Val value = thenValues && elseValues
                    ? mergeByThread((*elseValues)[index], (*thenValues)[index],
                                    takesThen, threads)
                : thenValues ? (*thenValues)[index]
                             : (*elseValues)[index];
    value.thresholded |= thresholded;
    set(result, std::move(value));
  }
  return success();
}

LogicalResult Interpreter::executeFor(scf::ForOp op) {
  const Val &lowerVal = get(op.getLowerBound()),
            &upperVal = get(op.getUpperBound()), &stepVal = get(op.getStep());
  for (const Val *bound : {&lowerVal, &upperVal, &stepVal})
    if (failed(requireDefined(op, *bound, "a bound of 'scf.for'")))
      return failure();
  if (!lowerVal.isUniform() || !upperVal.isUniform() || !stepVal.isUniform())
    return executeForPerThread(op);
  bool thresholded =
      lowerVal.thresholded || upperVal.thresholded || stepVal.thresholded;
  int64_t lower = lowerVal.scalarInt(), upper = upperVal.scalarInt(),
          step = stepVal.scalarInt();
  unsigned width = intWidth(op.getInductionVar().getType());
  if (step <= 0)
    return fault(op) << "scf.for step must be positive, got " << step;
  SmallVector<Val> carried;
  for (Value init : op.getInitArgs())
    carried.push_back(get(init));
  for (int64_t iv = lower;
       op.getUnsignedCmp() ? zeroExtend(iv, width) < zeroExtend(upper, width)
                           : iv < upper;) {
    if (failed(tick(op)))
      return failure();
    Val ivVal = Val::zeros(op.getInductionVar().getType());
    ivVal.ints[0] = iv;
    ivVal.thresholded = thresholded;
    SmallVector<Val> args = {std::move(ivVal)};
    args.append(carried.begin(), carried.end());
    FailureOr<SmallVector<Val>> yielded =
        runBlockUnder(*op.getBody(), args, active, thresholded);
    if (failed(yielded))
      return failure();
    carried = std::move(*yielded);
    int64_t next = wrap(static_cast<uint64_t>(iv) + step, width);
    if (next <= iv && !op.getUnsignedCmp())
      break; // the step overflowed past the type's end
    iv = next;
  }
  for (auto [result, val] : llvm::zip(op.getResults(), carried)) {
    val.thresholded |= thresholded;
    set(result, std::move(val));
  }
  return success();
}

/// A loop whose bounds differ by thread: each thread runs its own
/// iterations, the loop as long as one thread does.
LogicalResult Interpreter::executeForPerThread(scf::ForOp op) {
  const Val &lowerVal = get(op.getLowerBound()),
            &upperVal = get(op.getUpperBound()), &stepVal = get(op.getStep());
  bool thresholded =
      lowerVal.thresholded || upperVal.thresholded || stepVal.thresholded;
  unsigned width = intWidth(op.getInductionVar().getType());
  bool isUnsigned = op.getUnsignedCmp();
  auto below = [&](int64_t iv, int64_t upper) {
    return isUnsigned ? zeroExtend(iv, width) < zeroExtend(upper, width)
                      : iv < upper;
  };
  std::vector<int64_t> iv(threads), upper(threads), step(threads);
  ThreadMask running(threads);
  for (int64_t t = 0; t < threads; ++t) {
    iv[t] = lowerVal.ints[lowerVal.indexFor(t, false, threads)];
    upper[t] = upperVal.ints[upperVal.indexFor(t, false, threads)];
    step[t] = stepVal.ints[stepVal.indexFor(t, false, threads)];
    running[t] = isActive(t) && below(iv[t], upper[t]);
    if (isActive(t) && step[t] <= 0)
      return fault(op) << "scf.for step must be positive, got " << step[t]
                       << " (thread " << t << ")";
  }
  SmallVector<Val> carried;
  for (Value init : op.getInitArgs())
    carried.push_back(get(init));
  while (anyOf(running)) {
    if (failed(tick(op)))
      return failure();
    Val ivVal = Val::zeros(op.getInductionVar().getType(), threads);
    ivVal.ints = iv;
    ivVal.thresholded = thresholded;
    SmallVector<Val> args = {std::move(ivVal)};
    args.append(carried.begin(), carried.end());
    FailureOr<SmallVector<Val>> yielded =
        runBlockUnder(*op.getBody(), args, running, thresholded);
    if (failed(yielded))
      return failure();
    for (auto [value, next] : llvm::zip(carried, *yielded))
      value = mergeByThread(value, next, running, threads);
    for (int64_t t = 0; t < threads; ++t) {
      if (!running[t])
        continue;
      int64_t next = wrap(static_cast<uint64_t>(iv[t]) + step[t], width);
      running[t] = (next > iv[t] || isUnsigned) && below(next, upper[t]);
      iv[t] = next;
    }
  }
  for (auto [result, val] : llvm::zip(op.getResults(), carried)) {
    val.thresholded |= thresholded;
    set(result, std::move(val));
  }
  return success();
}

LogicalResult Interpreter::executeWhile(scf::WhileOp op) {
  SmallVector<Val> carried;
  for (Value init : op.getInits())
    carried.push_back(get(init));
  // Each thread leaves when its condition fails, with the values it passed.
  ThreadMask running = activeMask();
  std::optional<SmallVector<Val>> results;
  bool thresholded = false;
  while (true) {
    if (failed(tick(op)))
      return failure();
    // scf.condition's operands: the condition, then the values passed on.
    FailureOr<SmallVector<Val>> before =
        runBlockUnder(op.getBefore().front(), carried, running, thresholded);
    if (failed(before))
      return failure();
    const Val &condition = before->front();
    std::swap(active, running);
    LogicalResult defined =
        requireDefined(op, condition, "the condition of 'scf.while'");
    std::swap(active, running);
    if (failed(defined))
      return failure();
    thresholded |= condition.thresholded;
    SmallVector<Val> passed(std::make_move_iterator(before->begin() + 1),
                            std::make_move_iterator(before->end()));
    ThreadMask leaving(threads), staying(threads);
    for (int64_t t = 0; t < threads; ++t) {
      bool proceed = condition.ints[condition.indexFor(t, false, threads)] != 0;
      leaving[t] = running[t] && !proceed;
      staying[t] = running[t] && proceed;
    }
    if (anyOf(leaving)) {
      if (!results)
        results = passed;
      else
        for (auto [result, value] : llvm::zip(*results, passed))
          result = mergeByThread(result, value, leaving, threads);
    }
    if (!anyOf(staying))
      break;
    running = std::move(staying);
    FailureOr<SmallVector<Val>> after =
        runBlockUnder(op.getAfter().front(), passed, running, thresholded);
    if (failed(after))
      return failure();
    carried = std::move(*after);
  }
  for (auto [result, val] : llvm::zip(op.getResults(), *results)) {
    val.thresholded |= thresholded;
    set(result, std::move(val));
  }
  return success();
}
