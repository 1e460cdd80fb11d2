"""tplan.Error and its subclasses: one per tplan_code (tplan/tplan.h), with the code and the field."""


class Error(Exception):
    """A libtplan failure: code (the tplan_code's number), code_name ("TPLAN_ERR_ARGUMENT"),
    field (the argument or state field at fault, "" when none) and message (one line)."""

    code = 0
    code_name = "TPLAN_OK"

    def __init__(self, message, field="", code=None):
        super().__init__(message)
        self.message = message
        self.field = field
        if code is not None and code != type(self).code:
            self.code = code  # a number this binding does not know (UnknownCodeError)

    def __str__(self):
        return self.message


class ArgumentError(Error, ValueError):
    """TPLAN_ERR_ARGUMENT: a bad argument, run definition field, state or control (field names it)."""

    code, code_name = 1, "TPLAN_ERR_ARGUMENT"


class OutOfMemoryError(Error, MemoryError):
    code, code_name = 2, "TPLAN_ERR_NOMEM"


class FileError(Error):
    """TPLAN_ERR_IO: a file that cannot be read or written."""

    code, code_name = 3, "TPLAN_ERR_IO"


class ScriptError(Error):
    """TPLAN_ERR_SCRIPT: the domain script failed (the message starts with "file:line:")."""

    code, code_name = 4, "TPLAN_ERR_SCRIPT"


class LimitError(Error):
    """TPLAN_ERR_LIMIT: the script exceeded its memory or time limit."""

    code, code_name = 5, "TPLAN_ERR_LIMIT"


class PlanFileError(Error):
    """TPLAN_ERR_PLAN_FILE: bytes that are no valid plan file, or a plan of another domain."""

    code, code_name = 6, "TPLAN_ERR_PLAN_FILE"


class MismatchError(Error):
    """TPLAN_ERR_MISMATCH: a replay's state differs from the recording, or the goal fails."""

    code, code_name = 7, "TPLAN_ERR_MISMATCH"


class UnsupportedError(Error):
    """TPLAN_ERR_UNSUPPORTED: asked for what the library does not do (jobs > 1)."""

    code, code_name = 8, "TPLAN_ERR_UNSUPPORTED"


class InternalError(Error):
    """TPLAN_ERR_INTERNAL: a bug in tplan; please report the message."""

    code, code_name = 9, "TPLAN_ERR_INTERNAL"


class UnknownCodeError(Error):
    """A code this binding does not know (a newer library)."""

    code, code_name = -1, "TPLAN_ERR_UNKNOWN"


BY_CODE = {
    cls.code: cls
    for cls in (
        ArgumentError,
        OutOfMemoryError,
        FileError,
        ScriptError,
        LimitError,
        PlanFileError,
        MismatchError,
        UnsupportedError,
        InternalError,
    )
}


def from_code(code, message, field=""):
    """The exception for a tplan_code."""
    cls = BY_CODE.get(code, UnknownCodeError)
    return cls(message, field, code)
