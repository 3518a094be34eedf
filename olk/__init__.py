"""olk: online kernel learning, reproduced.

Algorithms from five online kernel learning papers (SPA, sparse online KLR, OKS, OMKL, AMKL/Raker)
behind one shared Cython support-vector core, with an experiment engine that reruns the papers' tables.
"""
__version__ = "0.1.0"
