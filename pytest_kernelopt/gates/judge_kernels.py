"""Whether the judge's own Triton kernels (:mod:`.checksum_kernel`, :mod:`.digest_kernel`, :mod:`.decade_kernel`,
:mod:`.stats_kernel`, :mod:`.moments_kernel`) compute its statistics on a GPU: ``KERNELOPT_JUDGE_KERNELS=0`` has
torch compute them instead, as on the host (slower at size; the same digests, counts and maxima, the sums up to
the order of addition)."""

from __future__ import annotations

import os


def enabled() -> bool:
    return os.environ.get("KERNELOPT_JUDGE_KERNELS", "1") != "0"
