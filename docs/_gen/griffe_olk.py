"""A Griffe extension for the API reference (mkdocs.yml, mkdocstrings' ``extensions``): olk's docstrings are
written for ``help()`` and doctest, so before mkdocstrings renders one, its ``>>>`` examples become fenced
``pycon`` blocks and its reST roles and ``literals`` Markdown code spans."""
from __future__ import annotations

import re

import griffe

_ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|data|attr|obj|exc):`~?([^`]+)`")


def markdown_docstring(text: str) -> str:
    text = re.sub(r"``([^`]+)``", r"`\1`", _ROLE.sub(r"`\1`", text))
    out, example = [], False
    for line in text.splitlines():
        starts = line.lstrip().startswith(">>>")
        if starts and not example:
            out += ["", "```pycon"]
            example = True
        elif example and not line.strip():
            out.append("```")
            example = False
        out.append(line.strip() if example else line)
    if example:
        out.append("```")
    return "\n".join(out)


class OlkDocstrings(griffe.Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_docstring(obj.docstring.value)
