"""User-facing errors.

Every problem caused by user input (a data file, a YAML config, a CLI option) is raised as
:class:`OlkError` (or a subclass) with a one-line message that names the file/line/key and says
how to fix it.  The CLI prints ``olk: error: <message>`` and exits with status 2, never a traceback.
"""
from __future__ import annotations

import difflib
from typing import Iterable


class OlkError(Exception):
    """An error in user input, reported to the user as one line."""

    def __init__(self, message: str):
        # keep it to one line whatever the caller passed
        super().__init__(" ".join(str(message).split()))


class DataError(OlkError):
    """Malformed, missing or inconsistent dataset."""


class ConfigError(OlkError):
    """Invalid experiment configuration or parameter."""


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return ' (did you mean 'x'?)' for the closest of `choices`, or '' if none is close."""
    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=0.5)
    return f" (did you mean '{close[0]}'?)" if close else ""
