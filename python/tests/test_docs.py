"""What ``help()`` shows: the compiled module's docstrings are the type stubs' (written once in
each place, checked equal here), and no signature shows a default as ``Ellipsis``."""

import ast
import inspect
import pydoc
from pathlib import Path

import pytest

import pidcanon
from pidcanon import _pidcanon

STUB = Path(_pidcanon.__file__).with_name("_pidcanon.pyi")


def stub_docstrings():
    """{qualified name: docstring} of every function, class, method and property of the stub
    (an overloaded function's from the overload that has one); None where it has none."""
    docs = {}
    for node in ast.parse(STUB.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            docs[node.name] = docs.get(node.name) or ast.get_docstring(node)
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef) and not sub.name.startswith("__"):
                        name = f"{node.name}.{sub.name}"
                        docs[name] = docs.get(name) or ast.get_docstring(sub)
    return docs


DOCS = stub_docstrings()


def runtime(name):
    owner, _, member = name.partition(".")
    obj = getattr(_pidcanon, owner)
    return getattr(obj, member) if member else obj


def test_the_stub_is_found_and_documents_every_public_name():
    assert STUB.is_file()
    undocumented = [name for name, doc in DOCS.items() if not doc]
    assert not undocumented, f"the stub has no docstring for {undocumented}"
    assert set(_pidcanon.__all__) <= set(DOCS)


@pytest.mark.parametrize("name", sorted(DOCS))
def test_help_shows_the_stubs_docstring(name):
    doc = runtime(name).__doc__
    assert doc is not None, f"{name} has no docstring at run time"
    assert inspect.cleandoc(doc) == DOCS[name], f"{name}: the Rust docstring differs from the stub's"


def test_help_shows_the_details_not_one_line():
    text = pydoc.render_doc(pidcanon.normalize_doi, renderer=pydoc.plaintext)
    assert "query and fragment" in text and ":raises InvalidIdentifier:" in text
    assert ":param handle_form:" in pydoc.render_doc(pidcanon.Policy, renderer=pydoc.plaintext)


@pytest.mark.parametrize("cls", [pidcanon.Policy, pidcanon.Report])
def test_no_default_shows_as_ellipsis(cls):
    assert "Ellipsis" not in pydoc.render_doc(cls, renderer=pydoc.plaintext)
    for parameter in inspect.signature(cls).parameters.values():
        assert parameter.default is not Ellipsis, parameter


def test_signatures_show_the_real_defaults():
    parameters = inspect.signature(pidcanon.Policy).parameters
    assert parameters["fedora_bases"].default == () and parameters["handle_resolvers"].default == ()
    assert pidcanon.Policy(fedora_bases=(), handle_resolvers=()) == pidcanon.Policy()
    assert inspect.signature(pidcanon.Report).parameters["rewritten"].default == {}
    assert pidcanon.Report(rewritten={}) == pidcanon.Report()
