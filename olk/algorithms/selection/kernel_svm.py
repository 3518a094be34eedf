"""LIBSVM on one kernel of a kernel set: the ground truth of Figures 1 and 2 of Yang et al., "Online Kernel
Selection: Algorithms and Evaluations", AAAI 2012 ("the accuracy of the best and the worst 5 kernel
classifiers, which are trained by LibSVM ... the groundtruth to tell the performance of the kernels").  With a
sweep over ``kernel_id`` (``sweep: {kernel_id: [1, 2, ...]}``, 1-based like every kernel number olk prints:
the tables' "selected kernel", the paper's kernel ids, the figure's axis) an experiment scores every kernel of
the set on the test set, with the same kernels, validation split and C grid as the selection methods
(:mod:`olk.algorithms.selection.core`), so a plot can mark which kernels each method selected.

>>> from olk.algorithms import make
>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")
>>> X, y, X_test, y_test = d.X[:600], d.y[:600], d.X[1000:], d.y[1000:]
>>> kernels = [{"type": "linear"}, {"type": "gaussian", "gamma": 0.05}, {"type": "gaussian", "gamma": 50.0}]
>>> [float((make("kernel_svm", kernel=kernels, kernel_id=k).fit(X, y).predict(X_test) == y_test).mean())
...  for k in (1, 2, 3)]
[0.813, 0.784, 0.759]
"""
from __future__ import annotations

from ...errors import ConfigError
from ..registry import Param, register
from .core import KernelSelection


@register
class KernelSVM(KernelSelection):
    """SVC on kernel number ``kernel_id`` of the set (1-based; no selection), C in 2^[-10:10] tuned on the
    validation set, then trained on all training rows (the SVM stage of the two-stage methods, on a kernel given
    in advance).  ``selected_kernel`` records it 0-based like every selection method's (the report adds 1)."""

    name = "kernel_svm"
    kernel_ground_truth = True
    display = "LIBSVM (kernel i)"
    style = ("grey", "o", ":")
    order_free = True
    params = KernelSelection.params + (
        Param("kernel_id", 1, "which kernel of the set: its number, 1-based in the set's order (as the tables' "
              "'selected kernel')", type=int, check=lambda v: v >= 1, requirement=">= 1"),)
    renamed = {"index": ("kernel_id", "and made 1-based (kernel_id = index + 1) after olk 0.1.0", lambda v: int(v) + 1)}

    def __init__(self, kernel=None, random_state=None, **params):
        super().__init__(kernel=kernel, random_state=random_state, **params)
        if self.kernel_id > len(self.kernels):
            raise ConfigError(f"{self.name}.kernel_id: {self.kernel_id} is not a kernel of the set (it has "
                              f"{len(self.kernels)}: 1..{len(self.kernels)})")

    def fit(self, X, y, order=None):
        y, tr, va = self.start(X, y)
        self.select_then_svm(X, y, self.kernel_id - 1, tr, va, 0.0)
        return self
