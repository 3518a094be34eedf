"""olk's version (one place: the package, the CLI, model files and run fingerprints read it from here)."""
__version__ = "0.1.0"
