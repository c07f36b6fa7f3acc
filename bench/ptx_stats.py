"""Reads PTX: the hot loop of each entry and what ptxas -v says of it.

Used by bench/run.py; kept apart so that the GPU bundle can reuse it."""

import re
import subprocess

INSTRUCTION = re.compile(r"^\s*(@!?%p\d+\s+)?([a-z][a-z0-9._]*)")
LABEL = re.compile(r"^(\$?[A-Za-z_][\w$]*):")
BRANCH = re.compile(r"\bbra(?:\.uni)?\s+(\$?[\w$]+);")


def entry_bodies(ptx):
    """Maps each `.entry NAME` to the lines of its body."""
    bodies, name, depth, lines = {}, None, 0, []
    for line in ptx.splitlines():
        match = re.match(r"\s*\.(?:visible\s+)?\.entry\s+(\w+)", line)
        if match:
            name, depth, lines = match.group(1), 0, []
            continue
        if name is None:
            continue
        depth += line.count("{") - line.count("}")
        lines.append(line)
        if depth == 0 and "}" in line:
            bodies[name] = lines
            name = None
    return bodies


def instructions(lines):
    out = []
    for line in lines:
        code = line.split("//")[0]
        if not code.strip().endswith(";") or code.strip().startswith("."):
            continue
        match = INSTRUCTION.match(code)
        if match:
            out.append(match.group(2))
    return out


def basic_blocks(lines):
    """Splits an entry body into blocks at labels and after branches:
    (lines of each block, successors of each block)."""
    blocks = [[None, []]]
    for line in lines:
        label = LABEL.match(line.strip())
        if label:
            blocks.append([label.group(1), []])
            continue
        blocks[-1][1].append(line)
        if BRANCH.search(line.split("//")[0]):
            blocks.append([None, []])
    index = {label: i for i, (label, _) in enumerate(blocks) if label}
    graph = []
    for i, (_, body) in enumerate(blocks):
        code = [l.split("//")[0].strip() for l in body]
        code = [c for c in code if c.endswith(";") and not c.startswith(".")]
        last = code[-1] if code else ""
        successors = [index[b.group(1)] for c in code
                      for b in [BRANCH.search(c)] if b and b.group(1) in index]
        unconditional = (BRANCH.search(last) and not last.startswith("@")) or \
            last.startswith(("ret", "exit"))
        if not unconditional and i + 1 < len(blocks):
            successors.append(i + 1)
        graph.append(successors)
    return [body for _, body in blocks], reachable_edges(graph)


def reachable_edges(graph):
    """`graph` with no edges out of blocks the entry (block 0) cannot reach,
    so that dead code (such as the padding after the last exit) is neither
    a loop nor a way into one."""
    reachable, todo = {0}, [0]
    while todo:
        for succ in graph[todo.pop()]:
            if succ not in reachable:
                reachable.add(succ)
                todo.append(succ)
    return [g if b in reachable else [] for b, g in enumerate(graph)]


def strongly_connected(graph):
    """Tarjan: the strongly connected sets of blocks that form cycles."""
    order, low, stack, on_stack, result = {}, {}, [], set(), []

    def visit(node):
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for succ in graph[node]:
            if succ not in order:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], order[succ])
        if low[node] == order[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph[node]:
                result.append(sorted(component))

    for node in range(len(graph)):
        if node not in order:
            visit(node)
    return result


def iteration(component, bodies, graph, loads, size, executed=None):
    """One iteration of a loop: the instructions on the path from the header
    back to it that runs the most global loads, then the fewest
    instructions: an iteration over the interior of the tensors, where
    every guarded load runs and a slice known to be inside takes its
    version without bounds checks. A loop nested in it counts its body
    once. `executed(block, successor)` gives what a block runs on its way
    to a successor (SASS predicates part of a block on the branch that
    ends it); by default, all of it."""
    executed = executed or (lambda block, successor: bodies[block])
    members = set(component)
    entered = {succ for block in range(len(graph)) if block not in members
               for succ in graph[block] if succ in members}
    header = min(entered or members)
    order, state, back = [], {}, set()

    def visit(block):  # depth-first: a topological order, and back edges
        state[block] = "open"
        for succ in graph[block]:
            if succ not in members or succ == header:
                continue
            if state.get(succ) == "open":
                back.add((block, succ))  # an inner loop: its body runs once
            elif succ not in state:
                visit(succ)
        state[block] = "done"
        order.append(block)

    visit(header)
    # (loads, -instructions, lines) of the best path into each block, and
    # of the best whole iteration.
    best, whole = {header: (0, 0, [])}, None
    for block in reversed(order):
        if block not in best:
            continue
        for succ in set(graph[block]) & members:
            if (block, succ) in back:
                continue
            lines = executed(block, succ)
            path = best[block]
            path = (path[0] + loads(lines), path[1] - size(lines),
                    path[2] + lines)
            target = whole if succ == header else best.get(succ)
            if target is None or path[:2] > target[:2]:
                if succ == header:
                    whole = path
                else:
                    best[succ] = path
    return whole[2] if whole else sum((bodies[b] for b in component), [])


def smallest_loop(bodies, graph, loads, size, executed=None):
    """The hot loop: of the loops (strongly connected blocks) with global
    loads (`loads(lines)` counts them), the one whose iteration (see
    `iteration`) is the smallest by `size(lines)`; else the smallest loop.
    The lines of that iteration, or [] for a kernel without a loop. Block
    layout does not matter, so a loop that the compiler rotated counts
    whole. Shared with sass_stats.py, which feeds it SASS blocks."""
    loops = [iteration(component, bodies, graph, loads, size, executed)
             for component in strongly_connected(graph)]
    if not loops:
        return []
    return min([loop for loop in loops if loads(loop)] or loops, key=size)


def hot_loop(lines):
    """The hot loop of a PTX entry body: see smallest_loop."""
    bodies, graph = basic_blocks(lines)
    return smallest_loop(bodies, graph,
                         lambda loop: sum("ld.global" in l for l in loop),
                         lambda loop: len(instructions(loop)))


def loop_counts(lines):
    ops = instructions(hot_loop(lines))
    return {
        "loop_instructions": len(ops),
        "loop_global_loads": sum(op.startswith("ld.global") for op in ops),
        "loop_shared": sum(op.startswith(("ld.shared", "st.shared")) for op in ops),
        "loop_shuffles": sum(op.startswith("shfl") for op in ops),
        "shuffles": sum(op.startswith("shfl") for op in instructions(lines)),
    }


def ptx_arch(ptx_path, chip):
    """The architecture ptxas compiles the PTX for: `chip`, or its
    architecture-specific variant (sm_90a) when the PTX targets that (a
    kernel on wgmma)."""
    with open(ptx_path) as f:
        return chip + "a" if f".target {chip}a" in f.read() else chip


def ptxas_report(ptx_path, chip, ptxas="ptxas"):
    """Registers, spill bytes and shared bytes per entry, from ptxas -v."""
    result = subprocess.run(
        [ptxas, "-v", f"-arch={ptx_arch(ptx_path, chip)}", ptx_path, "-o",
         "/dev/null"],
        capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"ptxas rejected {ptx_path}:\n{result.stderr}")
    report, current = {}, None
    for line in result.stderr.splitlines():
        match = re.search(r"Compiling entry function '(\w+)'", line)
        if match:
            current = report.setdefault(match.group(1), {"smem": 0})
        elif current is not None:
            if m := re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line):
                current["spill_stores"], current["spill_loads"] = int(m[1]), int(m[2])
            if m := re.search(r"Used (\d+) registers", line):
                current["registers"] = int(m[1])
            if m := re.search(r"(\d+) bytes smem", line):
                current["smem"] = int(m[1])
    return report


def main():
    """ptx_stats.py FILE.ptx ENTRY [--ptxas CHIP]: the hot-loop counts (and
    the ptxas figures) of one entry, a `key: value` line each, for tests."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("ptx")
    parser.add_argument("entry")
    parser.add_argument("--ptxas", metavar="CHIP")
    args = parser.parse_args()
    with open(args.ptx) as file:
        bodies = entry_bodies(file.read())
    if args.entry not in bodies:
        raise SystemExit(f"no entry '{args.entry}' in {args.ptx}")
    stats = loop_counts(bodies[args.entry])
    if args.ptxas:
        stats.update(ptxas_report(args.ptx, args.ptxas)[args.entry])
    for key, value in stats.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
