"""The ``olk`` command line.

    olk run CONFIG [--n-jobs N] [--repeats R] [--datasets a,b] [--scale F] [--out DIR] [--resume]
    olk sweep CONFIG --set beta=5,10,20            (or --beta 5,10,20)
    olk table RESULTS_DIR --format md|csv|latex
    olk compare RESULTS_DIR / olk plot RESULTS_DIR
    olk algorithms / olk datasets list|verify|fetch|info
    olk train DATA --algorithm NAME [--kernel SPEC] [--set PARAM=VALUE ...] [--seed N] [--positive-label L] -o model.olk
    olk cache info|clear
    olk predict MODEL DATA|- [-o predictions.txt] [--proba]
    olk reproduce [CONFIG ...] [--n-jobs N] [--estimate]    (make reproduce-all)
    olk verify RESULTS_DIR [--sample N] [--seed S] [-j J]   (rerun its runs at this commit, compare bit for bit)

Every user-input problem prints one line ``olk: error: ...`` and exits with status 2.
"""
from __future__ import annotations

import importlib
import shlex
import sys

import click

from ._lazy import no_exit_collection, one_blas_thread
from ._version import __version__
from .errors import ConfigError, Interrupted, OlkError, excerpt
from .paths import cli_path

one_blas_thread()           # before anything imports numpy: no BLAS thread pool to start (olk's loops use one core)

# The CLI imports lazily: ``olk --help`` and ``olk algorithms`` load neither pandas, matplotlib, scikit-learn nor
# joblib, and each command imports what it needs when it runs.  These commands live in other modules and are
# imported on first use; ``olk --help`` lists them with the first line of their help, written down here
# (tests/test_startup.py checks it against the commands themselves).
_LAZY_COMMANDS = {
    "datasets": ("olk.data.cli", "datasets", "List, verify, fetch and describe the registered datasets."),
    "cache": ("olk.data.cli", "cache_group",
              "Show or empty olk's dataset cache (parsed arrays, capped at $OLK_CACHE_MAX)."),
    "table": ("olk.report.cli", "table_cmd", "Paper-style mean ± std table of RESULTS_DIR."),
    "compare": ("olk.report.cli", "compare_cmd", "Compare RESULTS_DIR with the published table it reproduces."),
    "plot": ("olk.report.cli", "plot_cmd",
             "Figures of RESULTS_DIR as PNG and PDF (default into RESULTS_DIR/figures/)."),
    "report": ("olk.report.cli", "report_cmd",
               "Reproduction report over every results directory: results/REPRODUCTION.md (+ .html)."),
    "stats": ("olk.report.cli", "stats_cmd",
              "Is a difference significant? Paired tests per dataset and ranks across datasets for RESULTS_DIR."),
}

def _command_line() -> str:
    return "olk " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def _csv_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def parse_set_options(items) -> dict[str, list]:
    """'beta=5,10,20' -> {'beta': [5.0, 10.0, 20.0]} (numbers parsed with YAML rules)."""
    import yaml

    from ._lazy import yaml_load
    out: dict[str, list] = {}
    for it in items or ():
        if "=" not in it or not it.split("=", 1)[0].strip():
            raise ConfigError(f"--set {it}: expected PARAM=V1,V2,... (e.g. --set beta=5,10,20 or --set spa.eta=0.1)")
        k, v = it.split("=", 1)
        vals = []
        for x in v.split(","):
            if x.strip() == "":
                continue
            try:
                vals.append(yaml_load(x))
            except yaml.YAMLError as e:
                if getattr(e, "olk_bound", False):      # beyond a limit of olk.limits: its own sentence
                    raise ConfigError(f"--set {k.strip()}: {e.problem}") from None
                raise ConfigError(f"--set {it}: {excerpt(x.strip())} is not a value; give numbers or words, "
                                  f"e.g. --set beta=5,10,20") from None
        if not vals:
            raise ConfigError(f"--set {it}: no values given")
        if k.strip() in out:                # the later one would silently replace the earlier
            raise ConfigError(f"--set {k.strip()}: given twice; give its values once, e.g. --set {k.strip()}=1,2")
        out[k.strip()] = vals
    return out


def _prepare(config, repeats, datasets, scale, sets, algorithms=None, sweep=False):
    """The config the command line asks for: parse the options here, plan the variant in olk.experiment.plan."""
    from .experiment import load_config, variant
    return variant(load_config(config), datasets=_csv_list(datasets), algorithms=_csv_list(algorithms),
                   repeats=repeats, scale=scale, sets=parse_set_options(sets), sweep=sweep)


def _finish(out, quiet):
    click.echo(f"olk: results in {out}", err=True)
    try:
        from .report.tables import render_table, write_tables
    except ImportError:  # pragma: no cover - reporting layer missing
        return
    write_tables(out)
    if not quiet:
        click.echo(render_table(out, fmt="md"))


def _progress(progress: bool | None, quiet: bool) -> bool | None:
    """--progress/--no-progress as given; otherwise none with --quiet, else a bar when stderr is a terminal."""
    return False if progress is None and quiet else progress


def _check_n_jobs(ctx, param, value):
    if value == 0:
        raise click.BadParameter("must be >= 1, or negative for all cores but n-1 (-1 = all cores)")
    return value


def run_options(f):
    opts = [
        click.option("--n-jobs", "-j", type=int, default=None, callback=_check_n_jobs,
                     help="Parallel runs (joblib; -1 = all cores); default from config."),
        click.option("--backend", type=click.Choice(["loky", "threading", "multiprocessing", "dask"]), default=None,
                     help="joblib backend; dask: a local Dask cluster of --n-jobs workers, or the cluster of "
                          "--scheduler (needs olk[distributed])."),
        click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Run on the workers of this dask.distributed scheduler (implies --backend dask)."),
        click.option("--memory-limit", default=None, metavar="SIZE",
                     help="Refuse runs whose estimated peak memory exceeds SIZE: 12G, 500M, 80% (of this machine's "
                          "memory) or 0 (no limit); default: the config's memory_limit, else 80%."),
        click.option("--repeats", "-r", type=int, default=None, help="Number of permutations (overrides the config)."),
        click.option("--datasets", "-d", default=None, help="Comma-separated subset of the config's datasets."),
        click.option("--algorithms", "-a", default=None,
                     help="Comma-separated subset of the config's algorithm labels (entries they match on are kept)."),
        click.option("--scale", type=float, default=None,
                     help="Use a reproducible fraction of each dataset (quick mode)."),
        click.option("--out", "-o", type=cli_path(file_okay=False), default=None, help="Results directory."),
        click.option("--resume", is_flag=True, help="Keep finished runs of this results directory and run the rest."),
        click.option("--force", is_flag=True, help="Discard existing runs in the results directory."),
        click.option("--rerun", default=None, metavar="LABELS",
                     help="With --resume: compute these algorithm entries (comma-separated labels) again under the "
                          "config's current settings, and the entries that match on them; the others' runs are kept "
                          "and their settings still checked. Earlier runs of these entries stay in runs.jsonl, out "
                          "of the tables. Same settings: their runs are computed again with this tree's code, except "
                          "runs a clean tree at this commit already computed."),
        click.option("--progress/--no-progress", default=None,
                     help="Progress bar (default: when stderr is a terminal)."),
        click.option("--quiet", "-q", is_flag=True,
                     help="Do not print the table, and no progress bar unless --progress is given."),
    ]
    for o in reversed(opts):
        f = o(f)
    return plugin_option(f)


def _interrupted(command: str | None) -> Interrupted:
    """The one-line report of a Ctrl-C that no inner layer turned into an Interrupted (with its own counts)."""
    if command in ("run", "sweep"):
        return Interrupted("interrupted: runs that finished before it are kept in the results directory "
                           "(runs.jsonl); rerun the same command with --resume to continue")
    if command == "regress":
        return Interrupted("interrupted: no baseline was changed unless --update had finished; rerun 'olk regress'")
    again = f"'olk {command} ...'" if command else "the command"
    return Interrupted(f"interrupted: nothing was saved half-written; rerun {again}")


def _out_of_memory(command: str | None, e: MemoryError) -> OlkError:
    """The one line of a MemoryError no check caught before (a file too large for the memory this process may use:
    olk train reads its data whole): what could not be allocated, what was kept, and what to do."""
    asked = " ".join(str(e).split())[:100]        # numpy: "Unable to allocate 30.5 MiB for an array with shape ..."
    kept = ("; runs that finished before it are kept (runs.jsonl): rerun with --resume" if command in ("run", "sweep")
            else "")
    return OlkError(f"out of memory in 'olk {command or ''}'{f' ({asked})' if asked else ''}: the input needs more "
                    f"memory than this process may use; free memory, raise the process's limit (ulimit -v) or give a "
                    f"smaller input{kept}")


def _command_of(args) -> str | None:
    """The subcommand named in a command line (its first word that is not an option)."""
    return next((a for a in args or () if not a.startswith("-")), None)


class _Group(click.Group):
    """The olk group: a Ctrl-C inside any command becomes :class:`Interrupted` (exit status 130, one line).

    The data and report commands (:data:`_LAZY_COMMANDS`) are imported only when they are run or asked for
    help, so ``import olk.cli`` and ``olk --help`` are quick (no pandas), and a Ctrl-C while one loads is
    reported like any other."""

    def get_command(self, ctx, cmd_name):
        if cmd_name not in self.commands and cmd_name in _LAZY_COMMANDS:
            module, attr, _ = _LAZY_COMMANDS[cmd_name]
            try:
                cmd = getattr(importlib.import_module(module), attr)
            except ImportError:  # pragma: no cover - layer not installed
                return None
            self.add_command(cmd, cmd_name)
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx), *_LAZY_COMMANDS})

    def format_commands(self, ctx, formatter):
        """click's listing, with the summary of a command not imported yet taken from :data:`_LAZY_COMMANDS`."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            if name in self.commands or name not in _LAZY_COMMANDS:
                cmd = self.get_command(ctx, name)
                if cmd is None or cmd.hidden:
                    continue
                rows.append((name, cmd.get_short_help_str(limit)))
            else:
                rows.append((name, click.Command(name, help=_LAZY_COMMANDS[name][2]).get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx, args):
        ctx.meta["olk.command"] = args[0] if args else None     # named in the report of a Ctrl-C while it loads
        return super().resolve_command(ctx, args)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _interrupted(ctx.invoked_subcommand or ctx.meta.get("olk.command")) from None


def _load_plugins(ctx, param, value):
    """--plugin MODULE (repeatable): import learners of the user's own before the command runs (relative to the
    working directory first; olk.algorithms.plugins)."""
    if value:
        from pathlib import Path

        from .algorithms.registry import load_plugin
        for spec in value:
            load_plugin(spec, Path.cwd(), where=f"--plugin {spec}")
    return value


def plugin_option(f):
    """--plugin on the group (``olk --plugin m run ...``) and on the commands that build learners."""
    return click.option("--plugin", "plugins", multiple=True, metavar="MODULE", callback=_load_plugins,
                        expose_value=False, is_eager=True,
                        help="Load learners of your own first: a module (mylearner for ./mylearner.py or the "
                             "folder ./mylearner/), a .py path or an installed module; MODULE:CLASS names one "
                             "class (repeatable). Installed packages with an 'olk.learners' entry point load "
                             "without it.")(f)


def _set_limits(ctx, param, value):
    if value:
        from .limits import set_limit
        for assignment in value:
            set_limit(assignment)
    return value


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="olk")
@click.option("--limit", "limits", multiple=True, metavar="NAME=VALUE", callback=_set_limits, expose_value=False,
              help="Raise (or lower) one of olk's input limits for this command, e.g. --limit line_bytes=64M "
                   "(repeatable; 0: no limit). The limits, their defaults and OLK_LIMIT_* variables: "
                   "docs/guide/limits.md.")
@plugin_option
def cli():
    """olk: online kernel learning, reproduced."""


@cli.command()
@click.argument("config", type=cli_path(dir_okay=False))
@run_options
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE",
              help="Set a parameter for every algorithm that has it (or LABEL.PARAM for one); repeatable.")
def run(config, n_jobs, backend, scheduler, memory_limit, repeats, datasets, algorithms, scale, out, resume, force,
        rerun, progress, quiet, sets):
    """Run the experiment described by CONFIG (a YAML file) and print its table."""
    from .experiment import Runner
    cfg = _prepare(config, repeats, datasets, scale, sets, algorithms)
    runner = Runner(cfg, out, n_jobs=n_jobs, backend=backend, resume=resume, force=force,
                    rerun=_labels(rerun), progress=_progress(progress, quiet), command=_command_line(),
                    log=lambda m: click.echo(m, err=True), memory_limit=memory_limit, scheduler=scheduler)
    _finish(runner.run(), quiet)


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("config", type=cli_path(dir_okay=False))
@run_options
@click.option("--set", "sets", multiple=True, metavar="PARAM=V1,V2,...",
              help="Values to sweep, e.g. --set beta=5,10,20 or --set spa.alpha=0.5,1; repeat for a grid.")
@click.pass_context
def sweep(ctx, config, n_jobs, backend, scheduler, memory_limit, repeats, datasets, algorithms, scale, out, resume,
          force, rerun, progress, quiet, sets):
    """Run CONFIG once per value (grid) of one or more parameters, into one results directory.

    Any parameter can also be given as an option of its own: --beta 5,10,20 is --set beta=5,10,20
    (and --spa.eta 0.1,1 is --set spa.eta=0.1,1)."""
    from .experiment import Runner
    options = _param_options(ctx.args)
    items = list(sets) + options
    if not items:
        raise ConfigError("olk sweep: nothing to sweep; give --set PARAM=V1,V2,... or e.g. --beta 5,10,20")
    try:
        cfg = _prepare(config, repeats, datasets, scale, items, algorithms, sweep=True)
    except ConfigError as e:            # name a parameter given as --PARAM the way it was typed, not as --set PARAM
        msg = str(e)
        for it in options:
            key = it.split("=", 1)[0].strip()
            if msg.startswith(f"--set {key}:"):
                raise ConfigError(f"--{key}{msg[len('--set ' + key):]}") from None
        raise
    runner = Runner(cfg, out, n_jobs=n_jobs, backend=backend, resume=resume, force=force,
                    rerun=_labels(rerun), progress=_progress(progress, quiet), command=_command_line(),
                    log=lambda m: click.echo(m, err=True), memory_limit=memory_limit, scheduler=scheduler)
    _finish(runner.run(), quiet)


def _labels(text: str | None) -> list[str]:
    """--rerun's comma-separated labels."""
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _param_options(args: list[str]) -> list[str]:
    """'--beta 5,10 --spa.eta=0.1,1' -> ['beta=5,10', 'spa.eta=0.1,1']: the parameters named as options."""
    out, i = [], 0
    while i < len(args):
        a = args[i]
        if not a.startswith("--") or len(a) < 3:
            raise ConfigError(f"olk sweep: unexpected argument {a!r}; give parameters as --PARAM V1,V2,... "
                              f"or --set PARAM=V1,V2,...")
        name, eq, val = a[2:].partition("=")
        if not eq:
            if i + 1 >= len(args) or args[i + 1].startswith("--"):
                raise ConfigError(f"olk sweep: {a} needs values, e.g. {a} 5,10,20")
            val, i = args[i + 1], i + 1
        out.append(f"{name}={val}")
        i += 1
    return out


@cli.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=cli_path(file_okay=False))
@click.option("--sample", type=click.IntRange(min=1), default=None, metavar="N",
              help="Check N runs instead of all: the N whose SHA-256 of '<seed>:<run_id>' is smallest (the same N "
                   "for the same --seed on any machine). The tuning runs and the main runs a sampled run is planned "
                   "from (its tuned parameters, a match:ed budget) are taken from the directory's records, as a "
                   "resume takes them, and computed again only when the directory lacks them.")
@click.option("--seed", type=int, default=0, show_default=True, help="The seed of --sample.")
@click.option("--n-jobs", "-j", type=int, default=None, callback=_check_n_jobs,
              help="Parallel runs (joblib; -1 = all cores); default from the config.")
@click.option("--memory-limit", default=None, metavar="SIZE",
              help="Refuse runs whose estimated peak memory exceeds SIZE, as olk run does (12G, 500M, 80%, 0).")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: when stderr is a terminal).")
@plugin_option
def verify(results_dir, sample, seed, n_jobs, memory_limit, progress):
    """Rerun RESULTS_DIR's runs at this commit and compare them with its records, bit for bit.

    The runs are rebuilt from the config RESULTS_DIR/experiment.json names, with the directory's datasets, entries,
    scale, repeats and the --set values of its recorded command, through olk run --resume's planner; they are
    computed in a temporary directory (RESULTS_DIR/runs.jsonl is never written). Every field of each rerun record
    but the timings (time_s, *_time_s) and the provenance (commit, dirty, commit_from) must equal the recorded one:
    floats bit for bit, learning curves included. Prints one line per differing run and a summary, and appends the
    result to RESULTS_DIR/verified.json. Exit status 0 when every run checked is identical, 1 when some differ, 2
    for bad input. A verification at a tree with uncommitted changes is recorded as such (dirty: true)."""
    from pathlib import Path

    from .experiment.verify import verify as do_verify
    from .fileio import read_json_object
    meta = read_json_object(Path(results_dir) / "experiment.json", "is it a results directory olk run wrote?") or {}
    found = do_verify(results_dir, options=recorded_options(meta.get("command"), Path(results_dir)), sample=sample,
                      seed=seed, n_jobs=n_jobs, memory_limit=memory_limit, command=_command_line(),
                      progress=progress, log=lambda m: click.echo(m, err=True))
    for line in found.lines:
        click.echo(line)
    if not found.ok:
        sys.exit(1)


def recorded_options(command, directory):
    """The --set values (a grid with olk sweep) of the olk run / olk sweep command line experiment.json recorded,
    parsed by those commands' own options (:class:`olk.experiment.verify.RecordedOptions`)."""
    from .experiment.verify import RecordedOptions
    if command is None:
        return RecordedOptions()
    where = f"{directory / 'experiment.json'}: its command"
    try:
        words = shlex.split(str(command))
    except ValueError as e:
        raise OlkError(f"{where} cannot be split into words ({e}); is it a results directory olk run wrote?") from None
    i = 1
    while i < len(words) and words[i].startswith("-"):      # olk's own options: --plugin M, --limit N=V
        i += 1 if "=" in words[i] or words[i] in ("-h", "--help", "--version") else 2
    if i >= len(words) or words[i] not in ("run", "sweep"):
        return RecordedOptions()
    name = words[i]
    try:
        ctx = cli.commands[name].make_context(name, words[i + 1:], resilient_parsing=True)
    except click.ClickException as e:
        raise OlkError(f"{where} is not an olk {name} command line olk reads ({' '.join(e.format_message().split())})"
                       f"; is it a results directory olk run wrote?") from None
    items = list(ctx.params.get("sets") or ())
    if name == "sweep":
        items += _param_options(ctx.args)
    return RecordedOptions(sets=parse_set_options(items), sweep=name == "sweep")


@cli.command()
@click.argument("names", nargs=-1)
@plugin_option
def algorithms(names):
    """List the registered algorithms, their classes and their parameters.

    Per learner: its registry id, display name and first docstring line; its origin (built-in, an installed
    package's entry point, a plugin module); its classes (the learner class, and the scikit-learn class of
    olk.estimators and the River class of olk.river, which share one name); its parameters."""
    from .algorithms import registry
    from .algorithms.surface import surface_class_name
    avail = registry.available()
    for n in names:
        registry.resolve_name(n)
    for name in (registry.resolve_name(n) for n in names) if names else avail:
        cls = registry.REGISTRY[name]
        doc = ((cls.__doc__ or "").strip().splitlines() or [cls.display])[0]
        click.echo(f"{name:<14} {cls.display:<14} {doc}")
        surface = surface_class_name(cls)
        river = "none (batch)" if cls.batch else f"olk.river.{surface}"
        click.echo(f"    origin: {registry.origin(name).text()}")
        click.echo(f"    classes: learner {cls.__module__}.{cls.__qualname__} | scikit-learn olk.estimators.{surface}"
                   f" | River {river}")
        for p in cls.params:
            extra = (f" (one of {', '.join(p.choices)})" if p.choices else
                     f" ({p.requirement})" if p.requirement else "")
            click.echo(f"    {p.name:<10} default {p.default!r:<8} {p.doc}{extra}")


@cli.command("check-learner")
@click.argument("target", metavar="TARGET")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE",
              help="A parameter of the learner for the checks (default: its defaults, budget 20); repeatable.")
@click.option("--skip", default=None, metavar="CHECK,...",
              help="Checks to leave out: declarations, contract, determinism, stretches, save_load, pickle, sklearn, "
                   "river.")
@click.option("--seed", type=int, default=0, show_default=True, help="random_state of the learners checked.")
@plugin_option
def check_learner_cmd(target, sets, skip, seed):
    """Run olk's learner contract on TARGET: MODULE:CLASS, a module (one learner), or a registry name.

    Prints one line per check (ok / FAIL and what differs); a failed check ends in one error line (exit status 2).
    The same checks as olk.testing.check_learner() in your tests: determinism, stretches = single steps, save/load
    round trip, pickle, scikit-learn's and River's own estimator checks."""
    from .testing import run_checks
    params = {}
    for key, vals in parse_set_options(sets).items():
        if len(vals) != 1:
            raise ConfigError(f"--set {key}: one value (got {len(vals)})")
        params[key] = vals[0]
    report = run_checks(target, params, skip=tuple(_csv_list(skip) or ()), seed=seed)
    for line in report.lines():
        click.echo(line)
    n_bad = len(report.failures)
    if n_bad:
        raise OlkError(f"{report.learner} fails {n_bad} of the {len(report.results)} checks of the learner contract "
                       f"(the FAIL lines above)")
    click.echo(f"olk: {report.learner}: all {len(report.results)} checks of the learner contract passed", err=True)


@cli.command()
@click.argument("data", type=cli_path())
@click.option("--algorithm", "-a", required=True, metavar="NAME", help="The learner (see 'olk algorithms').")
@click.option("--kernel", "-k", default=None, metavar="SPEC",
              help="A kernel type or preset (gaussian, linear, polynomial, chi2, spa16), or JSON/YAML such as "
                   "'{\"type\": \"gaussian\", \"gamma\": 0.4}' or a list of them (default: gaussian, gamma 1).")
@click.option("--set", "sets", multiple=True, metavar="PARAM=VALUE",
              help="A parameter of the learner, e.g. --set beta=20; repeatable.")
@click.option("--seed", type=int, default=0, show_default=True, help="random_state of a stochastic learner.")
@click.option("--shuffle", type=click.IntRange(min=0), default=None, metavar="SEED",
              help="Present the rows in a seeded random order: permutation 0 of 'olk run' with seed SEED for "
                   "this DATA name (default: file order).")
@click.option("--output", "-o", "out", required=True, type=cli_path(dir_okay=False), metavar="MODEL",
              help="The model file to write (olk's .npz model format, see olk.persist).")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar and no summary line (the bar is shown only when stderr is a terminal).")
@click.option("--positive-label", default=None, metavar="L",
              help="The label that is the positive class (default: the larger of two); with more than two labels, "
                   "learn L against the rest.")
@click.option("--chunk", default=None, metavar="SIZE",
              help="Bytes of text a streamed train reads and learns at a time (default 4M): memory holds one chunk "
                   "and its rows, whatever the file's size.")
@click.option("--in-memory", is_flag=True,
              help="Load the whole file first instead of streaming it (the same model; memory grows with the file).")
@plugin_option
def train(data, algorithm, kernel, sets, seed, shuffle, out, quiet, positive_label, chunk, in_memory):
    """Train a learner on DATA and save the model (like LIBSVM's svm-train).

    DATA is a registry dataset (see 'olk datasets list'), a LIBSVM file (plain, .gz, .bz2 or .xz) or '-' (LIBSVM
    lines on standard input).  An online learner makes one pass over the rows in file order; on a file (or '-') it
    streams: the rows are learned as they are parsed, in memory bounded by --chunk and the model (the same model as
    loading the file whole), in one read where the first chunk tells the storage and the classes, else after a
    first read of the rows and labels.  --shuffle SEED (a seeded random
    order), a registry dataset and a batch learner load the data whole.  On a terminal, a progress bar.  A
    classifier learns the file's two labels as they are (0/1, 2/4, ...) and olk predict prints them."""
    from .algorithms import registry
    from .application import train as do_train
    cls = registry.get(algorithm, "--algorithm")
    do_train(data, cls.name, kernel=_kernel_option(kernel), params=_train_params(cls.name, sets), seed=seed,
             shuffle=shuffle, out=out, positive_label=positive_label, quiet=quiet, chunk=_chunk_option(chunk),
             in_memory=in_memory, log=lambda m: click.echo(m, err=True))


def _chunk_option(text: str | None) -> int | None:
    """--chunk SIZE of 'olk train' / 'olk predict': a positive size (4M, 512K), None for the default."""
    if text is None:
        return None
    from .units import parse_size
    size = parse_size(text, "--chunk", zero="not allowed")
    if size < 1:
        raise ConfigError(f"--chunk: must be a positive size such as 4M or 512K, got {text!r}")
    return size


def _train_params(name: str, sets) -> dict:
    """The --set PARAM=VALUE options of 'olk train', parsed like 'olk run' --set and checked by the registry."""
    if not sets:
        return {}                   # no need to import the experiment package (start-up)
    from .experiment.config import algorithm_params
    params = {}
    for key, vals in parse_set_options(sets).items():
        if len(vals) != 1:
            raise ConfigError(f"--set {key}: 'olk train' takes one value (got {len(vals)})")
        params.update(algorithm_params(name, {key: vals[0]}, f"--set {key}", allow_match=False,
                                   value_where=f"--set {key}"))
    return params


def _kernel_option(text: str | None):
    """--kernel: a kernel type or preset name, or a JSON/YAML mapping (or list of them), checked here."""
    if text is None:
        return None
    import yaml

    from ._lazy import yaml_load
    from .kernels import kernel_spec
    try:
        spec = yaml_load(text)
    except yaml.YAMLError as e:
        why = " ".join(str(getattr(e, "problem", "") or "").split())
        raise ConfigError(f"--kernel {excerpt(text)}: not a kernel{f' ({why})' if why else ''}; give a name (gaussian, "
                          f"spa16) or JSON such as '{{\"type\": \"gaussian\", \"gamma\": 0.4}}'") from None
    kernel_spec(spec, "--kernel")
    return spec


@cli.command()
@click.argument("model", type=cli_path(dir_okay=False))
@click.argument("data", type=cli_path())
@click.option("--output", "-o", "out", type=cli_path(dir_okay=False), default=None,
              help="Write the predictions to this file (default: standard output).")
@click.option("--proba", is_flag=True,
              help="Also write the probability of each class (learners with predict_proba only).")
@click.option("--quiet", "-q", is_flag=True,
              help="No progress bar and no accuracy line (the bar is shown only when stderr is a terminal).")
@click.option("--chunk", default=None, metavar="SIZE",
              help="Bytes of text of a file read and predicted at a time (default 4M).")
@plugin_option
def predict(model, data, out, proba, quiet, chunk):
    """Predict every row of DATA with a saved MODEL (like LIBSVM's svm-predict).

    DATA is a LIBSVM file (streamed in chunks of --chunk bytes), '-' for LIBSVM lines on standard input
    (streamed in chunks of lines), or a registry dataset (loaded whole): predictions are written as they come,
    in memory bounded by a chunk and the model.  Writes one line per row: the predicted label (the model's own
    labels; with --proba: then P(class) for each of the model's two classes, in that order), and prints the
    accuracy (the MSE for a regression model) to standard error.  On a terminal, a progress bar."""
    from .application import predict as do_predict
    do_predict(model, data, out=out, proba=proba, quiet=quiet, chunk=_chunk_option(chunk),
               write=lambda text: click.echo(text, nl=False), log=lambda m: click.echo(m, err=True))


@cli.command()
@click.option("--update", is_flag=True, help="Rewrite the baselines from this run (deliberate change).")
@click.option("--configs", "config_dir", type=cli_path(file_okay=False), default=None,
              help="Directory of regression configs (default configs/ci).")
@click.option("--baselines", "baseline_dir", type=cli_path(file_okay=False), default=None,
              help="Directory of baselines (default tests/baselines).")
@click.option("--n-jobs", "-j", type=int, default=1)
def regress(update, config_dir, baseline_dir, n_jobs):
    """Rerun the quick CI configs and fail if any metric moved beyond tolerance."""
    from .experiment.regress import regress as do_regress
    reports = do_regress(config_dir, baseline_dir, update=update, n_jobs=n_jobs, log=lambda m: click.echo(m, err=True))
    bad = [r for r in reports if not r.ok]
    if bad:
        raise OlkError(f"regression: {sum(len(r.failures) for r in bad)} check(s) failed in "
                       f"{', '.join(r.config for r in bad)}; fix the change or run 'olk regress --update' if it is "
                       f"intended")


@cli.command()
@click.argument("configs", nargs=-1, type=cli_path(dir_okay=False))
@click.option("--n-jobs", "-j", type=int, default=2, show_default=True, callback=_check_n_jobs,
              help="Parallel runs of each config.")
@click.option("--estimate", "estimate_only", is_flag=True, help="Print the expected time and run nothing.")
def reproduce(configs, n_jobs, estimate_only):
    """Every paper config (default configs/*.yaml but the demo), then the report (make reproduce-all).

    States the expected time first (from the run times recorded in results/*/runs.jsonl), runs each config with
    --resume in its own process, continues past a failing config and lists the failures at the end (exit 1)."""
    from pathlib import Path

    from .experiment import reproduce as rep
    paths = [Path(c) for c in configs] or rep.config_files()
    if estimate_only:
        times = rep.RecordedTimes.scan(rep.project_dir() / "results")
        for line in rep.estimate_lines([rep.estimate(c, times) for c in paths], n_jobs):
            click.echo(line)
        return
    failures = rep.reproduce_all(paths, n_jobs, log=lambda m: click.echo(m, err=True))
    if failures:
        sys.exit(1)


@cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                              "help_option_names": []})
@click.argument("suite", required=False, default="core", metavar="[SUITE]")
@click.argument("options", nargs=-1, type=click.UNPROCESSED)
def bench(suite, options):
    """Speed benchmarks: SUITE is core (default), learners, batch, multi, klr, amkl, canon, river, ecosystem, stream
    or all.

    Each suite takes its own options (olk bench SUITE --help).  'all' runs every suite in that order, each
    with its defaults (make bench); speed claims live here, never in unit tests."""
    from .bench import SUITES, run_suite
    from .errors import did_you_mean
    if suite in ("-h", "--help"):
        click.echo(click.get_current_context().get_help())
        return
    if suite != "all" and suite not in SUITES:
        raise ConfigError(f"olk bench: unknown suite '{suite}'{did_you_mean(suite, list(SUITES) + ['all'])}; "
                          f"suites: {', '.join(SUITES)}, all")
    for name in SUITES if suite == "all" else (suite,):
        if suite == "all":
            click.echo(f"== olk bench {name}", err=True)
        try:
            run_suite(name, list(options) if suite != "all" else [])
        except SystemExit as e:             # a suite's --help
            if e.code in (0, None):
                return
            raise


#: set by the SIGTERM handler: the interruption in progress is a termination (exit status 143, not 130)
_TERMINATED = False


def _on_sigterm(signum, frame):
    """SIGTERM (a job scheduler, ``timeout``, ``kill``) is handled like Ctrl-C: the command stops where it is,
    keeps what it finished (a run writes its tables) and says how to resume; the exit status is 143."""
    global _TERMINATED
    _TERMINATED = True
    raise KeyboardInterrupt


def _install_signal_handlers() -> None:
    import signal
    try:
        signal.signal(signal.SIGTERM, _on_sigterm)
        # a file-size limit (ulimit -f) would kill the process with SIGXFSZ mid-write; ignored, the write fails
        # with EFBIG instead and is reported in one line naming the file
        if hasattr(signal, "SIGXFSZ"):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    except ValueError:          # not the main thread (olk.cli.main called from a thread): leave them
        pass


def _stop_workers() -> None:
    """Shut joblib's reusable worker processes down now (after an interruption they would otherwise idle for
    minutes before noticing)."""
    loky = sys.modules.get("joblib.externals.loky")
    if loky is None:
        return
    try:
        loky.get_reusable_executor().shutdown(wait=False, kill_workers=True)
    except Exception:           # pragma: no cover - best effort on the way out
        pass


def _one_line_warnings() -> None:
    """olk's own warnings (an installed learner package that failed to load) as one line ``olk: warning: ...``."""
    import warnings
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if category.__module__.startswith("olk."):
            click.echo(f"olk: warning: {message}", err=True)
        else:
            shown(message, category, filename, lineno, file, line)
    warnings.showwarning = show


def main(argv=None):
    """Entry point: run the CLI, turning user-input errors into one line ``olk: error: ...``.

    Exit status: 0 success, 1 an internal error (a bug: traceback), 2 bad input (config, data, option; also a
    full disk or a file-size limit, named with the file; out of memory), 130 interrupted (Ctrl-C / SIGINT), 143
    terminated (SIGTERM); the line of an interruption says what was saved and how to resume.
    """
    _install_signal_handlers()
    _one_line_warnings()
    try:
        cli.main(args=argv, prog_name="olk", standalone_mode=False)
        if argv is None:            # the command, not a caller's process: a quick shutdown
            no_exit_collection()
    except Interrupted as e:
        _stop_workers()
        code = 143 if _TERMINATED else e.exit_code
        click.echo(f"olk: error: {'terminated (SIGTERM); ' if _TERMINATED else ''}{e}", err=True)
        sys.exit(code)
    except OlkError as e:
        click.echo(f"olk: error: {e}", err=True)
        sys.exit(e.exit_code)
    except (click.exceptions.Abort, KeyboardInterrupt):
        _stop_workers()
        click.echo(f"olk: error: {'terminated (SIGTERM); ' if _TERMINATED else ''}"
                   f"{_interrupted(_command_of(sys.argv[1:] if argv is None else argv))}", err=True)
        sys.exit(143 if _TERMINATED else Interrupted.exit_code)
    except MemoryError as e:
        _stop_workers()
        click.echo(f"olk: error: {_out_of_memory(_command_of(sys.argv[1:] if argv is None else argv), e)}", err=True)
        sys.exit(2)
    except click.ClickException as e:
        msg = " ".join(e.format_message().split())
        click.echo(f"olk: error: {msg}", err=True)
        sys.exit(2)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
