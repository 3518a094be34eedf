"""Analyses of olk runs beyond the experiment tables (e.g. :mod:`olk.algorithms.omkl.bounds`: the ALT 2010
mistake bounds of the omkl_* learners evaluated on their runs)."""
