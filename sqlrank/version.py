"""sqlrank's version (also in pyproject.toml; a test keeps them equal)."""
__version__ = "0.1.0"
