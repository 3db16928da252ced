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
    readme = set(re.findall(r"^\s+python3 tasks\.py (\w+)", (ROOT / "README.md").read_text(),
                            re.M))
    ci = (ROOT / ".ci" / "run").read_text()
    loop = re.search(r"^for command in ([\w ]+); do\n(.*?)^done", ci, re.M | re.S)
    assert loop and set(loop.group(1).split()) == readme == {"test", "demo", "docs"}, ci
    assert 'git clone -q . "$tmp/$command"' in loop.group(2)
    assert 'cd "$tmp/$command" && python3 tasks.py "$command"' in loop.group(2)
