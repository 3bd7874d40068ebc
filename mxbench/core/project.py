"""This suite's asv project as one object: one config, loaded once, and what follows from it.

    project = Project.load("asv.conf.json")
    project.environment("cpu-openblas")          # asv environment name of a flavor
    project.commit("1.9.1")                      # ladder commit of a release
    project.built_releases("cpu-openblas")       # releases the flavor can run here
    project.store                                # the results (mxbench.core.results.Store)

Every mxbench command asks this object; nothing else parses asv configs, ladder tags or
the release x flavor matrix.
"""
import os
from collections import namedtuple
from functools import lru_cache

from benchmarks import ROOT
from env_matrix import ladder
from env_matrix.matrix import OK, MatrixError, load as load_matrix

from mxbench.core import results
from mxbench.core.errors import UserError

DEFAULT_CONFIG = os.path.join(ROOT, "asv.conf.json")
GPU_CONFIG = os.path.join(ROOT, "asv.gpu.conf.json")
VARIANTS_CONFIG = os.path.join(ROOT, "asv.variants.conf.json")
# 1.2.x imports only on Python 3.7: its history is recorded through this config, into the
# same results/ as the default config's.
PY37_CONFIG = os.path.join(ROOT, "asv.py37.conf.json")
EXPERIMENTS = "experiments"  # beside results/: A/A pairs and A/B variant runs
# beside results/: other CPU kinds' own records, a machine each (results/ keeps the committed
# history alone, so plain asv commands read one machine without --machine)
CPU_KINDS = "results-cpu-kinds"
DEFAULT_VARIANT = "default"

Environment = namedtuple("Environment", "name flavor variant")


# asv's defaults for the paths a config may leave out (asv.config.Config)
ASV_DEFAULTS = {"results_dir": "results", "html_dir": "html", "env_dir": "env",
                "benchmark_dir": "benchmarks"}


def read_config(path=DEFAULT_CONFIG):
    """asv.conf.json as asv reads it (asv accepts // comments and trailing commas); one that
    cannot be read is a UserError naming it."""
    from asv.util import load_json
    try:
        conf = load_json(path, js_comments=True)
    except (OSError, ValueError) as exc:
        raise UserError("%s: not a readable asv config (%s)" % (path, exc))
    if not isinstance(conf, dict):
        raise UserError("%s: not an asv config (a JSON object)" % path)
    return conf


class Project(object):
    """One asv config of this suite (asv.conf.json, the GPU, variants or Python 3.7 one)."""

    def __init__(self, config=DEFAULT_CONFIG, results_dir=None):
        self.config = os.path.abspath(str(config))
        if not os.path.isfile(self.config):
            raise MatrixError("no asv config at %s" % self.config)
        self.conf = read_config(self.config)
        self.base = os.path.dirname(self.config)
        try:
            self._read_conf(results_dir)
        except (KeyError, IndexError, TypeError) as exc:
            raise UserError("%s: not a config of this suite (%s missing or malformed)"
                            % (self.config, exc))
        self._results_override = results_dir
        self._tags = None
        self._environments = None

    def _read_conf(self, results_dir):
        self.ladder_dir = self._path("repo")
        # results/ is the history; experiments (A/A pairs, A/B variants) live apart, in
        # experiments/, so that plain asv commands and the site see one history.
        self.results_dir = (os.path.abspath(results_dir) if results_dir
                            else self._path("results_dir"))
        self.experiments_dir = os.path.join(self.base, EXPERIMENTS)
        self.html_dir = self._path("html_dir")
        self.env_dir = self._path("env_dir")
        self.python = self.conf["pythons"][0]
        self.numpy = self.conf["matrix"]["req"].get("numpy")
        self.matrix = load_matrix()
        self.store = results.Store(self.results_dir)

    @classmethod
    @lru_cache(maxsize=None)
    def load(cls, config=DEFAULT_CONFIG, results_dir=None):
        return cls(config, results_dir)

    @property
    def results_override(self):
        """The results directory given instead of the config's (--results DIR), or None."""
        return self._results_override

    @property
    def history_store(self):
        """results/ of the default config beside this one (the history)."""
        return results.Store(os.path.join(self.base, "results"))

    @property
    def experiments_store(self):
        return results.Store(self.experiments_dir)

    def _path(self, key):
        if key not in self.conf and key in ASV_DEFAULTS:
            return os.path.join(self.base, ASV_DEFAULTS[key])
        return os.path.join(self.base, self.conf[key])

    @property
    def name(self):
        return os.path.basename(self.config)

    # --- the ladder ---------------------------------------------------------------------------
    def ensure_ladder(self):
        head, changed = ladder.ensure(self.ladder_dir)
        self._tags = None
        return head, changed

    @property
    def tags(self):
        """{release: ladder commit}. A fresh clone has no ladder yet: it is generated (it is
        deterministic), so reading committed results needs no setup step first."""
        if self._tags is None:
            if not os.path.isdir(self.ladder_dir):
                ladder.ensure(self.ladder_dir)
            self._tags = ladder.tags(self.ladder_dir)
            require_generated_tags(self.ladder_dir, self._tags)
        return self._tags

    def commit(self, release):
        """The ladder commit of a release; unknown: a MatrixError naming the known ones."""
        self.matrix.check_release(release)
        return self.tags[release]

    def release_of(self, commit):
        return dict((c, r) for r, c in self.tags.items()).get(commit)

    # --- releases x flavors -------------------------------------------------------------------
    def wheel(self, release, flavor):
        """What (release, flavor) installs in this config's environments (a Resolution)."""
        return self.matrix.resolve(release, flavor, self.python, self.numpy)

    def built_releases(self, flavor, releases=None):
        """Releases (all, or those given, in that order) that the flavor can run here."""
        return [r for r in (self.matrix.releases() if releases is None else releases)
                if self.wheel(r, flavor).status == OK]

    def require_build(self, release, flavor):
        self.matrix.check_release(release)
        wheel = self.wheel(release, flavor)
        if wheel.status != OK:
            raise MatrixError("%s %s: %s" % (release, flavor, wheel.describe()))

    def newest_per_minor_line(self, flavors):
        """For each flavor, the newest final release of every minor line (1.0 ... 1.9) it can
        run; pre-releases (the 2.0 line has only those) run when named."""
        from packaging.version import Version
        chosen = set()
        for flavor in flavors:
            newest = {}
            for release in self.built_releases(flavor, self.matrix.final_releases()):
                newest[Version(release).release[:2]] = release
            chosen.update(newest.values())
        return sorted(chosen, key=Version)

    # --- environments -------------------------------------------------------------------------
    @property
    def flavors(self):
        return list(self.conf["matrix"]["env"]["MXNET_FLAVOR"])

    @property
    def environments(self):
        """[Environment(name, flavor, variant)] of the matrix, as asv names them."""
        if self._environments is None:
            from asv.config import Config
            from asv.environment import get_environments
            conf = Config.load(self.config)
            self._environments = [
                Environment(env.name, env.env_vars.get("MXNET_FLAVOR"),
                            env.env_vars.get("MXBENCH_VARIANT", DEFAULT_VARIANT))
                for env in get_environments(conf, None, verbose=False)]
        return self._environments

    @property
    def variants(self):
        return sorted(set(e.variant for e in self.environments))

    def environment_names(self, variant=DEFAULT_VARIANT):
        """{flavor: asv environment name} for one variant."""
        return dict((e.flavor, e.name) for e in self.environments if e.variant == variant)

    def environment(self, flavor, variant=DEFAULT_VARIANT):
        """The asv environment of (flavor, variant); what is not in this config is a
        MatrixError that says which config has it."""
        self.matrix.flavor(flavor)  # unknown flavor: names the known ones
        if variant not in self.variants:
            raise MatrixError("variant %s is not in the matrix of %s (it has: %s)%s"
                              % (variant, self.name, ", ".join(self.variants),
                                 "; the other variants are in asv.variants.conf.json"
                                 if self.variants == [DEFAULT_VARIANT] else
                                 "; 'default' is asv.conf.json" if variant == DEFAULT_VARIANT
                                 else ""))
        names = self.environment_names(variant)
        if flavor not in names:
            raise MatrixError("flavor %s is not in the matrix of %s (it has: %s)%s"
                              % (flavor, self.name, ", ".join(sorted(names)),
                                 "; GPU flavors are in asv.gpu.conf.json"
                                 if flavor.startswith("gpu") else ""))
        return names[flavor]

    def for_variants(self, variants):
        """asv.variants.conf.json in place of the default config when a variant other than
        "default" is asked for: that is where the variants live. Any other config as is."""
        if self.config == DEFAULT_CONFIG and set(variants) - {DEFAULT_VARIANT}:
            return load(VARIANTS_CONFIG, self._results_override)
        return self

    def variant_environment(self, flavor, variant):
        """The environment of (flavor, variant) from this config if it has the variant,
        else from asv.variants.conf.json (which holds every variant but "default")."""
        try:
            return self.environment(flavor, variant)
        except MatrixError:
            if variant == DEFAULT_VARIANT or self.config == VARIANTS_CONFIG:
                raise
            return Project.load(VARIANTS_CONFIG).environment(flavor, variant)

    def result_stamp(self):
        """mxbench's fields each result file recorded through this config carries beside
        asv's: for the baselines (benchmarks_baselines), the versions their counterparts were
        checked equal with (docs/baselines.md); None for the other configs."""
        if self.conf.get("benchmark_dir") != "benchmarks_baselines":
            return None
        from benchmarks.counterparts import CHECKED_AGAINST
        return {results.CHECKED_AGAINST: dict(CHECKED_AGAINST)}

    # --- where scratch runs go ----------------------------------------------------------------
    @property
    def work_dir(self):
        """Git-ignored scratch beside the results: staging, check results, config copies."""
        return os.path.join(os.path.dirname(self.results_dir), ".asv")


@lru_cache(maxsize=None)
def generated_tags():
    """{release: commit} of the ladder as `python -m env_matrix ladder` generates it now."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="mxbench-ladder-") as scratch:
        path = os.path.join(scratch, "ladder")
        ladder.build(path)
        return ladder.tags(path)


def require_generated_tags(ladder_dir, tags):
    """The ladder's tags must be the generated ladder's: a moved, missing or stale tag would
    compare (and record) the wrong release. UserError naming it and the command that fixes it."""
    expected = generated_tags()
    wrong = sorted((r for r in set(expected) | set(tags) if expected.get(r) != tags.get(r)),
                   key=lambda r: (r not in expected, r))
    if wrong:
        release = wrong[0]
        found = tags.get(release)
        raise UserError(
            "the release ladder %s does not match the generated one: tag %s %s (the generated "
            "ladder has %s)%s; regenerate it with `python -m mxbench setup`"
            % (ladder_dir, release, "points at %s" % found[:12] if found else "is missing",
               expected[release][:12] if release in expected else "no such tag",
               " and %d other tag(s) differ" % (len(wrong) - 1) if len(wrong) > 1 else ""))


def load(config=DEFAULT_CONFIG, results_dir=None):
    """The project of an asv config (cached); `results_dir` records/reads elsewhere, e.g.
    experiments/ for an A/A run of the default settings."""
    return Project.load(os.path.abspath(str(config)),
                        os.path.abspath(str(results_dir)) if results_dir else None)
