"""Every row of fixtures/conformance/*.tsv through ``canonicalize`` and ``parse``, with the
checks of tests/conformance.rs: result, kind, and for every valid row idempotence and the input
object itself returned when it is already canonical."""

import pytest
from conftest import expected_failures, options, vectors

import pidcanon

VECTORS = vectors()
KNOWN = expected_failures()


def problem(v) -> str:
    """What is wrong with the binding's answer for ``v``; empty if nothing."""
    scheme, policy = options(v.options)
    try:
        c = pidcanon.parse(v.input, scheme=scheme, policy=policy)
        got, kind = c.iri, c.kind
    except pidcanon.InvalidIdentifier as e:
        if v.expected != "INVALID":
            return f"expected {v.expected!r}, got INVALID {e}"
        if e.kind != v.kind:
            return f"expected kind {v.kind}, got {e.kind}"
        try:
            pidcanon.canonicalize(v.input, scheme=scheme, policy=policy)
        except pidcanon.InvalidIdentifier as again:
            if (str(again), again.kind, again.offset) != (str(e), e.kind, e.offset):
                return "canonicalize and parse disagree on the error"
            return ""
        return "canonicalize accepted what parse rejected"
    if got != v.expected:
        return f"expected {v.expected!r}, got {got!r}"
    if kind != v.kind:
        return f"expected kind {v.kind}, got {kind}"
    if c.changed != (got != v.input):
        return f"changed is {c.changed}"
    text = pidcanon.canonicalize(v.input, scheme=scheme, policy=policy)
    if text != got:
        return f"canonicalize gave {text!r}, parse {got!r}"
    if not c.changed and text is not v.input:
        return "an unchanged input was copied"
    again = pidcanon.parse(got, policy=policy)
    if again.iri != got or again.changed:
        return f"not idempotent: then {again.iri!r}"
    return ""


def test_every_vector_is_read():
    assert len(VECTORS) > 250
    assert not [k for k in KNOWN if k not in {v.location for v in VECTORS}], "stale expected failures"


@pytest.mark.parametrize("v", VECTORS, ids=[v.location for v in VECTORS])
def test_vector(v):
    found = problem(v)
    if v.location in KNOWN:
        assert found, f"{v.location} passes now: remove it from expected-failures.txt"
    else:
        assert not found, f"{v.location} [{v.options}] {v.input!r}: {found} ({v.note})"


def test_canonicalize_many_agrees_with_parse():
    """The same rows in one call per options column, invalid ones given back as errors."""
    by_options = {}
    for v in VECTORS:
        by_options.setdefault(v.options, []).append(v)
    for opts, rows in by_options.items():
        scheme, policy = options(opts)
        results = pidcanon.canonicalize_many(
            [v.input for v in rows], scheme=scheme, policy=policy, on_invalid="error"
        )
        for v, result in zip(rows, results):
            if v.location in KNOWN:
                continue
            if v.expected == "INVALID":
                assert isinstance(result, pidcanon.InvalidIdentifier), v
                assert result.kind == v.kind and result.input == v.input
            else:
                assert result == v.expected, v
