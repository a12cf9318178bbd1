"""pytest-kernelopt: faster compiled PyTorch modules you can trust.

Importing this package is cheap: torch, triton and openai are imported only
by the modules that need them, when they are used.
"""

__version__ = "0.1.0"
