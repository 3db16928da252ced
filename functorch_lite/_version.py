"""The package's version, from its single source: `version` in pyproject.toml.

A source checkout (or an editable install) reads pyproject.toml beside the package, so the
number never lags behind an edit; an installed wheel reads the metadata pip wrote from it.
"""
import pathlib
import re


def _version():
    pyproject = pathlib.Path(__file__).resolve().parent.parent / "pyproject.toml"
    if pyproject.is_file():
        text = pyproject.read_text()
        if re.search(r'^name = "functorch-lite"$', text, re.M):
            return re.search(r'^version = "([^"]+)"$', text, re.M).group(1)
    from importlib import metadata   # an installed wheel only: importing it costs 0.1 s
    try:
        return metadata.version("functorch-lite")
    except metadata.PackageNotFoundError:    # imported from a copy of the sources alone
        return "unknown"


__version__ = _version()
