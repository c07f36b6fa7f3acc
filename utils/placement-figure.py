#!/usr/bin/env python3
"""Draw where one tile of a kernel lives, from a `tile-opt --tile-placement-dump`.

Writes an SVG (Python standard library only) with two panels:
  * the tile's elements, coloured by the thread that holds them when the tile
    is in registers (element e, row-major, in thread e % threads at slot
    e // threads), or as one shared-memory buffer;
  * the shared-memory accesses to it, in program order, with those inside a
    loop (once per iteration) in a box, and a barrier before each read that
    needs other threads' elements.

The figure pair of docs/spec.md ("## @registers") is made with:
  tile-opt --tile-placement-dump -o /dev/null squares.mlir > shared.json
  tile-opt --tile-promote-registers --tile-placement-dump -o /dev/null \
      squares.mlir > registers.json
  placement-figure.py shared.json --var acc -o docs/figures/squares-shared.svg
  placement-figure.py registers.json --var acc \
      -o docs/figures/squares-registers.svg
"""

import argparse
import colorsys
import json
import sys
from xml.sax.saxutils import escape

CELL = 9
BYTES = {"f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i1": 1}
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"


def thread_colour(thread, threads, slot):
    """One hue per thread; later slots a little darker."""
    hue = thread / threads
    light = 0.72 - 0.1 * (slot % 4)
    r, g, b = colorsys.hls_to_rgb(hue, light, 0.75)
    return "#%02x%02x%02x" % (int(r * 255), int(g * 255), int(b * 255))


def text(x, y, s, size=13, weight="normal", anchor="start", fill="#222"):
    return (f"<text x='{x}' y='{y}' font-size='{size}' font-weight='{weight}' "
            f"text-anchor='{anchor}' fill='{fill}' {FONT}>{escape(s)}</text>")


def find_tiles(dump, kernel_name, var):
    kernels = dump["kernels"]
    kernel = next((k for k in kernels if k["name"] == kernel_name), None) \
        if kernel_name else (kernels[0] if kernels else None)
    if kernel is None:
        sys.exit(f"placement-figure: no kernel {kernel_name or ''} in the dump")
    tile = next((t for t in kernel["tiles"]
                 if t["name"] == var and "spill_of" not in t), None)
    if tile is None:
        sys.exit(f"placement-figure: kernel {kernel['name']} has no tile {var}")
    spills = [t for t in kernel["tiles"] if t.get("spill_of") == var]
    return kernel, tile, spills


def accesses(tile, spills):
    """The shared-memory accesses of the tile (or of its spills), in order."""
    events = []
    sources = [(tile, "")] if tile["storage"] == "shared" else []
    sources += [(s, "'s spill") for s in spills]
    for source, note in sources:
        for a in source["accesses"]:
            events.append(dict(a, note=note))
    events.sort(key=lambda a: (a.get("line", 0), a["kind"] != "init"))
    return events


def describe(event, var, elements):
    line = f"line {event['line']}: " if "line" in event else ""
    if event["kind"] == "read":
        users = ", ".join(event.get("users", [])) or "nothing"
        return f"{line}load {elements} elements of {var}{event['note']} " \
               f"from shared memory, for {users}"
    what = "its initial value" if event["kind"] == "init" else "an update"
    return f"{line}store {elements} elements of {var}{event['note']} " \
           f"to shared memory: {what}"


def draw(kernel, tile, spills, title):
    var = tile["name"]
    shape = tile["shape"]
    cols = shape[-1]
    rows = 1
    for size in shape[:-1]:
        rows *= size
    threads = kernel["threads"]
    elements = rows * cols
    in_registers = tile["storage"] == "registers"
    grid_w, grid_h = cols * CELL, rows * CELL
    events = accesses(tile, spills)

    out = []
    y = 30
    out.append(text(20, y, title, size=17, weight="bold"))
    y += 22
    if in_registers:
        caption = (f"{var}: [{rows}, {cols}] {tile['element']} in registers: "
                   f"element e is in thread e % {threads}, slot e / {threads}; "
                   f"{tile['slots']} per thread")
    else:
        size = BYTES.get(tile["element"], 4) * elements
        caption = (f"{var}: [{rows}, {cols}] {tile['element']} in shared "
                   f"memory: {size} bytes, for the whole kernel")
    out.append(text(20, y, caption))
    y += 14
    top = y
    for r in range(rows):
        for c in range(cols):
            e = r * cols + c
            if in_registers:
                fill = thread_colour(e % threads, threads, e // threads)
            else:
                fill = "#9db4d0"
            out.append(f"<rect x='{20 + c * CELL}' y='{top + r * CELL}' "
                       f"width='{CELL}' height='{CELL}' fill='{fill}' "
                       f"stroke='#ffffff' stroke-width='0.5'/>")
    if in_registers:
        per_slot_rows = max(1, threads // cols) if threads >= cols else 1
        for slot in range(tile["slots"]):
            r = slot * per_slot_rows
            if r < rows:
                out.append(text(26 + grid_w, top + r * CELL + CELL, f"slot {slot}",
                                size=11))
        out.append(text(20, top + grid_h + 16,
                        f"thread 0 holds elements 0, {threads}, {2 * threads}, ...; "
                        f"colour = thread", size=11, fill="#555"))
    y = top + grid_h + 40

    out.append(text(20, y, "Shared-memory accesses to " + var +
                    ", in program order", size=14, weight="bold"))
    y += 10
    # Around the kernel's first outermost loop: before it, in it, after it.
    loop_lines = [l.get("line", 0) for l in kernel.get("loops", [])
                  if l["loop_depth"] == 0]
    loop_line = loop_lines[0] if loop_lines else 0
    inside = [e for e in events if e["loop_depth"] > 0]
    before = [e for e in events
              if e["loop_depth"] == 0 and e.get("line", 0) < loop_line]
    after = [e for e in events if e not in before and e not in inside]

    def rows_of(group):
        lines = []
        barrier_done = False
        for e in group:
            if e["kind"] == "read" and e.get("cross_thread") and not barrier_done:
                lines.append(("barrier: every thread's store must land "
                              "before reads of other threads' elements",
                              "#b03030"))
                barrier_done = True
            lines.append((describe(e, var, elements), "#222"))
        return lines

    def emit(lines, x, y):
        for s, colour in lines:
            y += 20
            out.append(text(x, y, s, size=12, fill=colour))
        return y

    y = emit(rows_of(before), 30, y)
    y += 14
    box_top = y
    out.append(text(40, y + 18, "each iteration of the loop", size=12,
                    weight="bold"))
    y += 18
    if inside:
        y = emit(rows_of(inside), 50, y)
        total = sum(1 for e in inside if e["kind"] != "init")
        y = emit([(f"{total} x {elements} shared-memory element accesses per "
                   f"iteration", "#555")], 50, y)
    else:
        y = emit([(f"none: each thread updates its {tile.get('slots', '?')} "
                   f"elements of {var} in registers", "#206020")], 50, y)
    y += 10
    out.append(f"<rect x='30' y='{box_top}' width='600' height='{y - box_top}' "
               f"fill='none' stroke='#555' stroke-dasharray='4 3'/>")
    y += 6
    if in_registers and after:
        n = sum(1 for e in after if e["kind"] == "init")
        y = emit([(f"after the loop: {var} is stored to a shared tile "
                   f"{'once' if n == 1 else f'{n} times'}", "#555")], 30, y)
    y = emit(rows_of(after), 30, y)
    width = max(20 + grid_w + 80, 660)
    height = y + 24
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' "
            f"height='{height}' viewBox='0 0 {width} {height}'>\n"
            f"<rect width='100%' height='100%' fill='white'/>\n" +
            "\n".join(out) + "\n</svg>\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", help="JSON from tile-opt --tile-placement-dump "
                        "('-' for standard input)")
    parser.add_argument("--var", required=True, help="the tile to draw")
    parser.add_argument("--kernel", help="the kernel (default: the first)")
    parser.add_argument("--title", help="the figure's title")
    parser.add_argument("-o", "--output", required=True, help="the SVG to write")
    args = parser.parse_args()
    with (sys.stdin if args.dump == "-" else open(args.dump)) as f:
        dump = json.load(f)
    kernel, tile, spills = find_tiles(dump, args.kernel, args.var)
    where = "registers" if tile["storage"] == "registers" else "shared memory"
    title = args.title or f"{kernel['name']}: {args.var} in {where}"
    with open(args.output, "w") as f:
        f.write(draw(kernel, tile, spills, title))


if __name__ == "__main__":
    main()
