"""pyproject.toml: the license in the form current setuptools reads without a deprecation warning
(an SPDX expression, setuptools 77 and later), and a build backend pinned to read it."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def test_the_license_is_an_spdx_string_and_the_build_backend_reads_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    # A table ({ text = "MIT" }) draws SetuptoolsDeprecationWarning at every build and install.
    assert project["project"]["license"] == "MIT"
    setuptools = next(Requirement(r) for r in project["build-system"]["requires"] if r.startswith("setuptools"))
    # setuptools before 77 refuses a string license: every version the pin allows must take it.
    assert not setuptools.specifier.contains("76.3.0") and setuptools.specifier.contains("77.0.0")
