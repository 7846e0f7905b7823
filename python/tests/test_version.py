"""``pidcanon.__version__``: the version of the Rust library the package is built from, the same
as the installed distribution's."""

import importlib.metadata
import re

from conftest import ROOT

import pidcanon


def crate_version(cargo_toml: str) -> str:
    """The `version` of the `[package]` table of a Cargo.toml."""
    package = re.search(r"^\[package\]\s*$(.*?)(?=^\[|\Z)", cargo_toml, re.M | re.S)
    assert package, "no [package] table"
    version = re.search(r'^version\s*=\s*"([^"]+)"\s*$', package.group(1), re.M)
    assert version, "no version in [package]"
    return version.group(1)


def test_version_is_the_crates():
    library = crate_version((ROOT / "Cargo.toml").read_text(encoding="utf-8"))
    binding = crate_version((ROOT / "python" / "Cargo.toml").read_text(encoding="utf-8"))
    assert binding == library, "python/Cargo.toml's version differs from the library's (Cargo.toml)"
    assert pidcanon.__version__ == library


def test_version_is_the_distributions():
    assert pidcanon.__version__ == importlib.metadata.version("pidcanon")
    assert pidcanon.__version__ == pidcanon._pidcanon.__version__
