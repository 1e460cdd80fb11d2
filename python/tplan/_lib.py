"""libtplan through ctypes: finding the library, the header's structs, the functions' prototypes.

The structs mirror tplan/tplan.h field for field; tests/python/test_layout.py compares every
offset and size with a C program compiled against the header. Each struct with a `size` member
(tplan_run_def, tplan_simulate_def) is passed with this module's sizeof, so a newer library
reads it as the older struct it is (the header's stability rule)."""

import ctypes as C
import os

MAJOR = 0  # the SONAME's number this binding is written for: libtplan.so.0
SONAME = "libtplan.so.%d" % MAJOR


class Error(C.Structure):
    _fields_ = [("code", C.c_int), ("field", C.c_char * 64), ("message", C.c_char * 2048)]


class Param(C.Structure):
    _fields_ = [("name", C.c_char_p), ("value", C.c_char_p)]


OUTPUT_FN = C.CFUNCTYPE(None, C.c_void_p, C.c_int, C.POINTER(C.c_char), C.c_size_t)


class RunDef(C.Structure):
    _fields_ = [
        ("size", C.c_size_t),
        ("planner", C.c_int),
        ("mu", C.c_double),
        ("seed", C.c_int64),
        ("max_iters", C.c_int64),
        ("time_limit", C.c_double),
        ("solutions", C.c_int),
        ("nn_index", C.c_int),
        ("jobs", C.c_int),
        ("memory_limit_mb", C.c_int64),
        ("load_time_limit", C.c_double),
        ("call_time_limit", C.c_double),
        ("search_memory_mb", C.c_int64),
        ("output", OUTPUT_FN),
        ("output_user", C.c_void_p),
        ("start", C.c_void_p),
        ("near_miss", C.c_double),
    ]


class Progress(C.Structure):
    _fields_ = [
        ("iterations", C.c_int64),
        ("nodes", C.c_int64),
        ("rejected", C.c_int64),
        ("solutions", C.c_int),
        ("elapsed", C.c_double),
    ]


PROGRESS_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(Progress))


class SimulateDef(C.Structure):
    _fields_ = [
        ("size", C.c_size_t),
        ("steps", C.c_int),
        ("controls", C.POINTER(C.c_double)),
        ("trajectory", C.POINTER(C.c_double)),
        ("motor_targets", C.POINTER(C.c_double)),
    ]


class _DlInfo(C.Structure):
    _fields_ = [("fname", C.c_char_p), ("fbase", C.c_void_p), ("sname", C.c_char_p), ("saddr", C.c_void_p)]


vp, cp, ip = C.c_void_p, C.c_char_p, C.c_int
E = C.POINTER(Error)
DP = C.POINTER(C.c_double)
PROTOTYPES = [
    ("tplan_version", cp, []),
    ("tplan_version_number", ip, []),
    ("tplan_code_name", cp, [ip]),
    ("tplan_free", None, [vp]),
    ("tplan_run_def_init_", None, [C.POINTER(RunDef), C.c_size_t]),
    ("tplan_run_def_check", ip, [C.POINTER(RunDef), E]),
    ("tplan_domain_load_file", vp, [cp, C.POINTER(Param), ip, C.POINTER(RunDef), E]),
    ("tplan_domain_load_string", vp, [cp, cp, C.c_size_t, C.POINTER(Param), ip, C.POINTER(RunDef), E]),
    ("tplan_domain_free", None, [vp]),
    ("tplan_domain_name", cp, [vp]),
    ("tplan_domain_body_count", ip, [vp]),
    ("tplan_domain_body_name", cp, [vp, ip]),
    ("tplan_domain_params_json", cp, [vp]),
    ("tplan_domain_warning_count", ip, [vp]),
    ("tplan_domain_warning", cp, [vp, ip]),
    ("tplan_domain_control_count", ip, [vp]),
    ("tplan_domain_control_body", ip, [vp, ip]),
    ("tplan_plan_progress", vp, [vp, C.POINTER(RunDef), PROGRESS_FN, vp, C.c_double, E]),
    ("tplan_result_free", None, [vp]),
    ("tplan_result_status", ip, [vp]),
    ("tplan_result_steps", ip, [vp]),
    ("tplan_result_dt", C.c_double, [vp]),
    ("tplan_result_body_count", ip, [vp]),
    ("tplan_result_body_name", cp, [vp, ip]),
    ("tplan_result_body_index", ip, [vp, cp]),
    ("tplan_result_states", DP, [vp, ip, C.POINTER(ip)]),
    ("tplan_result_controls", DP, [vp, ip]),
    ("tplan_result_control", ip, [vp, ip, DP]),
    ("tplan_result_motor_count", ip, [vp]),
    ("tplan_result_motor_joint", cp, [vp, ip, C.POINTER(ip)]),
    ("tplan_result_motor_targets", DP, [vp]),
    ("tplan_result_iterations", C.c_int64, [vp]),
    ("tplan_result_nodes", C.c_int64, [vp]),
    ("tplan_result_solutions", ip, [vp]),
    ("tplan_result_seconds", C.c_double, [vp]),
    ("tplan_result_plan", C.c_void_p, [vp, C.POINTER(C.c_size_t)]),
    ("tplan_result_write_plan", ip, [vp, cp, E]),
    ("tplan_state_new", vp, [vp, E]),
    ("tplan_state_copy", vp, [vp]),
    ("tplan_state_free", None, [vp]),
    ("tplan_state_from_json", vp, [vp, cp, C.c_size_t, E]),
    ("tplan_state_to_json", C.c_void_p, [vp]),
    ("tplan_state_domain", cp, [vp]),
    ("tplan_state_time", C.c_double, [vp]),
    ("tplan_state_set_time", ip, [vp, C.c_double, E]),
    ("tplan_state_body_count", ip, [vp]),
    ("tplan_state_body_name", cp, [vp, ip]),
    ("tplan_state_body_index", ip, [vp, cp]),
    ("tplan_state_get_body", ip, [vp, cp, DP, C.POINTER(ip), E]),
    ("tplan_state_set_body", ip, [vp, cp, DP, ip, E]),
    ("tplan_state_tactic_count", ip, [vp]),
    ("tplan_state_tactic_name", cp, [vp, ip]),
    ("tplan_state_get_tactic", ip, [vp, cp, C.POINTER(ip), C.POINTER(ip), C.POINTER(ip), DP, C.POINTER(ip), E]),
    ("tplan_state_set_tactic", ip, [vp, cp, ip, ip, ip, DP, ip, E]),
    ("tplan_state_memory_count", ip, [vp]),
    ("tplan_state_memory", C.POINTER(C.c_int32), [vp]),
    ("tplan_state_set_memory", ip, [vp, C.POINTER(C.c_int32), ip, E]),
    ("tplan_state_clear_tactics", None, [vp]),
    ("tplan_result_state", vp, [vp, vp, ip, E]),
    ("tplan_state_from_plan", vp, [vp, cp, C.c_size_t, ip, ip, E]),
    ("tplan_state_from_plan_tactics", vp, [vp, cp, C.c_size_t, ip, ip, E]),
    ("tplan_domain_motor_count", ip, [vp]),
    ("tplan_domain_motor_joint", cp, [vp, ip, C.POINTER(ip)]),
    ("tplan_simulate_def_init_", None, [C.POINTER(SimulateDef), C.c_size_t]),
    ("tplan_simulate", ip, [vp, vp, C.POINTER(SimulateDef), E]),
    ("tplan_replay", ip, [vp, cp, C.c_size_t, E]),
    ("tplan_worlds", vp, [cp, C.c_size_t, cp, cp, C.POINTER(C.c_size_t), E]),
    ("tplan_search_new", vp, [vp, C.POINTER(RunDef), vp, E]),
    ("tplan_search_free", None, [vp]),
    ("tplan_search_run", ip, [vp, C.c_double, E]),
    ("tplan_search_run_iterations", ip, [vp, C.c_int64, E]),
    ("tplan_search_take_best", vp, [vp]),
    ("tplan_search_done", ip, [vp]),
    ("tplan_search_cancel", None, [vp]),
    ("tplan_search_reroot", ip, [vp, vp, C.c_double, C.POINTER(C.c_int64), E]),
]


def _candidates():
    """Where libtplan is looked for, in order (docs/python.md, Finding libtplan)."""
    env = os.environ.get("TPLAN_LIBRARY")
    if env:
        return [("TPLAN_LIBRARY", env)]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [("package", os.path.join(here, SONAME))]
    # a source tree: python/tplan/ beside the Makefile's build/ (make build)
    tree = os.path.dirname(os.path.dirname(here))
    if os.path.isfile(os.path.join(tree, "api", "include", "tplan", "tplan.h")):
        out.append(("tree", os.path.join(tree, "build", SONAME)))
    # an installed package: PREFIX/lib/python3/dist-packages/tplan beside PREFIX/lib/libtplan.so.0
    # (cmake --install; the Debian package's /usr/lib/... is the loader's anyway)
    parts = here.split(os.sep)
    if parts[-4:-1] == ["lib", "python3", "dist-packages"]:
        out.append(("prefix", os.path.join(os.sep.join(parts[:-3]), SONAME)))
    out.append(("system", SONAME))
    return out


def _open():
    tried = []
    for where, path in _candidates():
        if where != "system" and where != "TPLAN_LIBRARY" and not os.path.isfile(path):
            tried.append("%s (%s): no such file" % (path, where))
            continue
        try:
            # CDLL, not PyDLL: every foreign call releases the GIL (see docs/python.md)
            return C.CDLL(path), where
        except OSError as e:
            tried.append("%s (%s): %s" % (path, where, e))
    raise ImportError("tplan: cannot load libtplan: " + "; ".join(tried))


def _bind(lib):
    for name, res, args in PROTOTYPES:
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


lib, found_by = _open()
_bind(lib)
if lib.tplan_version_number() // 10000 != MAJOR:
    raise ImportError(
        "tplan: the library loaded is libtplan %s, this binding needs major version %d"
        % (lib.tplan_version().decode(), MAJOR)
    )


def library_path():
    """The file the library was loaded from (dladdr of tplan_version)."""
    info = _DlInfo()
    libc = C.CDLL(None)
    addr = C.cast(lib.tplan_version, C.c_void_p)
    if libc.dladdr(addr, C.byref(info)) and info.fname:
        return os.path.realpath(info.fname.decode())
    return None


def take_string(ptr):
    """The library's malloc'd NUL-terminated string as bytes, freed with tplan_free."""
    if not ptr:
        return None
    try:
        return C.string_at(ptr)
    finally:
        lib.tplan_free(ptr)
