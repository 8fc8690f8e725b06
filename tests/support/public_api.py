"""sqlrank's public names and their signatures, as lines (tests/snapshots/api/public.txt holds them as they were when
the package was last changed on purpose; tests/project/test_layers.py compares). `python tests/support/public_api.py`
writes the file anew, for a deliberate change of the API only."""
from __future__ import annotations

import inspect
from pathlib import Path

SNAPSHOT = Path(__file__).resolve().parent.parent / "snapshots" / "api" / "public.txt"
HEADER = ("# sqlrank's public names (sqlrank.__all__) and their signatures; tests/project/test_layers.py compares the package\n"
          "# with them. python tests/support/public_api.py writes them anew, for a deliberate change of the API only.\n")


def public_lines() -> list[str]:
    """A line per public function, class, and public method of a class (exceptions: their bases)."""
    import sqlrank

    lines = []
    for name in sqlrank.__all__:
        obj = getattr(sqlrank, name)
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            lines.append(f"class {name}({', '.join(base.__name__ for base in obj.__bases__)})")
        elif inspect.isclass(obj):
            lines.append(f"class {name}{inspect.signature(obj)}")
            lines += [f"    {name}.{method}{inspect.signature(getattr(obj, method))}"
                      for method in sorted(vars(obj)) if not method.startswith("_") and callable(getattr(obj, method))]
        else:
            lines.append(f"{name}{inspect.signature(obj)}")
    return lines


if __name__ == "__main__":
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.write_text(HEADER + "\n".join(public_lines()) + "\n")
    print(f"wrote {SNAPSHOT}")
