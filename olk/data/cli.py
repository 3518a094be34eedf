"""`olk datasets ...`: list, verify, fetch and describe the registry's datasets."""
from __future__ import annotations

import functools
from pathlib import Path

import click

from olk.data.checksum import expected_sha256, file_sha256
from olk.data.fetch import fetch_dataset
from olk.data.registry import get_registry
from olk.data.search import find_file, search_path
from olk.errors import OlkError
from olk.paths import cli_path
from olk.units import fmt


def _one_line_errors(fn):
    """Report OlkError as a one-line click error (exit status 1), never a traceback."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except OlkError as e:
            raise click.ClickException(str(e)) from None
    return wrapper


def _data_dir(ctx):
    return list(ctx.obj.get("data_dir") or []) or None if ctx.obj else None


@click.group("datasets")
@click.option("--data-dir", multiple=True, type=cli_path(file_okay=False),
              help="Extra data directory searched after $OLK_DATA (repeatable).")
@click.pass_context
def datasets(ctx, data_dir):
    """List, verify, fetch and describe the registered datasets."""
    ctx.ensure_object(dict)
    ctx.obj["data_dir"] = list(data_dir)


@datasets.command("list")
@click.pass_context
@_one_line_errors
def list_cmd(ctx):
    """One line per dataset: task, rows x features, where it is, size on disk, offline availability."""
    reg, dd = get_registry(), _data_dir(ctx)
    rows = [("name", "task", "rows x features", "status", "size", "offline", "location")]
    for name, spec in reg.items():
        found = [find_file(f.path, dd) for _, f in spec.files()]
        default = [find_file(f.path, dd) for s in spec.default_split for f in spec.parts[s].files]
        n_found = sum(p is not None for p in found)
        status = ("present" if all(default) else "partial" if n_found else "missing")
        if status == "present" and n_found < len(found):
            status = f"present ({n_found}/{len(found)} files)"
        size = sum(p.stat().st_size for p in found if p is not None)
        where = str(Path(next(p for p in found if p is not None)).parent) if n_found else "-"
        total = spec.rows()
        shape = f"{total if total is not None else '?'} x {spec.n_features}"
        rows.append((name, spec.task, shape, status, fmt(size) if n_found else "-",
                     "yes" if spec.offline else "no", where))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r[:-1], widths)) + "  " + r[-1])


@datasets.command("verify")
@click.argument("names", nargs=-1)
@click.pass_context
@_one_line_errors
def verify_cmd(ctx, names):
    """Check the sha256 of every present file (all datasets, or NAMES); exit status 1 on a mismatch."""
    reg, dd = get_registry(), _data_dir(ctx)
    specs = [reg.get_spec(n) for n in names] if names else list(reg.values())
    bad = checked = 0
    for spec in specs:
        for split, f in spec.files():
            label = f"{spec.name}/{split}{'/' + f.view if f.view else ''}"
            path = find_file(f.path, dd)
            if path is None:
                if names:
                    click.echo(f"MISSING   {label}: {f.path} not found (olk datasets fetch {spec.name})")
                continue
            expected = expected_sha256(f, path)
            actual = file_sha256(path, use_cache=False)
            checked += 1
            if not expected:
                click.echo(f"UNCHECKED {label}: {path} (no sha256 on record; sha256 {actual[:12]}...)")
            elif actual in expected:
                click.echo(f"OK        {label}: {path}")
            else:
                bad += 1
                click.echo(f"MISMATCH  {label}: {path}: expected {(f.sha256 or next(iter(expected)))[:12]}..., "
                           f"got {actual[:12]}...")
    if bad:
        raise click.ClickException(f"{bad} of {checked} file(s) failed sha256 verification: re-fetch them with "
                                   f"`olk datasets fetch NAME --force`")
    click.echo(f"{checked} file(s) checked, all OK" if checked else "no dataset files found in the search path")


@datasets.command("fetch")
@click.argument("name")
@click.option("--dest", type=cli_path(file_okay=False), help="Directory to store into (default: first writable "
              "directory of the search path).")
@click.option("--url", help="Download from this URL instead of the registry's (one file: see --split).")
@click.option("--split", help="Fetch only this split.")
@click.option("--force", is_flag=True, help="Download again even if the file is present.")
@click.pass_context
@_one_line_errors
def fetch_cmd(ctx, name, dest, url, split, force):
    """Download NAME's files from the registry URL (verified against its sha256)."""
    fetch_dataset(name, dest=dest, url=url, split=split, force=force, data_dir=_data_dir(ctx), progress=click.echo)


@datasets.command("info")
@click.argument("name")
@click.pass_context
@_one_line_errors
def info_cmd(ctx, name):
    """Describe NAME: source, papers, splits, files (and where they are), default preprocessing."""
    spec, dd = get_registry().get_spec(name), _data_dir(ctx)
    click.echo(f"{spec.name}: {spec.description}")
    click.echo(f"  task {spec.task}, {spec.rows() or '?'} x {spec.n_features} ({'+'.join(spec.default_split)}), "
               f"format {spec.format}, storage {spec.storage}, offline {'yes' if spec.offline else 'no'}")
    for p in spec.papers:
        click.echo(f"  paper: {p}")
    if spec.labels is not None:
        click.echo(f"  raw labels: {list(spec.labels)}")
    click.echo(f"  preprocess: {spec.preprocess or {}}")
    if spec.notes:
        click.echo(f"  notes: {spec.notes}")
    for split, f in spec.files():
        part = spec.parts[split]
        path = find_file(f.path, dd)
        rows = part.rows if part.rows is not None else "?"
        click.echo(f"  [{split}{'/' + f.view if f.view else ''}] {f.path}: rows {rows}"
                   f", sha256 {f.sha256[:12] + '...' if f.sha256 else 'unknown'}"
                   f"{'' if f.verbatim else ' (offline copy converted; upstream bytes differ)'}")
        click.echo(f"      url: {f.url or 'none (see notes)'}")
        click.echo(f"      {'found: ' + str(path) if path else 'missing (olk datasets fetch ' + spec.name + ')'}")
    if spec.homepage:
        click.echo(f"  homepage: {spec.homepage}")
    click.echo(f"  search path: {', '.join(str(d) for d in search_path(dd))}")


@click.group("cache")
def cache_group():
    """Show or empty olk's dataset cache (parsed arrays, capped at $OLK_CACHE_MAX)."""


@cache_group.command("info")
@_one_line_errors
def cache_info_cmd():
    """Where the cache is, its cap, and one line per entry (least recently used first)."""
    import time

    from olk.data import cache
    es = cache.entries()
    total = sum(e["bytes"] for e in es)
    cap, low = cache.max_bytes(), cache.min_bytes()     # a bad $OLK_CACHE_MAX / MIN: one line, before any output
    click.echo(f"cache: {cache.data_cache_dir()}")
    click.echo(f"  {len(es)} entr{'y' if len(es) == 1 else 'ies'}, {fmt(total)} of a {fmt(cap)} cap "
               f"($OLK_CACHE_MAX; least recently used entries are evicted first)")
    click.echo(f"  LIBSVM files under {fmt(low)} are not cached ($OLK_CACHE_MIN: reading one costs less than "
               f"caching it)" if low else "  every file is cached ($OLK_CACHE_MIN=0)")
    for e in es:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e["used"]))
        click.echo(f"  {e['key'][:12]}  {fmt(e['bytes']):>8}  used {when}  {e['what']}")


@cache_group.command("clear")
@_one_line_errors
def cache_clear_cmd():
    """Remove every cache entry (the next load of each dataset parses its file again)."""
    from olk.data import cache
    n, size = cache.clear()
    click.echo(f"olk: removed {n} cache entr{'y' if n == 1 else 'ies'} ({fmt(size)}) from {cache.data_cache_dir()}")
