"""A local rehearsal of the CI matrix workflow (.github/workflows/matrix.yml), read from the YAML
itself and run here, without GitHub: the plan job, one CPU job with a tiny selection, and the
merge job, each in a checkout of a scratch copy of this repository (a bare `origin` the merge
pushes to), the artifacts passed as folders. Nothing is recorded into this repository's
results/.

Emulated: `uses:` steps (checkout: a clone of the scratch origin at the run's commit;
setup-python: nothing, the tool venv is linked in; upload-artifact: a folder per name, a second
upload of one name fails unless `overwrite: true`, as GitHub answers 409; download-artifact;
upload-pages-artifact: the folder deployed). `run:` steps run with bash as GitHub runs them
(`bash -e` without `shell:`, `bash --noprofile --norc -eo pipefail` with `shell: bash`), with
GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files and `${{ }}` expressions of contexts and `||`.

    .venv/bin/python -m pytest -q tests/test_ci_workflow.py
    MXBENCH_REHEARSAL_WORKFLOW=/path/to/other/matrix.yml ...   # rehearse another version of it

The CPU job runs in ~/.cache/mxbench/rehearsal/cpu-job (the user's cache: the tests' HOME is a
temporary one, tests/conftest.py), whose .asv/ (the benchmark environment) is kept between runs
like a self-hosted runner's workspace (checkout with clean: false).
"""
import fnmatch
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from tests.conftest import REAL_CACHE, ROOT

from mxbench.site import file_data

WORKFLOW = Path(os.environ.get("MXBENCH_REHEARSAL_WORKFLOW")
                or ROOT / ".github" / "workflows" / "matrix.yml")
OWN_WORKFLOW = ROOT / ".github" / "workflows" / "matrix.yml"
CPU_WORKSPACE = REAL_CACHE / "mxbench" / "rehearsal" / "cpu-job"
RELEASE, FLAVOR = "1.9.1", "cpu-mkldnn"
TINY = {"bench": r"^bench_overhead\.Dispatch\.", "asv_args": "-a rounds=1 -a repeat=1"}

# The one place holding command spellings: a workflow command spelled otherwise on this
# checkout maps here (none now: the workflow uses `python -m mxbench <command>`).
COMMAND_SPELLINGS = {}


def spelled(script):
    for new, old in COMMAND_SPELLINGS.items():
        script = script.replace(new, old)
    return script


class StepFailed(AssertionError):
    pass


# --- expressions ------------------------------------------------------------------------------
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}", re.S)


def evaluate(expr, ctx):
    """`a.b.c`, 'literal', true/false and `x || y` (the first non-empty); nothing else."""
    for term in (t.strip() for t in expr.split("||")):
        if "(" in term or "&&" in term or "==" in term or "!" in term:
            raise ValueError("the rehearsal does not evaluate %r" % expr)
        if term[:1] == "'" and term[-1:] == "'":
            value = term[1:-1]
        elif term in ("true", "false"):
            value = term == "true"
        else:
            value = ctx
            for part in term.split("."):
                value = value.get(part) if isinstance(value, dict) else None
        if value not in (None, "", False):
            return value
    return value


def render(value, ctx):
    if value is None:
        return ""
    if not isinstance(value, str):
        return str(value).lower() if isinstance(value, bool) else str(value)

    def one(match):
        found = evaluate(match.group(1), ctx)
        if isinstance(found, bool):
            return "true" if found else "false"
        return "" if found is None else str(found)
    return EXPRESSION.sub(one, value)


# --- the runner -------------------------------------------------------------------------------
class Rehearsal(object):
    def __init__(self, base, workflow=WORKFLOW):
        self.base = Path(base)
        self.doc = yaml.safe_load(Path(workflow).read_text())
        self.origin = self.base / "origin.git"
        self.artifacts = self.base / "artifact-store"
        self.pages = self.base / "pages"
        self.artifacts.mkdir(parents=True)
        self.sha = None

    # The repository as GitHub has it: this checkout's files (tracked and new), one commit.
    def make_origin(self):
        src = self.base / "src"
        files = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"],
                               cwd=str(ROOT), stdout=subprocess.PIPE, check=True).stdout
        for name in filter(None, files.decode().split("\0")):
            if (ROOT / name).is_file():
                (src / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(str(ROOT / name), str(src / name))
        git(src, "init", "-q", "-b", "main")
        git(src, "add", "-A")
        git(src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "snapshot")
        subprocess.run(["git", "clone", "-q", "--bare", str(src), str(self.origin)], check=True)
        self.sha = git(src, "rev-parse", "HEAD").strip()
        return src

    def inputs(self, given):
        declared = (self.doc.get(True) or self.doc.get("on"))["workflow_dispatch"]["inputs"]
        values = {name: spec.get("default") for name, spec in declared.items()}
        unknown = set(given) - set(declared)
        if unknown:
            raise StepFailed("the workflow has no input(s) %s" % ", ".join(sorted(unknown)))
        values.update(given)
        return values

    def context(self, inputs, matrix=None):
        ctx = {"inputs": inputs, "matrix": matrix or {}, "vars": {}, "secrets": {},
               "github": {"ref_name": "main", "ref": "refs/heads/main", "run_id": "4242",
                          "sha": self.sha, "repository": "rehearsal/mxbench"},
               "steps": {}, "env": {}}
        ctx["env"] = {k: render(v, ctx) for k, v in (self.doc.get("env") or {}).items()}
        return ctx

    def shell_of(self, job, step):
        shell = (step.get("shell") or ((job.get("defaults") or {}).get("run") or {}).get("shell")
                 or ((self.doc.get("defaults") or {}).get("run") or {}).get("shell"))
        if shell is None:
            return ["bash", "-e"]  # GitHub's default without `shell:`: no pipefail
        if shell == "bash":
            return ["bash", "--noprofile", "--norc", "-eo", "pipefail"]
        raise ValueError("the rehearsal runs bash steps only, not %r" % shell)

    def checkout(self, workspace, with_):
        workspace.mkdir(parents=True, exist_ok=True)
        if not (workspace / ".git").exists():
            git(workspace, "init", "-q")
            git(workspace, "remote", "add", "origin", str(self.origin))
        git(workspace, "remote", "set-url", "origin", str(self.origin))  # a kept workspace
        if workspace != CPU_WORKSPACE:
            # the origin's objects are on this disk: a workspace made for this job borrows
            # them (git's alternates) and the fetch copies none (a fetch of the whole tree
            # packs it: ~12 s of CPU). The kept workspace outlives the origin: it fetches.
            (workspace / ".git" / "objects" / "info" / "alternates").write_text(
                str(self.origin / "objects") + "\n")
        git(workspace, "fetch", "-q", "origin")
        git(workspace, "checkout", "-q", "-f", self.sha)
        if str(with_.get("clean", True)).lower() != "false":
            # GitHub's clean, but the benchmark environments stay (the rehearsal's own cache).
            git(workspace, "clean", "-ffdxq", "-e", "/.asv/")
        # setup-python + a tool venv already installed: this checkout's .venv, its Makefile
        # target up to date (it must never be rebuilt from here).
        venv = workspace / ".venv"
        if not venv.is_symlink():
            if venv.exists():
                shutil.rmtree(str(venv))
            venv.symlink_to(ROOT / ".venv")
        for prerequisite in ("requirements.txt", "pyproject.toml"):  # the Makefile's venv rule
            os.utime(str(workspace / prerequisite), (1, 1))
        up_to_date = subprocess.run(["make", "-q", ".venv/.installed"], cwd=str(workspace))
        assert up_to_date.returncode == 0, "the rehearsal would rebuild the tool venv"

    def uses(self, step, ctx, workspace):
        action = step["uses"].split("@")[0]
        with_ = {k: render(v, ctx) for k, v in (step.get("with") or {}).items()}
        if action == "actions/checkout":
            self.checkout(workspace, with_)
        elif action == "actions/setup-python":
            pass
        elif action == "actions/upload-artifact":
            target = self.artifacts / with_["name"]
            if target.exists():
                if with_.get("overwrite") != "true":
                    raise StepFailed("upload-artifact: 409 Conflict: an artifact named %s "
                                     "exists in this run" % with_["name"])
                shutil.rmtree(str(target))
            source = workspace / with_["path"]
            if source.exists():
                shutil.copytree(str(source), str(target))
        elif action == "actions/download-artifact":
            dest = workspace / with_["path"]
            dest.mkdir(parents=True, exist_ok=True)
            for art in sorted(self.artifacts.iterdir()):
                if fnmatch.fnmatch(art.name, with_.get("pattern", "*")):
                    shutil.copytree(str(art), str(dest / art.name))
        elif action == "actions/upload-pages-artifact":
            if self.pages.exists():
                shutil.rmtree(str(self.pages))
            shutil.copytree(str(workspace / with_["path"]), str(self.pages))
        else:
            raise ValueError("the rehearsal does not emulate %s" % action)

    def run_job(self, job_id, inputs, workspace, matrix=None, steps=None):
        """Run the job's steps (all, or those whose index is in `steps`); its outputs."""
        job = self.doc["jobs"][job_id]
        ctx = self.context(inputs, matrix)
        workspace = Path(workspace)
        files = self.base / "runner" / job_id
        files.mkdir(parents=True, exist_ok=True)
        for index, step in enumerate(job["steps"]):
            if steps is not None and index not in steps:
                continue
            label = step.get("name") or step.get("id") or step.get("uses") or step["run"][:40]
            if "uses" in step:
                self.uses(step, ctx, workspace)
                continue
            env = dict(os.environ)
            for scope in (self.doc.get("env"), job.get("env"), step.get("env")):
                env.update({k: render(v, ctx) for k, v in (scope or {}).items()})
            output, summary = files / ("output-%d" % index), files / "summary.md"
            output.write_text("")
            env.update(GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary),
                       GITHUB_WORKSPACE=str(workspace), GITHUB_ACTIONS="true", CI="true",
                       RUNNER_TEMP=str(files))
            script = files / ("step-%d.sh" % index)
            script.write_text(spelled(render(step["run"], ctx)))
            proc = subprocess.run(self.shell_of(job, step) + [str(script)], cwd=str(workspace),
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  universal_newlines=True, timeout=1800)
            print("--- %s / %s (exit %d)\n%s" % (job_id, label, proc.returncode, proc.stdout[-4000:]))
            if proc.returncode != 0:
                raise StepFailed("%s / %s failed (exit %d):\n%s"
                                 % (job_id, label, proc.returncode, proc.stdout[-3000:]))
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outputs": read_outputs(output.read_text())}
        return {k: render(v, ctx) for k, v in (job.get("outputs") or {}).items()}


def read_outputs(text):
    """GITHUB_OUTPUT lines: name=value (the multi-line form name<<EOF is not used here)."""
    out = {}
    for line in text.splitlines():
        if "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def git(cwd, *args):
    return subprocess.run(["git"] + list(args), cwd=str(cwd), stdout=subprocess.PIPE,
                          universal_newlines=True, check=True).stdout


def origin_file(rehearsal, path):
    return git(rehearsal.origin, "show", "main:%s" % path)


# --- the tests --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def snapshot(tmp_path_factory):
    """The repository as GitHub has it, made once (21,000 files copied and committed: minutes
    on a busy machine): each test's origin is a clone of it."""
    rehearsal = Rehearsal(tmp_path_factory.mktemp("snapshot"))
    src = rehearsal.make_origin()
    return SimpleNamespace(src=src, origin=rehearsal.origin, sha=rehearsal.sha)


def rehearsal_of(snapshot, base):
    """A rehearsal whose origin (which its merge pushes to) is a clone of the snapshot's."""
    rehearsal = Rehearsal(base)
    subprocess.run(["git", "clone", "-q", "--bare", str(snapshot.origin), str(rehearsal.origin)],
                   check=True)
    rehearsal.sha = snapshot.sha
    return rehearsal


def test_plan_fails_loudly_and_lists_the_jobs(snapshot, tmp_path):
    rehearsal = rehearsal_of(snapshot, tmp_path)
    ws = tmp_path / "plan"
    outputs = rehearsal.run_job("plan", rehearsal.inputs({"releases": RELEASE}), ws)
    cpu = json.loads(outputs["cpu"])["include"]
    assert {"release": RELEASE, "flavor": FLAVOR} in cpu
    # A failing plan command (an unknown release) fails the plan, not the next job's fromJSON.
    with pytest.raises(StepFailed, match="unknown MXNet release"):
        rehearsal.run_job("plan", rehearsal.inputs({"releases": "9.9.9"}), ws, steps={3})


def test_a_cpu_job_and_the_merge_keep_the_history_and_add_the_new_machine(snapshot, tmp_path):
    rehearsal = rehearsal_of(snapshot, tmp_path)
    src = snapshot.src
    history = re.search(r"\(machine `([^`]+)`", (src / "generated-reports" / "CHANGES.md").read_text())
    history = history.group(1)
    old_report = (src / "generated-reports" / "CHANGES.md").read_text()
    old_files = {p.name: p.read_bytes() for p in (src / "results" / history).glob("*.json")}

    inputs = rehearsal.inputs({"releases": RELEASE})
    outputs = rehearsal.run_job("plan", inputs, tmp_path / "plan")
    job = {"release": RELEASE, "flavor": FLAVOR}
    assert job in json.loads(outputs["cpu"])["include"]

    # One CPU job with a tiny selection. Today's version of the workflow (no `bench` input)
    # cannot run one, so its CPU job is taken from this checkout's workflow.
    cpu_source = rehearsal
    try:
        cpu_inputs = rehearsal.inputs(dict(TINY, releases=RELEASE))
    except StepFailed:
        cpu_source = Rehearsal(tmp_path / "own", OWN_WORKFLOW)
        cpu_source.origin, cpu_source.sha = rehearsal.origin, rehearsal.sha
        cpu_source.artifacts = rehearsal.artifacts
        cpu_inputs = cpu_source.inputs(dict(TINY, releases=RELEASE))
    cpu_source.run_job("cpu", cpu_inputs, CPU_WORKSPACE, matrix=job)
    artifact = rehearsal.artifacts / ("results-%s-%s" % (FLAVOR, RELEASE))
    machine = rehearsal.doc["env"]["CPU_MACHINE"]
    assert list((artifact / machine).glob("*-*.json")), sorted(artifact.rglob("*"))
    # "Re-run failed jobs": the job uploads again under the same name.
    uploads = [i for i, s in enumerate(cpu_source.doc["jobs"]["cpu"]["steps"])
               if s.get("uses", "").startswith("actions/upload-artifact")]
    cpu_source.run_job("cpu", cpu_inputs, CPU_WORKSPACE, matrix=job, steps=set(uploads))

    # Somebody pushes to the branch while the matrix runs.
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(rehearsal.origin), str(other)], check=True)
    (other / "docs" / "pushed-meanwhile.md").write_text("a commit made during the run\n")
    git(other, "add", "-A")
    git(other, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "meanwhile")
    git(other, "push", "-q", "origin", "HEAD:main")

    rehearsal.run_job("merge", inputs, tmp_path / "merge")

    log = git(rehearsal.origin, "log", "--format=%s", "main")
    assert "meanwhile" in log and "results: CI matrix run" in log.splitlines()[0]
    tree = git(rehearsal.origin, "ls-tree", "-r", "--name-only", "main").splitlines()
    assert any(p.startswith("results/%s/" % machine) and p.endswith(".json")
               and not p.endswith("machine.json") for p in tree), "no record of the new machine"
    for name, data in old_files.items():  # the history machine's records untouched
        assert git(rehearsal.origin, "show", "main:results/%s/%s" % (history, name)
                   ).encode() == data
    report = origin_file(rehearsal, "generated-reports/CHANGES.md")
    assert "(machine `%s`)" % history in report
    assert "No two measured releases" not in report
    assert len(report.splitlines()) >= 0.9 * len(old_report.splitlines())
    # The site deployed is that of the pushed commit, and shows both machines.
    index = file_data.read_site_json(str(rehearsal.pages), "index.json")
    assert {history, machine} <= set(index["params"]["machine"])
    pushed = file_data.unpack("index.json", json.loads(file_data.SCRIPT_RE.search(
        origin_file(rehearsal, "html/%s/index.js" % file_data.FILE_DATA)).group(1))["index.json"])
    assert pushed["params"]["machine"] == index["params"]["machine"]
