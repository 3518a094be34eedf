"""RunSpec: one run, fully determined, typed and frozen.

The planner (:mod:`olk.experiment.plan`) builds every RunSpec from the validated config — parameters
checked once by the learner's own check (:func:`olk.algorithms.registry.check_params_of`: a
:class:`~olk.algorithms.registry.Checked`), the kernel built once by :func:`olk.kernels.build_kernel` — and
nothing downstream re-parses or re-validates it: execution (:mod:`olk.experiment.execute`) builds the learner
from it (:func:`olk.algorithms.registry.build`, no second check), and its record (``to_record``)
is what the run log, the tables and the regression check read.  The run id is derived from it, so the
same config and seed give the same ids whatever ``n_jobs`` is, and a resumed run finds its results.
"""
from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from typing import Optional, Union

from ..algorithms.registry import Checked
from ..kernels import Kernel, KernelSet, kernel_json

#: fields whose values identify a run (its id); ``fold``/``cv``/``test_part``/``holdout`` only when set
_ID_KEYS = ("mode", "dataset", "preprocess", "scale", "shuffle", "seed", "perm", "algorithm", "label", "params",
            "kernel", "checkpoints")
_OPTIONAL_ID_KEYS = ("fold", "cv", "test_part", "holdout", "eval_folds", "eval_part", "test_curve", "epochs",
                     "seeds_of")


def run_id_of(fields: dict) -> str:
    """16 hex digits of the SHA-1 of the identifying fields (JSON, sorted keys)."""
    key = {k: fields[k] for k in _ID_KEYS}
    key.update({k: fields[k] for k in _OPTIONAL_ID_KEYS if fields.get(k) is not None})
    return hashlib.sha1(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class RunSpec:
    """One run: which data (dataset, preprocessing, scale, permutation), which learner (algorithm, label,
    full parameters, kernel, RNG seed), which protocol (mode, task, checkpoints) and which phase of the
    experiment (tune / match / main)."""

    experiment: str
    phase: str                      # "tune", "match" or "main"
    mode: str                       # "online" or "batch"
    task: str                       # a key of olk.tasks.TASKS
    dataset: str
    preprocess: dict
    scale: float
    shuffle: bool
    seed: int
    perm: int                       # permutation r (seeds.TUNE_PERM for tuning / matching)
    algorithm: str                  # registry name
    label: str                      # the config entry's label (several entries may share an algorithm)
    display: str
    params: Checked                 # every parameter, checked once by the planner, defaults filled
    kernel: Union[Kernel, KernelSet]    # built once by the planner; its JSON (kernel_json) is in the id and record
    checkpoints: int
    algo_seed: Optional[int]        # the learner's RNG seed (stochastic learners only)
    setting: Optional[str] = None   # sweep point, e.g. "beta=5"
    setting_display: Optional[str] = None   # how an inherited point reads: "B = SPA's #SVs at beta=5" (not in the id)
    holdout: Optional[float] = None     # batch mode
    test_part: Optional[str] = None     # batch mode
    fold: Optional[int] = None          # batch mode: cross-validation fold
    cv: Optional[dict] = None           # batch mode: {folds, max_rows}
    eval_folds: Optional[int] = None    # batch mode: k-fold evaluation, permutation r tests on fold r mod k
    eval_part: Optional[str] = None     # ... of this part of the dataset only (None: all its rows)
    test_curve: Optional[int] = None    # batch mode: held-out scores at this many points of the training
    epochs: Optional[int] = None        # batch mode, online learner: passes over the training set (None: 1)
    seeds_of: Optional[str] = None      # the RNG seeds are the entry of this label's (config key seeds_of)
    run_id: str = field(default="", compare=False)

    def __post_init__(self):
        object.__setattr__(self, "run_id", run_id_of({**self.__dict__, "kernel": kernel_json(self.kernel)}))

    def to_record(self) -> dict:
        """The spec as the flat dict a run's record starts from (the run log's format)."""
        rec = {"experiment": self.experiment, "phase": self.phase, "mode": self.mode, "dataset": self.dataset,
               "preprocess": copy.deepcopy(self.preprocess), "scale": self.scale, "shuffle": self.shuffle,
               "seed": self.seed, "perm": self.perm, "algorithm": self.algorithm, "label": self.label,
               "display": self.display, "params": dict(self.params), "kernel": kernel_json(self.kernel),
               "checkpoints": self.checkpoints, "algo_seed": self.algo_seed, "task": self.task}
        if self.setting:
            rec["setting"] = self.setting
        if self.setting_display:
            rec["setting_display"] = self.setting_display
        if self.seeds_of:
            rec["seeds_of"] = self.seeds_of
        if self.mode == "batch":
            rec["holdout"] = self.holdout
            rec["test_part"] = self.test_part
            if self.eval_folds:
                rec["eval_folds"] = self.eval_folds
                rec["eval_part"] = self.eval_part
            if self.test_curve:
                rec["test_curve_points"] = self.test_curve
            if self.epochs:
                rec["epochs"] = self.epochs
            if self.fold is not None:
                rec["fold"] = self.fold
                rec["cv"] = dict(self.cv or {})
        rec["run_id"] = self.run_id
        return rec
