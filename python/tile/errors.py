"""The exceptions of the tile package.

Every failure the package reports is a :class:`tile.Error`; the subclasses
say what went wrong:

* :class:`CompileError`: the kernel does not compile. The message is the
  compiler's diagnostic at the kernel's Python file, line and column, with
  the source line and a caret, as the ``.tile`` front end prints them.
* :class:`KernelFault`: the kernel compiled, but running it found a fault
  (a race, an access out of bounds, a barrier reached by part of a CTA) or
  the reference interpreter could not evaluate it; the message is located
  at the Python line too.
* :class:`BackendUnavailable`: the backend asked for is not there (no CUDA
  driver or device for ``backend="cuda"``).
* :class:`MismatchError`: ``check=True`` found an output element that
  differs from the reference; ``name``, ``index``, ``got``, ``want`` say
  which.
"""


class Error(Exception):
    """Any error of the tile package: bad arguments, shapes, dtypes."""


class CompileError(Error):
    """The kernel does not compile; the message is the located diagnostic."""


class KernelFault(Error):
    """Running the kernel found a fault (race, out of bounds, ...)."""


class BackendUnavailable(Error):
    """The requested backend cannot run here."""


class MismatchError(Error):
    """An output differs from the reference interpreter's.

    Attributes: ``name`` (the parameter), ``index`` (a tuple, the first
    mismatching element), ``flat_index``, ``got``, ``want``, ``count`` (how
    many elements differ) and ``result`` (the run's :class:`tile.RunResult`).
    """

    def __init__(self, message, name, index, flat_index, got, want, count,
                 result):
        super().__init__(message)
        self.name = name
        self.index = index
        self.flat_index = flat_index
        self.got = got
        self.want = want
        self.count = count
        self.result = result
