//===- Shadow.h - race bookkeeping for global memory, by the page -*- C++
//-*-===//
//
// The race checks keep, per element of a global tensor, who accessed it:
// within the running CTA since its last barrier, and across CTAs for the
// whole run. A hash map entry per element (about 250 bytes each with the
// map's slack) made a 16M-element input cost 4 GB, so the records are
// compact and live in pages of a flat table per tensor, allocated when an
// element of the page is first touched; the per-CTA pages are released at
// every barrier and at every new CTA, so that bookkeeping follows what is
// live, not every element the run ever touched.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_EMULATOR_SHADOW_H
#define TILE_LIB_EMULATOR_SHADOW_H

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace mlir::tile::emulator {

/// The accesses of one global element by the threads of the running CTA
/// since its last barrier (the pages are released at barriers, so there
/// are no epochs): threads plus 1 (0: none), ops by their number in
/// Program::globalAccessOps. 16 bytes.
struct ElementAccesses {
  uint16_t writer = 0, readers[2] = {0, 0}, atomicThread = 0;
  uint16_t writeOp = 0, readOps[2] = {0, 0}, atomicOp = 0;
};

/// The first CTA that made each kind of access (read, write, atomic) to one
/// element of a global tensor, and the op (numbered as above).
struct CrossCTAAccesses {
  static constexpr uint32_t kNone = ~0u;
  uint32_t cta[3] = {kNone, kNone, kNone};
  uint16_t op[3] = {0, 0, 0};
};

/// Records of `Record` for the elements of each global tensor, in pages of
/// 1024 allocated on first touch (value-initialised) and given back by
/// release().
template <typename Record> class PagedShadow {
public:
  static constexpr unsigned kPageBits = 10;
  static constexpr int64_t kPageSize = int64_t(1) << kPageBits;

  /// One table per tensor, of `elements[i]` elements.
  void reset(const std::vector<int64_t> &elements) {
    pages.clear();
    for (int64_t count : elements)
      pages.emplace_back((count + kPageSize - 1) >> kPageBits);
    touched.clear();
  }

  Record &at(uint32_t tensor, int64_t element) {
    std::unique_ptr<Record[]> &page = pages[tensor][element >> kPageBits];
    if (!page) {
      if (spare.empty()) {
        page = std::make_unique<Record[]>(kPageSize);
      } else {
        page = std::move(spare.back());
        spare.pop_back();
        std::fill(page.get(), page.get() + kPageSize, Record());
      }
      touched.push_back({tensor, element >> kPageBits});
    }
    return page[element & (kPageSize - 1)];
  }

  /// Forgets every record, keeping a few pages for reuse.
  void release() {
    for (auto [tensor, index] : touched) {
      std::unique_ptr<Record[]> &page = pages[tensor][index];
      if (spare.size() < kSparePages)
        spare.push_back(std::move(page));
      page.reset();
    }
    touched.clear();
  }

private:
  static constexpr size_t kSparePages = 64;
  std::vector<std::vector<std::unique_ptr<Record[]>>> pages;
  std::vector<std::pair<uint32_t, int64_t>> touched;
  std::vector<std::unique_ptr<Record[]>> spare;
};

} // namespace mlir::tile::emulator

#endif // TILE_LIB_EMULATOR_SHADOW_H
