"""Maintainer tools that build the package's data files (not used at run time)."""
