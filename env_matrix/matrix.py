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

# The releases the ladder covers: the MXNet 1.x line on PyPI.
FIRST_RELEASE = Version("1.0.0")
LAST_RELEASE = Version("1.9.1")

OK = "ok"
NO_BUILD = "no build"
INCOMPATIBLE = "incompatible"


class MatrixError(ValueError):
    """Bad input to the matrix (unknown flavor, release, environment): the message says which."""


@dataclass(frozen=True)
class Flavor:
    name: str
    device: str
    summary: str
    packages: Tuple[Tuple[str, str], ...]  # (package name, release specifier)
    default: bool = False
    cuda: Optional[str] = None

    def package_for(self, release: str) -> Optional[str]:
        """The package that provides this flavor at `release` (whether or not it has a wheel)."""
        version = Version(release)
        for name, spec in self.packages:
            if version in SpecifierSet(spec):
                return name
        return None


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
        if Version(release) not in SpecifierSet(self.releases):
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
    status: str  # OK, NO_BUILD or INCOMPATIBLE
    package: Optional[str] = None
    reason: str = ""

    @property
    def requirement(self) -> Optional[str]:
        return "%s==%s" % (self.package, self.release) if self.package else None

    def describe(self) -> str:
        if self.status == OK:
            return self.requirement
        return "%s: %s" % (self.status, self.reason)


@dataclass
class Matrix:
    packages: Dict[str, Dict[str, _dt.date]]
    flavors: Dict[str, Flavor]
    environments: Dict[str, Environment]
    limits: List[ReleaseLimit] = field(default_factory=list)
    placeholders: Dict[str, List[str]] = field(default_factory=dict)  # package -> versions

    # -- releases -------------------------------------------------------------------------
    def releases(self) -> List[str]:
        """Every version any package has in the covered range, oldest first."""
        versions = {v for vs in self.packages.values() for v in vs}
        return sorted(versions, key=Version)

    def release_date(self, release: str) -> _dt.date:
        """The first day any Linux wheel of `release` was on PyPI."""
        dates = [vs[release] for vs in self.packages.values() if release in vs]
        if not dates:
            raise MatrixError(self._unknown_release_message(release))
        return min(dates)

    def check_release(self, release: str) -> str:
        if release not in self.releases():
            raise MatrixError(self._unknown_release_message(release))
        return release

    def _unknown_release_message(self, release: str) -> str:
        return "unknown MXNet release %r; known releases: %s" % (release, ", ".join(self.releases()))

    # -- flavors / environments ----------------------------------------------------------
    def flavor(self, name: str) -> Flavor:
        try:
            return self.flavors[name]
        except KeyError:
            raise MatrixError("unknown flavor %r; known flavors: %s"
                              % (name, ", ".join(self.flavors))) from None

    def environment(self, name: str) -> Environment:
        try:
            return self.environments[name]
        except KeyError:
            raise MatrixError("unknown environment %r; known environments: %s"
                              % (name, ", ".join(self.environments))) from None

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
        if python is not None and numpy is not None:
            for limit in self.limits:
                if limit.violated_by(release, python, numpy):
                    return Resolution(release, flavor, INCOMPATIBLE, package=None,
                                      reason="%s==%s cannot run with Python %s / numpy %s: %s"
                                      % (package, release, python, numpy, limit.reason))
        return Resolution(release, flavor, OK, package=package)

    def table(self, flavors: List[str], environment: Optional[str] = None) -> List[List[str]]:
        """Rows of release, date, then per flavor 'package==version' / 'no build' / 'incompatible'."""
        env = self.environment(environment) if environment else None
        rows = []
        for release in self.releases():
            row = [release, self.release_date(release).isoformat()]
            for flavor in flavors:
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
    packages = {}
    for name, versions in packages_raw.items():
        packages[name] = {}
        for version, date in versions.items():
            if not isinstance(date, _dt.date):
                raise MatrixError("packages.toml: %s %s: date must be a TOML date, got %r"
                                  % (name, version, date))
            packages[name][version] = date

    flavors = {}
    for name, spec in read("flavors.toml")["flavors"].items():
        flavors[name] = Flavor(
            name=name, device=spec["device"], summary=spec["summary"],
            packages=tuple((p["name"], p["releases"]) for p in spec["packages"]),
            default=spec.get("default", False), cuda=spec.get("cuda"))

    env_raw = read("environments.toml")
    environments = {name: Environment(name=name, python=e["python"], numpy=e["numpy"],
                                      default=e.get("default", False), note=e.get("note", ""))
                    for name, e in env_raw["environments"].items()}
    limits = [ReleaseLimit(**lim) for lim in env_raw.get("release_limits", [])]
    return Matrix(packages, flavors, environments, limits, placeholders)


@lru_cache(maxsize=None)
def load(data_dir: str = DATA_DIR) -> Matrix:
    return _parse(data_dir)
