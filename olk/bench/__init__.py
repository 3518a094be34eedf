"""olk's benchmarks (``olk bench`` / ``make bench``): speed claims live here, never in unit tests.

Suites (``olk bench SUITE [options]``; ``olk bench SUITE --help`` lists a suite's options):

* ``core`` (:mod:`olk.bench.core`): ten fixed cases (issues 13, 29 and 38) — the learning loop's time, kernel
  evaluations per second and their fraction of olk's fastest reference loop (plain C loops measured in the same
  run) and of a hardware bound (bytes and flops per evaluation against this core's measured bandwidth and flops),
  peak memory, whole-process time; with ``--vs-cpp PATH`` the authors' group's C++ library on the same file in
  alternating pairs (cold and warm, load average recorded), with ``--baseline DIR`` before/after; writes
  results/bench/.
* ``learners`` (:mod:`olk.bench.learners`): every online classifier, one pass on a9a and codrna, next to the SPA
  paper's C++ times (Table 2); ``batch``: Table 3's training times.
* ``multi`` (:mod:`olk.bench.multi`): the 16-kernel learners (DD, DDPA, SD, SDPA, BOMKC(SPA)), one shared pool
  vs 16 independent pools, next to the paper's Table 5 times; ``--baseline DIR``: before/after rounds.
* ``klr`` (:mod:`olk.bench.klr`): sparse online KLR, NC vs Auxiliary, and the batch PCD/DCD baselines;
  ``--baseline DIR``: PCD/DCD before/after pairs.
* ``amkl`` (:mod:`olk.bench.amkl`): random-feature regression, time per example with 17 kernels.
* ``canon`` (:mod:`olk.bench.canon`): FOGD, NOGD and BSGD (removal, projection, merging) against SPA on a9a at
  SPA's memory: time per example (and its ratio to SPA's, same run), accuracy, model size, peak memory.
* ``river`` (:mod:`olk.bench.river`): olk's Perceptron and SPA inside River, examples per second through
  ``progressive_val_score`` on Phishing, paired against River's PAClassifier in the same run.
* ``ecosystem`` (:mod:`olk.bench.ecosystem`): olk's models next to River's and scikit-learn's own on their bundled
  datasets (``progressive_val_score``; ``cross_validate``): accuracy (MAE), examples/s or fit/predict time, one run.
* ``stream`` (:mod:`olk.bench.stream`): ``olk train`` / ``olk predict`` streaming generated dense files of 2M and
  10M rows (gzip): peak memory and rows/s, next to the C++ library's ``KOL`` (``--vs-cpp``) and River's
  ``stream.iter_libsvm`` + ``learn_one``, in alternating rounds with the load recorded; ``olk run`` from the cache.
* ``all``: every suite in that order (``make bench``).
"""
import argparse

SUITES = ("core", "learners", "batch", "multi", "klr", "amkl", "canon", "river", "ecosystem", "stream")


class _Parser(argparse.ArgumentParser):
    """argparse with olk's error contract: a bad option is one line (``olk: error: ...``, exit status 2)."""

    def error(self, message):
        from olk.errors import ConfigError
        raise ConfigError(f"{self.prog}: {message} (see {self.prog} --help)")


def parser(suite: str, doc: str) -> argparse.ArgumentParser:
    """The argument parser of suite `suite` (its module docstring's first line as description)."""
    return _Parser(prog=f"olk bench {suite}", description=doc.splitlines()[0])


def run_suite(name: str, argv: list[str]) -> None:
    """Run suite `name` with its own command-line options `argv`."""
    import importlib
    if name == "batch":
        importlib.import_module("olk.bench.learners").main(["--batch", *argv])
        return
    importlib.import_module(f"olk.bench.{name}").main(argv)
