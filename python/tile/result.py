"""What a kernel run reports: the run report's figures, placement, the
check."""

from .errors import MismatchError


class RunResult:
    """The report of one run, as ``tile-run`` prints it (``str(result)``),
    and its figures as attributes.

    * ``backend``: ``"cuda"``, ``"emulate"`` or ``"interp"``.
    * The run report's table: ``registers``, ``local_bytes``,
      ``shared_bytes``, ``max_threads_per_block``, ``blocks_per_sm``,
      ``occupancy`` (percent), ``ms`` (median of the timed runs),
      ``device``, ``grid``: on the GPU the driver's. Without a GPU,
      ``registers`` and ``local_bytes`` come from ``ptxas -v`` when a CUDA
      toolkit is there (``ptxas`` holds all its figures), and
      ``max_threads_per_block``, ``blocks_per_sm`` and ``occupancy`` are
      computed from them by the CUDA occupancy calculator's rules
      (``computed`` is True then; ``limited_by`` says what limits the CTAs
      per SM); else None. Every figure is of ``variant``, the PTX entry
      that ran (the div16 variant where the sizes allow).
    * On the emulator: ``ctas``, ``threads``, ``ops``; ``seconds`` for every
      backend.
    * Placement: ``register_tiles`` (each promoted tile: name, slots per
      thread, spills, shuffles), ``pipelined`` (the @pipeline loops),
      ``shared_buffers`` (the shared-memory plan: name, bytes, offset, live
      lines) and ``shared_bytes_planned``; ``remarks`` with
      ``remarks=True``.
    * The check: ``checks``, one dict per written output (``name``,
      ``elements``, ``message``, and for a mismatch ``index``, ``got``,
      ``want``, ``count``), ``matched`` (all matched, or None without a
      check), and ``symbols``, the values the arrays bound.
    """

    def __init__(self, compiled, outcome, manifest):
        self.kernel = compiled.name
        self.backend = outcome["backend"]
        self.report = outcome["report"]
        self.checks = outcome["checks"]
        self.symbols = dict(outcome["symbols"])
        self.manifest = manifest
        self.remarks = compiled.remarks
        figures = outcome["figures"]
        self.figures = figures
        self.seconds = figures["seconds"]
        self.ptxas = figures.get("ptxas")
        gpu = "registers" in figures
        self.variant = figures.get("entry")
        computed = figures.get("computed") or {}
        self.computed = bool(computed) and not gpu
        self.limited_by = computed.get("limited_by")
        self.device = figures.get("device")
        self.registers = figures.get("registers") if gpu else (
            self.ptxas["registers"] if self.ptxas else None)
        self.local_bytes = figures.get("local_bytes") if gpu else (
            self.ptxas["stack_bytes"] if self.ptxas else None)
        self.shared_bytes = figures.get("static_shared_bytes") if gpu else \
            manifest.get("shared_bytes")
        table = figures if gpu else computed
        self.max_threads_per_block = table.get("max_threads_per_block")
        self.blocks_per_sm = table.get("blocks_per_sm")
        self.occupancy = table.get("occupancy_percent")
        self.ms = figures.get("ms")
        self.grid = figures.get("grid")
        self.ctas = figures.get("ctas")
        self.threads = figures.get("threads")
        self.ops = figures.get("ops")
        self.register_tiles = manifest.get("registers", [])
        self.pipelined = manifest.get("pipelined", [])
        self.shared_buffers = manifest.get("shared_buffers", [])
        self.shared_bytes_planned = manifest.get("shared_bytes", 0)
        self.matched = all("index" not in c for c in self.checks) \
            if self.checks else None

    def __str__(self):
        return self.report

    def __repr__(self):
        state = {True: "matched", False: "MISMATCH", None: "unchecked"}
        return (f"<tile.RunResult {self.kernel} on {self.backend}: "
                f"{state[self.matched]}>")

    def raise_for_mismatch(self):
        """Raises MismatchError at the first output that differs."""
        for check in self.checks:
            if "index" not in check:
                continue
            index = _unravel(check["index"], check["shape"])
            raise MismatchError(check["message"], check["name"], index,
                                check["index"], check["got"], check["want"],
                                check["count"], self)


def _unravel(flat, shape):
    index = []
    for size in reversed(shape):
        index.append(flat % size if size else 0)
        flat = flat // size if size else 0
    return tuple(reversed(index))
