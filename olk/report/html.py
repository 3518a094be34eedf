"""``olk report`` as HTML: the report's Markdown converted to one self-contained page.

Python-Markdown (``markdown``: pipe tables, fenced code, heading ids as GitHub makes them) does the
conversion; :class:`_ReportExtension` embeds local figures as base64 data URIs, marks table alignment with CSS
classes and drops HTML comments (the "generated" marker, comments in notes) from the body.
"""
from __future__ import annotations

import base64
import html as _html
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import markdown
from markdown.extensions import Extension
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor

from olk.report.markdown import GENERATED

_CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;line-height:1.45;color:#222}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em;display:block;overflow-x:auto}
th,td{border:1px solid #ccc;padding:.25em .5em}th{background:#f3f3f3}
td.r,th.r{text-align:right}td.c,th.c{text-align:center}
code{background:#f4f4f4;padding:0 .2em;border-radius:3px}
pre{background:#f4f4f4;padding:.6em;overflow-x:auto}pre code{padding:0}
blockquote{border-left:4px solid #e0a800;margin:.6em 0;padding:.2em .8em;background:#fffbea}
img{max-width:100%;height:auto}h2{border-bottom:1px solid #ddd;margin-top:2em}
"""


_MIME = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
         ".svg": "image/svg+xml"}
_ALIGN_CLASS = {"right": "r", "center": "c"}


def markdown_to_html(text: str, base_dir: str | Path = ".", title: str = "") -> str:
    """A self-contained HTML page from Markdown (Python-Markdown with pipe tables, fenced code and heading
    ids); local PNG/JPEG/GIF/SVG images, relative to ``base_dir``, are embedded as base64 data URIs."""
    md = markdown.Markdown(
        extensions=["tables", "fenced_code", "toc", _ReportExtension(base_dir=str(base_dir))],
        extension_configs={"toc": {"slugify": _slug}},
        tab_length=2,  # GitHub-style lists: items nested by two spaces are sub-lists
        output_format="html")
    body = md.convert(text)
    return ("<!DOCTYPE html>\n" + GENERATED + "\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{_html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
            + body + "\n</body>\n</html>\n")


def _slug(value: str, separator: str) -> str:
    """Heading id as GitHub makes it (lower case, punctuation dropped, spaces to hyphens), so links written
    for the Markdown also work in the HTML."""
    return re.sub(r"[^\w\- ]", "", value.lower()).strip().replace(" ", separator) or "section"


def _image_src(src: str, base: Path) -> str:
    if re.match(r"^[a-z][a-z0-9+.-]*:", src, re.I) or src.startswith(("/", "#")):
        return src
    f = base / unquote(src)
    mime = _MIME.get(f.suffix.lower())
    if mime and f.is_file():
        return f"data:{mime};base64," + base64.b64encode(f.read_bytes()).decode("ascii")
    return src


class _ReportTweaks(Treeprocessor):
    """Embed local images, mark table alignment with the CSS classes ``r``/``c``, and read ``\\|`` inside a
    code span of a table cell as ``|`` (as GFM does: the escape only keeps the pipe from splitting the cell)."""

    def __init__(self, md: markdown.Markdown, base: Path):
        super().__init__(md)
        self.base = base

    def run(self, root: Any) -> None:
        for el in root.iter():
            if el.tag == "img" and el.get("src"):
                el.set("src", _image_src(el.get("src"), self.base))
            elif el.tag in ("td", "th"):
                m = re.match(r"text-align:\s*(\w+)", el.attrib.pop("style", ""))
                if m and m.group(1) in _ALIGN_CLASS:
                    el.set("class", _ALIGN_CLASS[m.group(1)])
                for code in el.iter("code"):
                    if code.text and "\\|" in code.text:
                        code.text = type(code.text)(code.text.replace("\\|", "|"))  # keep AtomicString


class _DropComments(Postprocessor):
    """Leave HTML comments (the GENERATED marker, comments in notes) out of the body."""

    def run(self, text: str) -> str:
        stash = self.md.htmlStash
        for i, raw in enumerate(stash.rawHtmlBlocks):
            if re.fullmatch(r"\s*<!--(?:(?!-->).)*-->\s*", str(raw), re.S):
                ph = stash.get_placeholder(i)
                text = text.replace(f"<p>{ph}</p>\n", "").replace(f"<p>{ph}</p>", "").replace(ph, "")
        return text


class _ReportExtension(Extension):
    def __init__(self, **kwargs: Any):
        self.config = {"base_dir": [".", "directory relative image paths start from"]}
        super().__init__(**kwargs)

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        # md_escape writes \< (and notes may write \~): Python-Markdown does not treat them as escapes by default
        md.ESCAPED_CHARS.extend(c for c in "<~|" if c not in md.ESCAPED_CHARS)
        # after inline parsing (20) and unescaping (0), so src and style hold their final values
        md.treeprocessors.register(_ReportTweaks(md, Path(self.getConfig("base_dir"))), "olk_report", -10)
        md.postprocessors.register(_DropComments(md), "olk_drop_comments", 35)  # before raw_html (30)
