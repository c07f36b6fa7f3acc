//===- BankConflicts.cpp - shared-memory wavefronts per warp --------------===//
//
// The model (that of Nsight Compute's "wavefronts", for 32 banks of 4
// bytes): a warp's request is split into phases, each of at most 128
// bytes: all 32 lanes for accesses of 1 to 4 bytes, half warps for 8,
// quarter warps for 16; for ldmatrix each 8 x 8 matrix (8 rows of 16
// bytes, from lanes 8 i to 8 i + 7) is a phase. A phase takes as many
// wavefronts as the most distinct words any one bank holds of it (one word
// read by several lanes is one); its minimum is 1. The excess over the
// minimum is the bank conflicts. Shared memory starts at bank 0 (the
// emulator's offsets are from the start of the CTA's shared memory, which
// the GPU aligns to at least 128 bytes).
//
//===----------------------------------------------------------------------===//

#include "BankConflicts.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile::emulator;

namespace {
constexpr int64_t kBanks = 32, kBankBytes = 4, kPhaseBytes = 128;

/// The wavefronts of one phase: the words of `accesses` (byte offset,
/// size), the most in one bank.
int64_t wavefronts(ArrayRef<std::pair<int64_t, int64_t>> accesses) {
  llvm::DenseSet<int64_t> words;
  for (auto [offset, size] : accesses)
    for (int64_t word = offset / kBankBytes;
         word <= (offset + size - 1) / kBankBytes; ++word)
      words.insert(word);
  int64_t perBank[kBanks] = {};
  int64_t most = 0;
  for (int64_t word : words)
    most = std::max(most, ++perBank[word % kBanks]);
  return most;
}
} // namespace

void BankConflictCounter::record(Operation *op, SharedAccessKind kind,
                                 unsigned warp, unsigned lane,
                                 uint32_t instance, int64_t offset,
                                 int64_t size) {
  Request &request = pending[{warp, op, instance}];
  request.kind = kind;
  request.size = size;
  request.accesses.push_back({lane, offset});
}

void BankConflictCounter::recordLdMatrix(Operation *op, unsigned warp,
                                         uint32_t instance,
                                         ArrayRef<int64_t> rows) {
  Request &request = pending[{warp, op, instance}];
  request.kind = SharedAccessKind::LdMatrix;
  request.size = 16;
  for (auto [row, offset] : llvm::enumerate(rows))
    request.accesses.push_back({static_cast<unsigned>(row), offset});
}

void BankConflictCounter::flush() {
  for (auto &[key, request] : pending) {
    Operation *op = std::get<1>(key);
    // Lanes (rows of an ldmatrix) per phase.
    int64_t perPhase =
        request.kind == SharedAccessKind::LdMatrix
            ? 8
            : std::min<int64_t>(32, kPhaseBytes /
                                        std::max<int64_t>(request.size, 4));
    std::map<unsigned, SmallVector<std::pair<int64_t, int64_t>, 32>> phases;
    for (auto [lane, offset] : request.accesses)
      phases[lane / perPhase].push_back({offset, request.size});
    SharedAccessCount count;
    count.instructions = 1;
    for (auto &[phase, accesses] : phases) {
      count.wavefronts += wavefronts(accesses);
      count.minimum += 1;
    }
    auto [it, inserted] =
        siteIndex.try_emplace({op->getLoc().getAsOpaquePointer(),
                               static_cast<unsigned>(request.kind)},
                              perOp.size());
    if (inserted)
      perOp.push_back({op->getLoc(), op->getName().getStringRef().str(),
                       request.kind, SharedAccessCount()});
    perOp[it->second].count += count;
    totals[static_cast<unsigned>(request.kind)] += count;
  }
  pending.clear();
}

void BankConflictCounter::fill(EmulatorReport &report) const {
  for (unsigned kind = 0; kind < kSharedAccessKinds; ++kind)
    report.shared[kind] = totals[kind];
  report.sharedSites.assign(perOp.begin(), perOp.end());
  // By source position, then kind: not by the order CTAs' requests were
  // counted in, which follows op addresses.
  auto position = [](const SharedAccessSite &site) {
    auto file = site.loc->findInstanceOf<FileLineColLoc>();
    return std::make_tuple(file ? file.getLine() : 0u,
                           file ? file.getColumn() : 0u,
                           static_cast<unsigned>(site.kind));
  };
  llvm::stable_sort(report.sharedSites,
                    [&](const SharedAccessSite &a, const SharedAccessSite &b) {
                      return position(a) < position(b);
                    });
}

/// "file:line:col" of `loc`.
static std::string describeSite(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return llvm::formatv(
        "{0}:{1}:{2}", llvm::sys::path::filename(file.getFilename().getValue()),
        file.getLine(), file.getColumn());
  return "(unknown location)";
}

std::string
mlir::tile::emulator::describeBankConflicts(const EmulatorReport &report) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto describe = [&](const SharedAccessCount &count) {
    os << count.instructions << " warp instruction(s), " << count.wavefronts
       << " wavefront(s), " << count.conflicts() << " bank conflict(s)";
  };
  os << "emulate: shared memory (32 banks of 4 bytes; wavefronts beyond one "
        "per 128-byte phase are bank conflicts):";
  for (unsigned kind = 0; kind < kSharedAccessKinds; ++kind) {
    os << (kind ? ";" : "") << " "
       << sharedAccessName(static_cast<SharedAccessKind>(kind)) << " ";
    describe(report.shared[kind]);
  }
  os << "\n";
  for (const SharedAccessSite &site : report.sharedSites) {
    os << "  " << describeSite(site.loc) << ": " << sharedAccessName(site.kind)
       << " (" << site.op << ") ";
    describe(site.count);
    os << "\n";
  }
  return text;
}
