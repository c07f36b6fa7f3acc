# The Python package's install from a build directory that already built
# the extension (TILE_PYTHON_PREBUILT, see the top-level CMakeLists.txt):
# only the install rules of python/CMakeLists.txt, for that extension.
file(GLOB TILE_PREBUILT_EXTENSION
  "${TILE_PYTHON_PREBUILT}/python/tile/_tile${CMAKE_SHARED_MODULE_SUFFIX}"
  "${TILE_PYTHON_PREBUILT}/python/tile/_tile.*.so")
if(NOT TILE_PREBUILT_EXTENSION)
  message(FATAL_ERROR "TILE_PYTHON_PREBUILT=${TILE_PYTHON_PREBUILT} has no "
    "python/tile/_tile extension: run utils/build.sh first")
endif()
install(FILES ${TILE_PREBUILT_EXTENSION}
              ${TILE_PYTHON_PREBUILT}/python/tile/_tile.pyi
        DESTINATION tile COMPONENT python)
install(FILES ${TILE_PYTHON_PREBUILT}/lib/libTileRuntime.a
        DESTINATION tile/lib COMPONENT python)
install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/include/tile/Runtime/tile_runtime.h
        DESTINATION tile/include COMPONENT python)
# pyproject.toml builds the targets _tile and _tile_stub: here, nothing to
# compile.
add_custom_target(_tile)
add_custom_target(_tile_stub)
