"""compare.py's run_tile on a bundle kernel's correctness inputs
(kernels/NAME/io), as the GPU run calls it: prints the median ms and CTAs
parsed from tile-launch's report, and the shape of each output read back.

  run-tile.py BUNDLE NAME     (needs torch; TILE_CUDA_DRIVER_LIBRARY may
                               name a stand-in driver)"""

import pathlib
import sys
import tempfile

bundle, name = pathlib.Path(sys.argv[1]), sys.argv[2]
sys.path.insert(0, str(bundle / "py"))
import compare  # noqa: E402

compare.import_torch()
directory = bundle / "kernels" / name
manifest = compare.load_kernels({name})[name][1]
dims = compare.read_dims(directory / "io" / "dims.txt")
inputs = compare.read_params(directory / "io", manifest, dims, "read", "cpu")
with tempfile.TemporaryDirectory() as scratch:
    ms, ctas, outputs = compare.run_tile(
        str(bundle / "bin" / "tile-launch"), directory, manifest, dims, inputs,
        pathlib.Path(scratch), timeout=60)
print(f"{name}: {ms} ms, {ctas} CTAs, outputs "
      + ", ".join(f"{k}{list(v.shape)}" for k, v in outputs.items()))
