"""olk.data: the dataset registry, loading (with checksums and an array cache) and fetching.

>>> from olk.data import load_dataset
>>> d = load_dataset("a9a-small")            # a bundled sample (datasets/samples), always at hand
>>> d.X.shape, d.task
((2000, 123), 'binary')
>>> d = load_dataset("a9a")                  # train+test as streamed by the papers: (48842, 123) CSR  # doctest: +SKIP
>>> d = load_dataset("a9a", split="test")    # one part  # doctest: +SKIP
>>> d = load_dataset("my.libsvm.xz", preprocess={"positive_label": 1})  # doctest: +SKIP
"""
from olk.data.dataset import Dataset
from olk.data.loader import load_dataset
from olk.data.registry import get_registry
from olk.data.search import find_file, search_path

__all__ = ["Dataset", "load_dataset", "get_registry", "search_path", "find_file"]
