"""Load the environment matrix (TOML tables beside this file) and answer questions about it.

Which MXNet releases exist, which PyPI package provides a flavor at a release, and whether
a release can run in a benchmark environment. Runs on the asv host *and* inside benchmark
environments (the asv install step), so it keeps to the standard library plus packaging,
with fallbacks to the copies vendored in pip for environments older than Python 3.11.
"""
from __future__ import annotations

import datetime as _dt
import os
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

from benchmarks import UserError

try:
    import tomllib
except ImportError:  # Python < 3.11 benchmark environments: pip vendors tomli
    from pip._vendor import tomli as tomllib  # type: ignore

try:
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version
except ImportError:  # benchmark environments without packaging: pip vendors it
    from pip._vendor.packaging.specifiers import SpecifierSet  # type: ignore
    from pip._vendor.packaging.version import Version  # type: ignore

DATA_DIR = os.path.dirname(os.path.abspath(__file__))

# The releases the ladder covers: the MXNet 1.x line on PyPI and the 2.0 pre-releases.
FIRST_RELEASE = Version("1.0.0")
LAST_RELEASE = Version("2.0.0b1")

OK = "ok"
NO_BUILD = "no build"
INCOMPATIBLE = "incompatible"
# Versions on PyPI that are not on the ladder (packages.toml, [off_ladder]).
NOT_RUNNABLE = "not runnable"
OFF_LADDER = "off ladder"
OFF_LADDER_STATUSES = (NOT_RUNNABLE, OFF_LADDER)


def in_range(version, spec):
    """Whether a release is in a specifier's range, pre-releases included: packaging leaves
    pre-releases out of `>=1.7` unless asked (older copies, such as the one pip vendors for
    benchmark environments, even out of ""), and 2.0.0b1 is an mxnet>=1.7 release."""
    return SpecifierSet(spec).contains(Version(version), prereleases=True)


def is_prerelease(release):
    return Version(release).is_prerelease


class MatrixError(UserError, ValueError):
    """Bad input to the matrix (unknown flavor, release, environment): the message says which."""


@dataclass(frozen=True)
class Flavor:
    name: str
    device: str
    summary: str
    packages: Tuple[Tuple[str, str], ...]  # (package name, release specifier)
    default: bool = False
    cuda: Optional[str] = None
    runtime: Optional[str] = None  # a [runtimes] name: the CUDA libraries come from PyPI

    def package_for(self, release: str) -> Optional[str]:
        """The package that provides this flavor at `release` (whether or not it has a wheel)."""
        for name, spec in self.packages:
            if in_range(release, spec):
                return name
        return None


@dataclass(frozen=True)
class Runtime:
    """CUDA libraries published as PyPI wheels (flavors.toml, [runtimes])."""
    name: str
    summary: str
    wheels: Tuple[str, ...]


@dataclass(frozen=True)
class Environment:
    name: str
    python: str
    numpy: str
    default: bool = False
    note: str = ""


@dataclass(frozen=True)
class ReleaseLimit:
    releases: str
    reason: str
    python_below: Optional[str] = None
    numpy_below: Optional[str] = None

    def violated_by(self, release: str, python: str, numpy: str) -> bool:
        if not in_range(release, self.releases):
            return False
        if self.python_below and Version(python) >= Version(self.python_below):
            return True
        if self.numpy_below and Version(numpy) >= Version(self.numpy_below):
            return True
        return False


@dataclass(frozen=True)
class Resolution:
    """What (release, flavor[, environment]) maps to."""
    release: str
    flavor: str
    status: str  # OK, NO_BUILD, INCOMPATIBLE or NOT_RUNNABLE (a wheel that does not import here)
    package: Optional[str] = None
    reason: str = ""

    @property
    def requirement(self) -> Optional[str]:
        return "%s==%s" % (self.package, self.release) if self.package else None

    def describe(self) -> str:
        if self.status == OK:
            return self.requirement
        return "%s: %s" % (self.status, self.reason)


@dataclass(frozen=True)
class OffLadderGroup:
    """Versions on PyPI that the ladder leaves out, with why (packages.toml, [off_ladder])."""
    releases: Tuple[str, ...]
    status: str  # NOT_RUNNABLE or OFF_LADDER
    reason: str


def _known(table, name, what):
    """table[name], or a MatrixError that lists the known names."""
    try:
        return table[name]
    except KeyError:
        raise MatrixError("unknown %s %r; known %ss: %s"
                          % (what, name, what, ", ".join(table))) from None


@dataclass
class Matrix:
    packages: Dict[str, Dict[str, _dt.date]]
    flavors: Dict[str, Flavor]
    environments: Dict[str, Environment]
    limits: List[ReleaseLimit] = field(default_factory=list)
    placeholders: Dict[str, List[str]] = field(default_factory=dict)  # package -> versions
    off_ladder_packages: Dict[str, Dict[str, _dt.date]] = field(default_factory=dict)
    off_ladder_groups: List[OffLadderGroup] = field(default_factory=list)
    runtimes: Dict[str, Runtime] = field(default_factory=dict)
    # package -> version -> why it does not import here
    not_importable: Dict[str, Dict[str, str]] = field(default_factory=dict)

    # -- releases -------------------------------------------------------------------------
    def releases(self) -> List[str]:
        """Every version any package has in the covered range, oldest first."""
        versions = {v for vs in self.packages.values() for v in vs}
        return sorted(versions, key=Version)

    def final_releases(self) -> List[str]:
        """The releases that are not pre-releases (the defaults of mxbench choose from these)."""
        return [r for r in self.releases() if not is_prerelease(r)]

    def release_date(self, release: str) -> _dt.date:
        """The first day any Linux wheel of `release` was on PyPI (off-ladder versions too)."""
        dates = [vs[release] for table in (self.packages, self.off_ladder_packages)
                 for vs in table.values() if release in vs]
        if not dates:
            raise MatrixError(self._unknown_release_message(release))
        return min(dates)

    def check_release(self, release: str) -> str:
        if release not in self.releases():
            raise MatrixError(self._unknown_release_message(release))
        return release

    def off_ladder_group(self, release: str) -> Optional[OffLadderGroup]:
        return next((g for g in self.off_ladder_groups if release in g.releases), None)

    def off_ladder_releases(self) -> List[str]:
        versions = {v for vs in self.off_ladder_packages.values() for v in vs}
        return sorted(versions, key=Version)

    def _unknown_release_message(self, release: str) -> str:
        group = self.off_ladder_group(release)
        if group is not None:
            return ("MXNet %s is on PyPI but not on the release ladder (%s): %s"
                    % (release, group.status, group.reason))
        return "unknown MXNet release %r; known releases: %s" % (
            release, ", ".join(self.label(r) for r in self.releases()))

    def label(self, release: str) -> str:
        """A release as listings show it: '2.0.0b1 (pre-release)', '1.9.1'."""
        return "%s (pre-release)" % release if is_prerelease(release) else release

    # -- flavors / environments ----------------------------------------------------------
    def flavor(self, name: str) -> Flavor:
        return _known(self.flavors, name, "flavor")

    def environment(self, name: str) -> Environment:
        return _known(self.environments, name, "environment")

    def runtime(self, flavor: str) -> Optional[Runtime]:
        """The PyPI CUDA runtime of a GPU flavor; None: CPU, or a system CUDA is needed."""
        fl = self.flavor(flavor)
        return self.runtimes[fl.runtime] if fl.runtime else None

    def cuda_requirement(self, flavor: str) -> Optional[str]:
        """What a GPU flavor needs besides its wheel, in words (None for CPU flavors)."""
        fl = self.flavor(flavor)
        if fl.device != "gpu":
            return None
        runtime = self.runtime(flavor)
        if runtime is not None:
            return "only the NVIDIA driver (installs the %s)" % runtime.summary
        return "needs a system CUDA %s with cuDNN (its CUDA libraries are not on PyPI)" % fl.cuda

    def default_flavors(self) -> List[str]:
        return [f.name for f in self.flavors.values() if f.default]

    def default_environment(self) -> Environment:
        return next(e for e in self.environments.values() if e.default)

    # -- the mapping ----------------------------------------------------------------------
    def resolve(self, release: str, flavor: str, python: Optional[str] = None,
                numpy: Optional[str] = None) -> Resolution:
        """Map (release, flavor) to a wheel; with python/numpy, also check it can run there."""
        self.check_release(release)
        fl = self.flavor(flavor)
        package = fl.package_for(release)
        if package is None:
            return Resolution(release, flavor, NO_BUILD,
                              reason="flavor %s has no package for release %s" % (flavor, release))
        versions = self.packages.get(package, {})
        if release not in versions:
            have = sorted(versions, key=Version)
            if len(have) > 4:  # keep the message one readable line
                have = ["%d releases from %s to %s" % (len(have), have[0], have[-1])]
            return Resolution(release, flavor, NO_BUILD, package=None,
                              reason="%s has no %s wheel for Linux x86_64 (it has: %s)"
                              % (package, release, ", ".join(have) or "none"))
        why = self.not_importable.get(package, {}).get(release)
        if why:
            return Resolution(release, flavor, NOT_RUNNABLE, package=None,
                              reason="%s==%s installs but does not import here: %s"
                              % (package, release, why))
        if python is not None and numpy is not None:
            for limit in self.limits:
                if limit.violated_by(release, python, numpy):
                    return Resolution(release, flavor, INCOMPATIBLE, package=None,
                                      reason="%s==%s cannot run with Python %s / numpy %s: %s"
                                      % (package, release, python, numpy, limit.reason))
        return Resolution(release, flavor, OK, package=package)

    def table(self, flavors: List[str], environment: Optional[str] = None) -> List[List[str]]:
        """Rows of release, date, then per flavor 'package==version' / 'no build' / 'incompatible';
        versions on PyPI but not on the ladder: 'not runnable' / 'off ladder' (the reasons:
        off_ladder_groups). Pre-releases are labelled so."""
        env = self.environment(environment) if environment else None
        for flavor in flavors:
            self.flavor(flavor)
        rows = []
        for release in sorted(self.releases() + self.off_ladder_releases(), key=Version):
            row = [self.label(release), self.release_date(release).isoformat()]
            group = self.off_ladder_group(release)
            for flavor in flavors:
                if group is not None:
                    package = self.flavor(flavor).package_for(release)
                    has = release in self.off_ladder_packages.get(package, {})
                    row.append(group.status if has else NO_BUILD)
                    continue
                res = self.resolve(release, flavor, env.python if env else None,
                                   env.numpy if env else None)
                row.append(res.requirement if res.status == OK else res.status)
            rows.append(row)
        return rows


def _parse(data_dir: str) -> Matrix:
    def read(name):
        with open(os.path.join(data_dir, name), "rb") as fh:
            return tomllib.load(fh)

    packages_toml = read("packages.toml")
    packages_raw = packages_toml["packages"]
    placeholders = {name: list(p["versions"])
                    for name, p in packages_toml.get("placeholders", {}).items()}
    not_importable = {}
    for name, entry in packages_toml.get("not_importable", {}).items():
        missing = [v for v in entry["versions"] if v not in packages_raw.get(name, {})]
        if missing:
            raise MatrixError("packages.toml: not_importable %s %s: not on the ladder"
                              % (name, ", ".join(missing)))
        not_importable[name] = dict((v, entry["reason"]) for v in entry["versions"])
    packages = {}
    for name, versions in packages_raw.items():
        packages[name] = {}
        for version, date in versions.items():
            if not isinstance(date, _dt.date):
                raise MatrixError("packages.toml: %s %s: date must be a TOML date, got %r"
                                  % (name, version, date))
            packages[name][version] = date

    flavors_toml = read("flavors.toml")
    runtimes = {name: Runtime(name, r["summary"], tuple(r["wheels"]))
                for name, r in flavors_toml.get("runtimes", {}).items()}
    flavors = {}
    for name, spec in flavors_toml["flavors"].items():
        flavors[name] = Flavor(
            name=name, device=spec["device"], summary=spec["summary"],
            packages=tuple((p["name"], p["releases"]) for p in spec["packages"]),
            default=spec.get("default", False), cuda=spec.get("cuda"),
            runtime=spec.get("runtime"))
        if flavors[name].runtime and flavors[name].runtime not in runtimes:
            raise MatrixError("flavors.toml: flavor %s names runtime %r, which [runtimes] lacks"
                              % (name, flavors[name].runtime))

    env_raw = read("environments.toml")
    environments = {name: Environment(name=name, python=e["python"], numpy=e["numpy"],
                                      default=e.get("default", False), note=e.get("note", ""))
                    for name, e in env_raw["environments"].items()}
    limits = [ReleaseLimit(**lim) for lim in env_raw.get("release_limits", [])]

    off = packages_toml.get("off_ladder", {})
    off_packages = {name: dict(versions) for name, versions in off.get("packages", {}).items()}
    groups = [OffLadderGroup(tuple(g["releases"]), g["status"], g["reason"])
              for g in off.get("groups", [])]
    for group in groups:
        if group.status not in OFF_LADDER_STATUSES:
            raise MatrixError("packages.toml: off_ladder status must be one of %s, got %r"
                              % (", ".join(OFF_LADDER_STATUSES), group.status))
    listed = {v for vs in off_packages.values() for v in vs}
    grouped = [v for g in groups for v in g.releases]
    if sorted(listed, key=Version) != sorted(grouped, key=Version):
        raise MatrixError("packages.toml: every off-ladder version needs exactly one group "
                          "(listed: %s; grouped: %s)" % (sorted(listed), sorted(grouped)))
    on_ladder = {v for vs in packages.values() for v in vs}
    if listed & on_ladder:
        raise MatrixError("packages.toml: %s both on and off the ladder"
                          % ", ".join(sorted(listed & on_ladder)))
    return Matrix(packages, flavors, environments, limits, placeholders, off_packages, groups,
                  runtimes, not_importable)


@lru_cache(maxsize=None)
def load(data_dir: str = DATA_DIR) -> Matrix:
    return _parse(data_dir)
