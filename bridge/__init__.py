"""Vault Bridge: agent-native memory that lives in an Obsidian vault."""

import os as _os

# Before anything imports numpy: numpy's OpenBLAS starts a thread per core at import, before
# `serve` blocks its stop signals, and a SIGTERM that reaches one of those threads kills serve
# instead of stopping it. One is enough: the dense channel multiplies one vector by a matrix
# per question, and on a small machine a second BLAS thread only competes with the answers and
# the embedding.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")

__version__ = "0.1.0"
