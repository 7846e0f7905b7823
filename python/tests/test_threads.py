"""Several Python threads at once: ``canonicalize_many`` (which releases the GIL), ``parse``,
and ``rewrite`` reading a Python file object (which takes the GIL back per chunk)."""

import io
import threading

from conftest import FIXTURES, vectors

import pidcanon

INPUTS = [v.input for v in vectors() if "--" not in v.options] * 40


def run_in_threads(work, n=8):
    results = [None] * n
    errors = []

    def target(i):
        try:
            results[i] = work(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert not any(t.is_alive() for t in threads)
    return results


def test_canonicalize_many_from_several_threads():
    expected = pidcanon.canonicalize_many(INPUTS)
    assert any(r is None for r in expected) and any(r != i for r, i in zip(expected, INPUTS) if r)
    results = run_in_threads(lambda i: [pidcanon.canonicalize_many(INPUTS) for _ in range(5)])
    for per_thread in results:
        assert all(r == expected for r in per_thread)


def test_single_calls_and_policies_from_several_threads():
    policy = pidcanon.Policy(handle_form="https", doi_form="hdl")
    expected = [pidcanon.canonicalize_many([i], policy=policy)[0] for i in INPUTS[:400]]

    def work(_):
        out = []
        for text in INPUTS[:400]:
            try:
                out.append(pidcanon.canonicalize(text, policy=policy))
            except pidcanon.InvalidIdentifier:
                out.append(None)
        return out

    assert all(r == expected for r in run_in_threads(work))


def test_rewrites_from_several_threads():
    data = (FIXTURES / "examples" / "repository.nt").read_bytes() * 500
    expected = io.BytesIO()
    pidcanon.rewrite(data, expected, format="nt", threads=1)

    def work(i):
        out = io.BytesIO()
        pidcanon.rewrite(io.BytesIO(data), out, format="nt", threads=1 + i % 2)
        return out.getvalue()

    assert all(r == expected.getvalue() for r in run_in_threads(work, n=4))
