"""Set up a local virtual environment and run the demo, the tests or the docs build.

    python3 tasks.py demo     # install the package with its examples extra, run the main demo
    python3 tasks.py test     # install the package with its test and examples extras, run
                              # the suite, all but the XLA backend's tests (tests/xla)
    python3 tasks.py xla      # install the test extra, run the XLA backend's tests: every op
                              # and composition compiled by XLA, its fuzzers, the model rows
    python3 tasks.py docs     # install the docs extra, build the site into site/ (mkdocs --strict)
    python3 tasks.py docs --serve   # the same, then serve it at http://127.0.0.1:8000

Extra arguments of test and xla go to pytest; a plain `pytest` runs both parts.
"""
import os
import shutil
import subprocess
import sys
import venv

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
PY = os.path.join(VENV, "Scripts" if os.name == "nt" else "bin", "python")
# Bytecode: pip installs without compiling (below) and Python compiles each module as it is first
# imported, into .venv's own cache, where the next process finds it. PYTHONDONTWRITEBYTECODE (set
# on some machines) would make every process compile NumPy, JAX, SciPy and the library again from
# source: 5-7 s more for each of the suite's processes, which import them afresh.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(VENV, "pycache")

# -qq: errors only (a current pip also shows the build backend's warnings); --no-compile: pip
# would byte-compile every installed file (half the install's time); Python compiles the modules
# the processes import, once (ENV)
PIP_INSTALL = ["-m", "pip", "install", "-qq", "--disable-pip-version-check", "--no-compile"]
# A pip older than 25 resolves the test extras 10 s slower: it checks each file listed on an index
# page against every tag the interpreter supports (Python 3.11's bundled pip is 23.2)
PIP = "pip>=25"


def setup(extras):
    if not os.path.exists(PY):
        create_venv()
    spec = ".[" + ",".join(extras) + "]" if extras else "."
    subprocess.check_call([PY, *PIP_INSTALL, "-e", spec], cwd=ROOT, env=ENV)


def create_venv():
    """.venv with a current pip, installed by the pip running this script (0.2 + 3 s); where
    that fails (no pip, or one before 22.3 without --python), by ensurepip and an upgrade (13 s,
    most of it ensurepip compiling the pip it bundles)."""
    venv.create(VENV, with_pip=False)
    try:
        by_this_pip = [sys.executable, "-m", "pip", "--python", PY, *PIP_INSTALL[2:], PIP]
        if subprocess.run(by_this_pip, env=ENV, capture_output=True).returncode != 0:
            subprocess.check_call([PY, "-m", "ensurepip"], env=ENV, stdout=subprocess.DEVNULL)
            subprocess.check_call([PY, *PIP_INSTALL, "-U", PIP], env=ENV)
    except BaseException:
        shutil.rmtree(VENV)   # no half-made .venv for the next run to take as made
        raise


def main(argv):
    what = argv[1] if len(argv) > 1 else None
    if what == "demo":
        setup(["examples"])
        return subprocess.call([PY, os.path.join("examples", "dp_sgd_cnn.py")], cwd=ROOT, env=ENV)
    if what in ("test", "xla"):
        setup(["test", "examples"] if what == "test" else ["test"])
        xla = os.path.join("tests", "xla")
        where = ["--ignore", xla] if what == "test" else [xla]
        # worksteal: an idle worker takes tests queued for a busy one (the slow ones end the run);
        # the "ci" profile (tests/conftest.py) replays hypothesis's fixed examples, so the verdict
        # is the commit's, not the draw's (a plain `pytest` explores new examples each run)
        return subprocess.call([PY, "-m", "pytest", "--hypothesis-profile", "ci", "-n", "auto",
                                "--dist", "worksteal", *where, *argv[2:]], cwd=ROOT, env=ENV)
    if what == "docs":
        setup(["docs"])
        command = "serve" if "--serve" in argv[2:] else "build"
        env = dict(ENV, NO_MKDOCS_2_WARNING="1")    # mkdocs-material's banner
        return subprocess.call([PY, "-m", "mkdocs", command, "--strict"], cwd=ROOT, env=env)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
