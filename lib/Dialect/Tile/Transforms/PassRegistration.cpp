//===- PassRegistration.cpp - tile dialect passes -------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"
