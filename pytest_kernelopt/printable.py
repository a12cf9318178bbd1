"""Text read from a cache entry (or any other untrusted file), made safe to print on a terminal.

Rule: no character of such text reaches a terminal as a control.  Control characters (C0 and C1, DEL: the
escape sequences that move the cursor, erase a line or set a window title, carriage return, newline), Unicode
format characters (bidirectional overrides, zero-width characters), the line and paragraph separators and lone
surrogates are written as Python escapes (``\\x1b``, ``\\r``, ``\\n``, ``\\u202e``), so an entry's text can neither
erase what was printed before it nor print lines of its own.  :func:`escape` is for one value (a problem id, a
kernel name, a message): newlines are escaped too; ``lines=True`` keeps newlines and tabs, for a text printed as
several lines (a kernel's source).  tests/test_cache_cli.py::test_entry_text_reaches_the_terminal_escaped guards
the cache commands.
"""

from __future__ import annotations

import unicodedata
from typing import Any

#: Unicode categories written as escapes: controls, format characters, line and paragraph separators, surrogates
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(ch: str) -> str:
    code = ord(ch)
    return _NAMED.get(ch) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def escape(text: Any, lines: bool = False) -> str:
    """``str(text)`` with every character of :data:`UNSAFE_CATEGORIES` written as an escape; ``lines``: newlines
    and tabs are kept as they are."""
    s = str(text)
    if s.isascii() and s.isprintable():  # the common case: nothing to do
        return s
    keep = "\n\t" if lines else ""
    return "".join(_escaped(c) if c not in keep and unicodedata.category(c) in UNSAFE_CATEGORIES else c for c in s)
