"""The command line as a test calls it: in this process, with what it printed, and the shape of a refusal."""
from __future__ import annotations

from sqlrank.cli.main import main


def cli(capsys, *args: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``sqlrank ARGS``; never a traceback."""
    status = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def refused(status: int, out: str, err: str, *fragments: str) -> None:
    """Exit 1, nothing on standard output, one line of error holding every fragment."""
    assert status == 1 and out == "" and err.count("\n") == 1 and err.startswith("sqlrank: error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def working_folder(tmp_path, monkeypatch, files: dict[str, str]):
    """TMP_PATH holding FILES ({name: text}), made the working folder."""
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path
