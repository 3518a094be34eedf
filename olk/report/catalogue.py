"""The paper catalogue of the report: which papers olk reproduces and what each published table holds.

Plain data, used for every heading of ``olk report`` (the table sections, the status table, the figures'
headings) and by nothing below the report layer.  The published *numbers* are not here: they live in
``results/paper/*.csv`` (:mod:`olk.report.paper`).
"""
from __future__ import annotations

#: Published papers: id -> short name, full title, authors, venue, short citation.  One dict, used for every heading.
PAPERS: dict[str, dict[str, str]] = {
    "spa_tist2018": {
        "short": "SPA (TIST 2018)",
        "title": "Sparse Passive-Aggressive Learning for Bounded Online Kernel Methods",
        "authors": "Jing Lu, Doyen Sahoo, Peilin Zhao, Steven C. H. Hoi",
        "venue": "ACM Transactions on Intelligent Systems and Technology (TIST), 2018",
        "cite": "Lu et al., ACM TIST 2018",
    },
    "klr_aaai2012": {
        "short": "Sparse online KLR (AAAI 2012)",
        "title": "Efficient Online Learning for Large-Scale Sparse Kernel Logistic Regression",
        "authors": "Lijun Zhang, Rong Jin, Chun Chen, Jiajun Bu, Xiaofei He",
        "venue": "AAAI 2012",
        "cite": "Zhang et al., AAAI 2012",
    },
    "oks_aaai2012": {
        "short": "Online kernel selection (AAAI 2012)",
        "title": "Online Kernel Selection: Algorithms and Evaluations",
        "authors": "Tianbao Yang, Mehrdad Mahdavi, Rong Jin, Jinfeng Yi, Steven C. H. Hoi",
        "venue": "AAAI 2012",
        "cite": "Yang et al., AAAI 2012",
    },
    "amkl": {
        "short": "AMKL",
        "title": "Active Learning with Multiple Kernels",
        "authors": "Songnam Hong, Jeongmin Chae",
        "venue": "arXiv:2005.03188",
        "cite": "Hong & Chae, arXiv 2020",
    },
    "omkl_alt2010": {
        "short": "OMKL (ALT 2010)",
        "title": "Online Multiple Kernel Learning: Algorithms and Mistake Bounds",
        "authors": "Rong Jin, Steven C. H. Hoi, Tianbao Yang",
        "venue": "ALT 2010",
        "cite": "Jin et al., ALT 2010",
    },
}

#: What each published table holds (results/paper/README.md).
TABLE_CAPTIONS: dict[tuple[str, str], str] = {
    ("spa_tist2018", "1"): "single-kernel datasets",
    ("spa_tist2018", "2"): "online single-kernel classification: accuracy, time and #SVs",
    ("spa_tist2018", "3"): "final classifiers on test data: test accuracy, training time and #SVs",
    ("spa_tist2018", "4"): "OMKC datasets",
    ("spa_tist2018", "5"): "bounded OMKC (SPA) vs unbounded OMKC: mistake rate, #SVs and time",
    ("spa_tist2018", "6"): "bounded OMKC with different budget algorithms",
    ("klr_aaai2012", "1"): "data statistics",
    ("klr_aaai2012", "2"): "Auxiliary vs Pegasos on rcv1.binary: accuracy, sparsity, #SVs, time",
    ("oks_aaai2012", "1"): "kernel selection on Pascal07: accuracy, running time, selected kernel",
    ("oks_aaai2012", "2"): "kernel selection on Corel5k: accuracy, running time, selected kernel",
    ("amkl", "I"): "datasets",
    ("amkl", "II"): "MSE of single- and multiple-kernel baselines (and AMKL-AKS efficiency)",
    ("amkl", "III"): "MSE and efficiency of Raker, AMKL, OMKL-AKS and AMKL-AKS",
}

#: The paper's table of datasets that each result table runs on (results/paper/<paper>_table<N>.csv, rows
#: ``n_instances``): where our dataset has another number of rows, the report says so beside the cells.
DATASET_TABLES: dict[tuple[str, str], str] = {
    ("spa_tist2018", "2"): "1",
    ("spa_tist2018", "3"): "1",
    ("spa_tist2018", "5"): "4",
    ("spa_tist2018", "6"): "4",
    ("klr_aaai2012", "2"): "1",
    ("amkl", "II"): "I",
    ("amkl", "III"): "I",
}

#: Result tables that train on one part of each dataset and test on another, with where the paper names its split:
#: the paper's train and test rows are then the rows of the dataset's ``train`` and ``test`` files in the data
#: registry (:func:`olk.report.sizes.paper_split`), compared with ours part by part.
PAPER_SPLITS: dict[tuple[str, str], str] = {
    ("spa_tist2018", "3"): "Section 6.1.4: “the original splits of training and test sets on the LIBSVM website”",
}


def paper_rank(paper: str) -> int:
    """Position of ``paper`` in :data:`PAPERS` (the report's section order); unknown papers last."""
    order = list(PAPERS)
    return order.index(paper) if paper in order else len(order)


def table_title(paper: str, table: str) -> str:
    """'Table N of “Title” (Author et al., Venue)': the heading of a table's section."""
    info = PAPERS.get(paper)
    if info is None:
        return f"Table {table} of {paper}"
    return f"Table {table} of “{info['title']}” ({info['cite']})"

