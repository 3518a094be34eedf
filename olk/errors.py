"""User-facing errors.

Every problem caused by user input (a data file, a YAML config, a CLI option) is raised as
:class:`OlkError` (or a subclass) with a one-line message that names the file/line/key and says
how to fix it.  The CLI prints ``olk: error: <message>`` and exits with the error's ``exit_code`` (2 for bad
input, 130 for :class:`Interrupted`), never a traceback.
"""
from __future__ import annotations

import difflib
from typing import Iterable


class OlkError(Exception):
    """An error in user input, reported to the user as one line."""

    #: the CLI's exit status for this error
    exit_code = 2

    def __init__(self, message: str):
        # keep it to one line whatever the caller passed, and printable (a value quoted from a file may hold
        # control characters such as ESC: they are shown escaped, never sent raw to the terminal)
        super().__init__(_printable(" ".join(str(message).split())))


class DataError(OlkError, ValueError):
    """Malformed, missing or inconsistent dataset (also a ``ValueError``, as every user-input error is)."""


class ConfigError(OlkError, ValueError):
    """Invalid experiment configuration or parameter (also a ``ValueError``, as every user-input error is)."""


class Interrupted(OlkError):
    """The user interrupted a command (Ctrl-C / SIGINT); the message says what was saved and how to resume."""

    exit_code = 130


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def excerpt(content, limit: int = 40) -> str:
    """A short, printable quotation of file content for an error message, in single quotes: at most `limit`
    characters (then '...'), bytes decoded as UTF-8 with undecodable bytes shown as ``\\xNN`` and every
    non-printable character escaped, so raw binary never reaches the terminal: ``'+1 1:0.5 3-1'``,
    ``'\\x7fELF\\x02\\x01\\x01\\x00...'``."""
    if isinstance(content, (bytes, bytearray, memoryview)):
        content = bytes(content).decode("utf-8", "backslashreplace")
    text = str(content)
    cut = len(text) > limit
    return f"'{_printable(text[:limit])}{'...' if cut else ''}'"


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ' (did you mean 'x'?)' for the closest of `choices`, or '' if none is close."""
    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=0.5)
    return f" (did you mean '{close[0]}'?)" if close else ""
