"""tasks.py, the README's entry point, and CI (.ci/run), which runs each of its commands alone."""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_no_command_prints_the_usage_and_fails():
    for argv in ([], ["nonsense"]):
        run = subprocess.run([sys.executable, str(ROOT / "tasks.py"), *argv], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2, (argv, run.stdout, run.stderr)
        assert "python3 tasks.py demo" in run.stderr and "python3 tasks.py test" in run.stderr


def test_ci_runs_each_readme_command_on_its_own_clone():
    readme = set(re.findall(r"^\s+(python3 tasks\.py \w+)", (ROOT / "README.md").read_text(),
                            re.M))
    ci = (ROOT / ".ci" / "run").read_text()
    # each command is the README's line verbatim, after a `fresh NAME` that clones for it
    run = re.findall(r"^fresh (\w+)\n(python3 tasks\.py (\w+))$", ci, re.M)
    assert {line for _, line, _ in run} == readme == {
        "python3 tasks.py test", "python3 tasks.py xla", "python3 tasks.py demo",
        "python3 tasks.py docs"}, ci
    assert all(name == command for name, _, command in run), run   # one clone per command
    assert 'git clone -q "$repo" "$tmp/$1"' in ci and 'cd "$tmp/$1"' in ci, ci
    assert len(re.findall(r"^python3 ", ci, re.M)) == 4, ci   # nothing else runs


def test_test_and_xla_split_the_suite_and_keep_bytecode(monkeypatch):
    """`test` runs all but tests/xla, `xla` runs tests/xla alone, both with extra arguments passed
    on; their processes write bytecode into .venv (PYTHONDONTWRITEBYTECODE is dropped)."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    sys.path.insert(0, str(ROOT))
    try:
        import importlib
        import tasks
        tasks = importlib.reload(tasks)   # ENV is read from os.environ at import
    finally:
        sys.path.remove(str(ROOT))
    calls = []
    monkeypatch.setattr(tasks, "setup", lambda extras: calls.append(("setup", extras)))
    monkeypatch.setattr(tasks.subprocess, "call",
                        lambda argv, cwd, env: calls.append((argv, env)) or 0)
    xla = str(pathlib.Path("tests", "xla"))
    assert tasks.main(["tasks.py", "test", "-k", "vmap"]) == 0
    assert tasks.main(["tasks.py", "xla"]) == 0
    (_, test_extras), (test_argv, env), (_, xla_extras), (xla_argv, _) = calls
    assert test_extras == ["test", "examples"] and xla_extras == ["test"]
    assert test_argv[test_argv.index("--ignore") + 1] == xla and test_argv.count(xla) == 1
    assert test_argv[-2:] == ["-k", "vmap"]
    assert xla_argv[-1] == xla and "--ignore" not in xla_argv
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert env["PYTHONPYCACHEPREFIX"] == str(ROOT / ".venv" / "pycache")
