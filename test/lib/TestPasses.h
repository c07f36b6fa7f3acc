//===- TestPasses.h - passes that plant bugs in lowered kernels -*- C++ -*-===//
//
// Test-only passes that break a correct lowered kernel the way a wrong
// lowering would, so the tests can show that the emulate backend catches
// each kind of bug: -tile-test-drop-barriers, -tile-test-break-shuffle,
// -tile-test-drop-bound-masks, and for async copies
// -tile-test-drop-async-waits, -tile-test-shallow-async-waits,
// -tile-test-drop-barriers-after-waits. And passes that print what an
// analysis computes (TestAnalyses.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TEST_LIB_TESTPASSES_H
#define TILE_TEST_LIB_TESTPASSES_H

#include <string>
#include <utility>
#include <vector>

namespace mlir::tile {
void registerEmulatorTestPasses();
/// -tile-test-print-thread-mapping and the other analysis printers.
void registerAnalysisTestPasses();
/// Each bug planter's pass argument and description ("test only: ...").
std::vector<std::pair<std::string, std::string>> getPlantedBugs();
/// The wgmma planters (PlantWgmmaBugs.cpp), which the two above include:
/// -tile-test-drop-wgmma-waits, -tile-test-wrong-swizzle.
void registerWgmmaBugPlanters();
void appendWgmmaBugPlanters(
    std::vector<std::pair<std::string, std::string>> &bugs);
} // namespace mlir::tile

#endif // TILE_TEST_LIB_TESTPASSES_H
