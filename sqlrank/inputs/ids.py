"""How ids get mangled: the SQL that puts an id in a normal form (white space, leading zeros and invisible
characters removed, Unicode composed), and the SQL that tells which ids that form may change. Validation
counts the odd document ids on its way through an input; the diagnostics and ``sqlrank check`` look for ids
that match only in normal form."""
from __future__ import annotations

WHITE = "' ' || chr(9) || chr(13) || chr(10)"  # the white space normalized_id removes
WHITE_CODES = "32, 9, 13, 10"  # the same, as code points
# Characters that print as nothing: soft hyphen, zero-width space, non-joiner and joiner, word joiner,
# byte order mark (RE2's syntax)
INVISIBLE = r"'[\x{00AD}\x{200B}-\x{200D}\x{2060}\x{FEFF}]'"
NEAR = "white space, leading zeros, invisible characters or Unicode normalization"


def normalized_id(column: str) -> str:
    """An id with surrounding white space, leading zeros and invisible characters removed, in Unicode's
    composed form (NFC: 'café' written with a combining accent is 'café'): how ids get mangled."""
    bare = f"nfc_normalize(regexp_replace({column}, {INVISIBLE}, '', 'g'))"
    return f"coalesce(nullif(ltrim(trim({bare}, {WHITE}), '0'), ''), '0')"


def odd_id(column: str, beyond_ascii_only: bool = False) -> str:
    """True for every id normalized_id may change (it starts with white space or a zero, ends with white
    space, or holds a character beyond ASCII); an id for which it is false is its own normal form.
    beyond_ascii_only: only the last test (what an evaluation asks of the run's many ids; the others
    read more of every id)."""
    beyond_ascii = f"strlen({column}) <> length({column})"
    if beyond_ascii_only:
        return f"({beyond_ascii})"
    # the first and the last code point by ord(), not left() and right(), which find grapheme clusters (twice the
    # time); they differ only where a combining mark follows, which is beyond ASCII anyway
    first, last = f"ord({column}) IN ({WHITE_CODES}, 48)", f"ord(reverse({column})) IN ({WHITE_CODES})"
    return f"({first} OR {last} OR {beyond_ascii} OR {column} = '')"
