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


def shown(text: str) -> str:
    """An id as a message shows it: quoted, with what does not print as itself (a combining accent,
    an invisible character, a trailing space inside the quotes) spelled as an escape."""
    return repr(text) if text.isascii() and text.isprintable() else ascii(text)


def near_examples(examples: list | None) -> str:
    """(query, id of the run, id of the qrels) triples as 'q1: 'd1 ' ~ 'd1'', or (run id, qrels id) pairs."""
    return ", ".join((f"{shown(e[0])}: " if len(e) == 3 else "") + f"{shown(e[-2])} ~ {shown(e[-1])}"
                     for e in examples or [])


def near_documents(con, qrels: str, run: str, every_run_id: bool = True) -> tuple[int, list]:
    """(count, up to 3 examples) of the (query, run document, judged document) triples whose documents
    differ but not after normalized_id, the run's document not judged as it is. A run document in normal
    form can only be near a judged document that is not (equal to its normal form), so only the few odd
    ids on either side are normalized, not every row of the run. every_run_id=False looks among the run's
    ids only for those beyond ASCII (an evaluation's cheap check: a judged id with white space or a
    zero in front, and every Unicode spelling, are still found; sqlrank check looks at every id). When
    neither side has an odd id (most inputs) that is all it reads."""
    odd_ids = _first_row(con, f"SELECT (SELECT count(*) FROM ({qrels}) AS qrels WHERE {odd_id('doc_id')}) + "
                        f"(SELECT count(*) FROM ({run}) AS run WHERE {odd_id('doc_id', not every_run_id)})")[0]
    if not odd_ids:
        return 0, []
    return _first_row(con, f"""
        WITH qd AS (SELECT DISTINCT query_id, doc_id FROM ({qrels}) AS qrels),
             near AS (
                 SELECT rd.query_id, rd.doc_id AS run_doc, qd.doc_id AS judged_doc
                 FROM (SELECT DISTINCT query_id, doc_id FROM ({run}) AS run
                       WHERE {odd_id('doc_id', not every_run_id)}) AS rd
                 JOIN qd ON rd.query_id = qd.query_id AND {normalized_id('rd.doc_id')} = {normalized_id('qd.doc_id')}
                 UNION
                 SELECT rd.query_id, rd.doc_id, odd.doc_id
                 FROM ({run}) AS rd
                 JOIN (SELECT query_id, doc_id FROM qd WHERE {odd_id('doc_id')}) AS odd
                   ON rd.query_id = odd.query_id AND rd.doc_id = {normalized_id('odd.doc_id')}
                 WHERE NOT {odd_id('rd.doc_id', not every_run_id)}
             )
        SELECT count(*), (list([query_id, run_doc, judged_doc] ORDER BY query_id, run_doc, judged_doc))[1:3]
        FROM near
        WHERE run_doc <> judged_doc
          AND NOT EXISTS (SELECT 1 FROM qd WHERE qd.query_id = near.query_id AND qd.doc_id = near.run_doc)""")


def near_query_ids(con, qrels_sql: str, run_sql: str) -> tuple[int, list]:
    """(count, up to 3 (run id, judged id) pairs) of run query ids that match no judged query exactly
    but one after normalized_id (and the other way round): '01' and '1', 'q1 ' and 'q1', 'café' and 'café'."""
    return _first_row(con, f"""
        WITH rq AS (SELECT DISTINCT query_id FROM ({run_sql}) AS run),
             qq AS (SELECT DISTINCT query_id FROM ({qrels_sql}) AS qrels)
        SELECT count(*), (list([rq.query_id, qq.query_id] ORDER BY rq.query_id, qq.query_id))[1:3]
        FROM rq JOIN qq ON {normalized_id('rq.query_id')} = {normalized_id('qq.query_id')}
        WHERE rq.query_id NOT IN (SELECT query_id FROM qq) AND qq.query_id NOT IN (SELECT query_id FROM rq)""")


def _first_row(con, sql: str) -> tuple:
    return con.execute(sql).fetchall()[0]
