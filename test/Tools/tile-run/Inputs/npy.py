"""Writes and reads .npy files for the tests of tile-run --input and
--output-dir, without numpy (the tests' Python has none): the format as
numpy's lib/format.py writes it, and ways to break it.

  npy.py write FILE DESCR SHAPE EXPR [--version=2] [--fortran]
         [--truncate=N] [--extra=N] [--header=TEXT]
      EXPR: the element at flat index i (a Python expression over i), or
      a comma-separated list of the values.
  npy.py print FILE I [I ...]
      The header's descr and shape, then the elements at flat indices I.
"""

import argparse
import struct
import sys

FORMATS = {"<f4": "<f", "<f2": "<e", "<f8": "<d", "<i4": "<i", "<i8": "<q",
           "<u2": "<H", "|b1": "<?", ">f4": ">f", "<c8": "<ff"}


def write(args):
    shape = tuple(int(s) for s in args.shape.split(",") if s)
    count = 1
    for size in shape:
        count *= size
    if "," in args.expr:
        values = [float(v) for v in args.expr.split(",")]
    else:
        values = [eval(args.expr, {"i": i}) for i in range(count)]  # noqa
    fmt = FORMATS[args.descr]
    data = b"".join(struct.pack(fmt, *([v] * (len(fmt) - 1))) for v in values)
    text = args.header or "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        args.descr, args.fortran, repr(shape))
    length_bytes = 2 if args.version == 1 else 4
    preamble = 8 + length_bytes
    padded = -(-(preamble + len(text) + 1) // 64) * 64
    text = text + " " * (padded - preamble - len(text) - 1) + "\n"
    length = struct.pack("<H" if args.version == 1 else "<I", len(text))
    blob = b"\x93NUMPY" + bytes([args.version, 0]) + length + text.encode()
    blob += data + b"\0" * args.extra
    if args.truncate:
        blob = blob[:-args.truncate]
    with open(args.file, "wb") as f:
        f.write(blob)


def read(path):
    blob = open(path, "rb").read()
    assert blob[:6] == b"\x93NUMPY", "not a .npy file"
    if blob[6] == 1:
        (length,) = struct.unpack("<H", blob[8:10])
        start = 10
    else:
        (length,) = struct.unpack("<I", blob[8:12])
        start = 12
    assert (start + length) % 64 == 0, "header not padded to 64 bytes"
    header = eval(blob[start:start + length].decode())  # noqa: S307
    fmt = FORMATS[header["descr"]]
    size = struct.calcsize(fmt)
    data = blob[start + length:]
    values = [struct.unpack(fmt, data[k:k + size])[0]
              for k in range(0, len(data), size)]
    return header, values


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("file")
    w.add_argument("descr")
    w.add_argument("shape")
    w.add_argument("expr")
    w.add_argument("--version", type=int, default=1)
    w.add_argument("--fortran", action="store_const", const=True,
                   default=False)
    w.add_argument("--truncate", type=int, default=0)
    w.add_argument("--extra", type=int, default=0)
    w.add_argument("--header")
    p = sub.add_parser("print")
    p.add_argument("file")
    p.add_argument("index", type=int, nargs="*")
    args = parser.parse_args()
    if args.command == "write":
        write(args)
        return
    header, values = read(args.file)
    print(f"{header['descr']} {header['shape']} fortran_order="
          f"{header['fortran_order']} {len(values)} elements")
    for index in args.index:
        print(f"[{index}] = {values[index]:g}")


if __name__ == "__main__":
    sys.exit(main())
