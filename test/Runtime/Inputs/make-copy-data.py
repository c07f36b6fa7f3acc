"""Writes the files of tile-launch (docs/abi.md) for the copy kernel.

make-copy-data.py DIR K: DIR/in/{X.bin,dims.txt}, DIR/expect/O.bin (= X),
DIR/wrong/O.bin (= X but element 37 changed) and DIR/short/X.bin (one
element short); for the scale kernel, DIR/scaled/O.bin (= 2.5 X).
"""
import os
import struct
import sys

out, k = sys.argv[1], int(sys.argv[2])
values = [float(i % 17) * 0.25 for i in range(4 * k)]


def write(name, data):
    os.makedirs(os.path.dirname(name), exist_ok=True)
    with open(name, "wb") as f:
        f.write(struct.pack("<%df" % len(data), *data))


write(os.path.join(out, "in", "X.bin"), values)
with open(os.path.join(out, "in", "dims.txt"), "w") as f:
    f.write("# symbol values\nK=%d\n" % k)
write(os.path.join(out, "expect", "O.bin"), values)
wrong = list(values)
wrong[37] += 1.0
write(os.path.join(out, "wrong", "O.bin"), wrong)
write(os.path.join(out, "short", "X.bin"), values[:-1])
write(os.path.join(out, "scaled", "O.bin"), [2.5 * v for v in values])
