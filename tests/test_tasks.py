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
        "python3 tasks.py test", "python3 tasks.py demo", "python3 tasks.py docs"}, ci
    assert all(name == command for name, _, command in run), run   # one clone per command
    assert 'git clone -q "$repo" "$tmp/$1"' in ci and 'cd "$tmp/$1"' in ci, ci
    assert len(re.findall(r"^python3 ", ci, re.M)) == 3, ci   # nothing else runs
