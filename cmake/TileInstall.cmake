# Install rules and the exported CMake package: find_package(Tile) gives
# Tile::TileDialect, Tile::TileTransforms, Tile::TileInit and
# Tile::TileFrontend.

include(CMakePackageConfigHelpers)
set(TILE_INSTALL_CMAKE_DIR lib/cmake/tile)

install(DIRECTORY include/tile DESTINATION include
        FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/tile DESTINATION include
        FILES_MATCHING PATTERN "*.inc")

set(TILE_EXPORTED_LIBS TileDialect TileAnalysis TileTransforms TileToGPU TileNVVMToPTX TileTargetPTX TileEmulator TileInit TileTools TileFrontend TileRuntime TileReference)
install(TARGETS ${TILE_EXPORTED_LIBS} EXPORT TileTargets
        ARCHIVE DESTINATION lib LIBRARY DESTINATION lib)
install(EXPORT TileTargets NAMESPACE Tile:: DESTINATION ${TILE_INSTALL_CMAKE_DIR})

# The same targets straight from the build tree, for consumers that do not
# install (TileConfig.cmake in the build directory).
export(TARGETS ${TILE_EXPORTED_LIBS} NAMESPACE Tile::
       FILE ${PROJECT_BINARY_DIR}/TileTargets.cmake)

set(TILE_CONFIG_INCLUDE_DIRS "${PROJECT_SOURCE_DIR}/include;${PROJECT_BINARY_DIR}/include")
set(TILE_CONFIG_TARGETS_FILE "${PROJECT_BINARY_DIR}/TileTargets.cmake")
configure_file(cmake/TileConfig.cmake.in ${PROJECT_BINARY_DIR}/TileConfig.cmake @ONLY)

set(TILE_CONFIG_INCLUDE_DIRS "\${TILE_INSTALL_PREFIX}/include")
set(TILE_CONFIG_TARGETS_FILE "\${CMAKE_CURRENT_LIST_DIR}/TileTargets.cmake")
configure_file(cmake/TileConfig.cmake.in
               ${PROJECT_BINARY_DIR}/install/TileConfig.cmake @ONLY)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/TileConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/install/TileConfig.cmake
              ${PROJECT_BINARY_DIR}/TileConfigVersion.cmake
        DESTINATION ${TILE_INSTALL_CMAKE_DIR})
