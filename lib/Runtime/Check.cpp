//===- Check.cpp - comparing a kernel's outputs with the reference --------===//

#include "tile/Runtime/Check.h"

#include <algorithm>
#include <cmath>

using namespace tile::runtime;

Tolerance tile::runtime::defaultTolerance(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return {1e-5, 1e-6};
  case DType::F16: // 11 significand bits: one ulp is about 1e-3
    return {4e-3, 1e-3};
  case DType::BF16: // 8 significand bits: one ulp is about 8e-3
    return {3e-2, 1e-2};
  case DType::I32:
  case DType::I1:
  case DType::Index:
    return {0, 0};
  }
  return {};
}

/// The accuracy an output of `dtype` has where nothing more is known.
static Accuracy defaultAccuracy(DType dtype) {
  switch (dtype) {
  case DType::F16:
    return Accuracy::F16;
  case DType::BF16:
    return Accuracy::BF16;
  case DType::F32:
    return Accuracy::F32;
  case DType::I32:
  case DType::I1:
  case DType::Index:
    return Accuracy::Exact;
  }
  return Accuracy::Exact;
}

static DType typeOf(Accuracy accuracy) {
  return accuracy == Accuracy::F16    ? DType::F16
         : accuracy == Accuracy::BF16 ? DType::BF16
                                      : DType::F32;
}

double tile::runtime::relativeTolerance(Accuracy accuracy) {
  return accuracy == Accuracy::Exact
             ? 0
             : defaultTolerance(typeOf(accuracy)).relative;
}

Tolerance tile::runtime::toleranceFor(DType dtype, ElementMark mark,
                                      double largest, bool legacyMarks) {
  if (!isFloat(dtype) || mark.getAccuracy() == Accuracy::Exact)
    return {0, 0};
  // A value is never closer than the output's own type allows.
  Tolerance tolerance = defaultTolerance(
      typeOf(loosest(mark.getAccuracy(), defaultAccuracy(dtype))));
  // Without a bound of its own an element may carry the rounding of terms
  // as large as any the output holds.
  if (legacyMarks || mark.isUnbounded())
    tolerance.absolute =
        std::max(tolerance.absolute, tolerance.relative * largest);
  tolerance.relative = std::ldexp(tolerance.relative, mark.getAmplification());
  return tolerance;
}

/// The largest finite magnitude of the elements of `want` that `written`
/// says were written.
template <typename Written>
static double largestMagnitude(const HostTensor &want, Written written) {
  double largest = 0;
  for (size_t i = 0, e = want.numElements(); i < e; ++i)
    if (written(i) && std::isfinite(want.get(i)))
      largest = std::max(largest, std::fabs(want.get(i)));
  return largest;
}

Tolerance tile::runtime::toleranceFor(const HostTensor &want) {
  Tolerance tolerance = defaultTolerance(want.dtype);
  tolerance.absolute = std::max(
      tolerance.absolute,
      tolerance.relative * largestMagnitude(want, [](size_t) { return true; }));
  return tolerance;
}

static bool withinTolerance(double got, double want, Tolerance tolerance) {
  if (std::isnan(want) || std::isnan(got))
    return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got))
    return got == want;
  return std::fabs(got - want) <=
         tolerance.relative * std::fabs(want) + tolerance.absolute;
}

static Error checkSameLayout(const HostTensor &got, const HostTensor &want) {
  if (got.dtype != want.dtype || got.shape != want.shape ||
      got.bytes.size() != want.bytes.size())
    return Error::input("cannot compare a %s %s tensor with a %s %s one",
                        dtypeName(got.dtype), formatShape(got.shape).c_str(),
                        dtypeName(want.dtype), formatShape(want.shape).c_str());
  return Error::success();
}

Expected<std::optional<Mismatch>>
tile::runtime::firstMismatch(const HostTensor &got, const HostTensor &want,
                             Tolerance tolerance) {
  if (Error error = checkSameLayout(got, want))
    return error;
  std::optional<Mismatch> first;
  size_t count = 0;
  for (size_t i = 0; i < got.numElements(); ++i) {
    if (withinTolerance(got.get(i), want.get(i), tolerance))
      continue;
    if (!first)
      first = Mismatch{i, got.get(i), want.get(i), 0};
    ++count;
  }
  if (first)
    first->count = count;
  return first;
}

Expected<std::vector<Mismatch>>
tile::runtime::findMismatches(const OutputComparison &check) {
  const HostTensor &got = *check.got, &want = *check.want;
  if (Error error = checkSameLayout(got, want))
    return error;
  size_t size = want.numElements();
  if ((check.wantMarks && check.wantMarks->size() != size) ||
      (check.gotWritten && check.gotWritten->size() != size))
    return Error::input("the marks of a %s tensor have %zu elements, not %zu",
                        formatShape(want.shape).c_str(),
                        check.wantMarks ? check.wantMarks->size()
                                        : check.gotWritten->size(),
                        size);
  auto wantMark = [&](size_t i) {
    if (check.wantMarks)
      return (*check.wantMarks)[i];
    if (check.poisoned && want.isPoison(i))
      return ElementMark();
    return ElementMark::written(defaultAccuracy(want.dtype), false);
  };
  auto gotWrote = [&](size_t i) {
    if (check.gotWritten)
      return static_cast<bool>((*check.gotWritten)[i]);
    if (!check.poisoned)
      return wantMark(i).isWritten(); // cannot tell: as the reference did
    // The poison's bits are the backend's only trace; where the reference
    // wrote those very bits, the values agree either way.
    return !got.isPoison(i) || (wantMark(i).isWritten() && want.isPoison(i));
  };
  double largest =
      largestMagnitude(want, [&](size_t i) { return wantMark(i).isWritten(); });
  // Without marks no element's bound is known.
  bool legacyMarks = check.legacyMarks || !check.wantMarks;

  // The first element and the count of each kind, in enum order.
  std::optional<Mismatch> found[4];
  auto note = [&](MismatchKind kind, size_t i, bool thresholded) {
    std::optional<Mismatch> &slot = found[static_cast<int>(kind)];
    if (!slot)
      slot = Mismatch{i, got.get(i), want.get(i), 0, kind, thresholded};
    ++slot->count;
  };
  for (size_t i = 0; i < size; ++i) {
    ElementMark mark = wantMark(i);
    bool wrote = gotWrote(i);
    if (!mark.isWritten()) {
      if (check.poisoned)
        note(MismatchKind::NeverWritten, i, false);
      if (wrote)
        note(MismatchKind::WrittenOutside, i, false);
      else if (!check.poisoned && !withinTolerance(got.get(i), want.get(i), {}))
        note(MismatchKind::Value, i, false); // both kept the input
      continue;
    }
    if (!wrote) {
      note(MismatchKind::NotWritten, i, mark.isThresholded());
      continue;
    }
    if (mark.isUnchecked())
      continue; // any value: checkOutput reports how many
    Tolerance tolerance = toleranceFor(want.dtype, mark, largest, legacyMarks);
    tolerance.relative = check.relative.value_or(tolerance.relative);
    tolerance.absolute = check.absolute.value_or(tolerance.absolute);
    if (!withinTolerance(got.get(i), want.get(i), tolerance))
      note(MismatchKind::Value, i, mark.isThresholded());
  }
  std::vector<Mismatch> mismatches;
  if (found[static_cast<int>(MismatchKind::NeverWritten)])
    mismatches.push_back(*found[static_cast<int>(MismatchKind::NeverWritten)]);
  std::vector<Mismatch> others;
  for (MismatchKind kind : {MismatchKind::Value, MismatchKind::NotWritten,
                            MismatchKind::WrittenOutside})
    if (found[static_cast<int>(kind)])
      others.push_back(*found[static_cast<int>(kind)]);
  std::sort(
      others.begin(), others.end(),
      [](const Mismatch &a, const Mismatch &b) { return a.index < b.index; });
  mismatches.insert(mismatches.end(), others.begin(), others.end());
  return mismatches;
}

Error tile::runtime::checkMarksApply(const FloatOptions &compiled,
                                     const FloatOptions &assumed) {
  if (compiled == assumed)
    return Error::success();
  std::string flags;
  if (compiled.contract != assumed.contract)
    flags +=
        std::string(" --fp-contract=") + (compiled.contract ? "true" : "false");
  if (compiled.division != assumed.division)
    flags += std::string(" --fp-div=") + floatDivisionName(compiled.division);
  return Error::input(
      "the marks of the expected outputs are for a kernel compiled with %s, "
      "but this one was compiled with %s: they would hold some of its "
      "elements to the wrong tolerance; write them with tile-run%s "
      "--write-io, or replace the tolerance with --rtol and --atol",
      describeFloatOptions(assumed).c_str(),
      describeFloatOptions(compiled).c_str(), flags.c_str());
}
