#!/usr/bin/env bash
# One command from a fresh clone: create .venv (once), install, and run the main job on the bundled
# examples.  With a GPU it measures and accepts kernels; without one it runs Inductor's Triton kernels in
# the Triton interpreter, checks correctness, and says that performance was not measured.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# torch first, pinned: an unpinned range can pull a multi-GB CUDA build.  Override with KERNELOPT_TORCH.
if ! .venv/bin/python -c "import torch, triton" 2>/dev/null; then
  .venv/bin/pip install -q "${KERNELOPT_TORCH:-torch==2.13.0}" "${KERNELOPT_TRITON:-triton==3.7.1}"
fi
.venv/bin/pip install -q -e ".[test]"
mkdir -p .kernelopt
exec .venv/bin/kernelopt bench examples/problems --report .kernelopt/report.json "$@"
