"""tplan: physics-based tactics planning from Python, over libtplan (docs/python.md).

    import tplan
    golf = tplan.load("minigolf")
    plan = golf.plan(seed=7, max_iters=200)
    plan.trajectory.shape          # (steps + 1, bodies, 13)
    end = golf.simulate(plan.state(0), plan.controls)

A ctypes binding: no build step; every call into the library releases the GIL."""

from . import _lib
from ._api import (
    OUTPUT_KINDS,
    BodyState,
    Domain,
    Progress,
    Result,
    Search,
    State,
    TacticState,
    domain_dirs,
    load,
    load_string,
    worlds,
)
from ._errors import (
    ArgumentError,
    Error,
    FileError,
    InternalError,
    LimitError,
    MismatchError,
    OutOfMemoryError,
    PlanFileError,
    ScriptError,
    UnknownCodeError,
    UnsupportedError,
)

__version__ = "0.1.0"  # the binding's; version() is the loaded library's

STATE_FORMAT, STATE_VERSION = "tplan-state", 2  # the newest version written (1 still read)


def version():
    """The loaded libtplan's version ("0.1.0")."""
    return _lib.lib.tplan_version().decode()


def version_number():
    """The same as major * 10000 + minor * 100 + patch."""
    return _lib.lib.tplan_version_number()


def library_path():
    """The libtplan file this package loaded."""
    return _lib.library_path()


__all__ = [
    "ArgumentError", "BodyState", "Domain", "Error", "FileError", "InternalError", "LimitError",
    "MismatchError", "OUTPUT_KINDS", "OutOfMemoryError", "PlanFileError", "Progress", "Result",
    "STATE_FORMAT", "STATE_VERSION", "ScriptError", "Search", "State", "TacticState", "UnknownCodeError",
    "UnsupportedError",
    "domain_dirs", "library_path", "load", "load_string", "version", "version_number", "worlds",
]
