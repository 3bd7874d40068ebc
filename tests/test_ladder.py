"""The release ladder is deterministic, complete, and safe to regenerate."""
import dataclasses
import datetime as dt
import os
import subprocess

from env_matrix import ladder
from env_matrix.matrix import load

MATRIX = load()


def git(path, *args):
    return subprocess.run(["git", "-C", str(path)] + list(args), check=True,
                          stdout=subprocess.PIPE, universal_newlines=True).stdout


def test_two_generations_in_different_places_give_identical_hashes(tmp_path, monkeypatch):
    first = ladder.build(str(tmp_path / "a"))
    # Whatever the user's git identity, clock zone and config say, nothing leaks in.
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone Else")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "x@example.com")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".gitconfig").write_text("[user]\n\tname = Other\n[commit]\n\tgpgsign = true\n")
    second = ladder.build(str(tmp_path / "nested" / "b"))
    assert first == second
    assert ladder.tags(str(tmp_path / "a")) == ladder.tags(str(tmp_path / "nested" / "b"))


def test_one_commit_and_tag_per_release_with_its_date(tmp_path):
    path = tmp_path / "ladder"
    ladder.build(str(path))
    tags = ladder.tags(str(path))
    assert sorted(tags) == sorted(MATRIX.releases())
    log = git(path, "log", "--first-parent", "--format=%H %ct %s", "main").splitlines()
    assert len(log) == len(MATRIX.releases()) + 1  # plus the empty root
    assert log[-1].endswith("Release ladder root (no MXNet release)")
    by_hash = {line.split()[0]: line for line in log}
    for release, when in ladder.ladder_dates(MATRIX):
        sha = tags[release]
        assert by_hash[sha].endswith("MXNet %s" % release)
        assert int(by_hash[sha].split()[1]) == int(when.timestamp())
        assert git(path, "show", "%s:MXNET_RELEASE" % sha).strip() == release
    assert git(path, "rev-list", "--count", "1.8.0.post0^..1.9.1").strip() == "3"


def test_ensure_is_idempotent_and_repairs_a_damaged_ladder(tmp_path):
    path = str(tmp_path / "ladder")
    head, changed = ladder.ensure(path)
    assert changed
    assert ladder.ensure(path) == (head, False)
    git(path, "tag", "-d", "1.9.0")  # damage it
    assert ladder.ensure(path) == (head, True)
    assert "1.9.0" in ladder.tags(path)
    # Something that is not a git repo at all is replaced, not merged into.
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "file").write_text("x")
    assert ladder.ensure(str(junk))[0] == head


def test_appending_a_release_keeps_every_earlier_hash(tmp_path):
    before = ladder.build(str(tmp_path / "before"))
    old_tags = ladder.tags(str(tmp_path / "before"))
    packages = {k: dict(v) for k, v in MATRIX.packages.items()}
    packages["mxnet"]["1.9.1"] = packages["mxnet"]["1.9.1"]  # unchanged
    # A hypothetical later release (the matrix's range check is bypassed on purpose).
    packages["mxnet"]["1.9.2"] = dt.date(2023, 1, 1)
    grown = dataclasses.replace(MATRIX, packages=packages)
    ladder.build(str(tmp_path / "after"), grown)
    new_tags = ladder.tags(str(tmp_path / "after"))
    assert {k: new_tags[k] for k in old_tags} == old_tags
    assert git(tmp_path / "after", "rev-parse", "main~1").strip() == before


def test_adding_a_flavor_package_does_not_change_hashes(tmp_path):
    head = ladder.build(str(tmp_path / "a"))
    packages = {k: dict(v) for k, v in MATRIX.packages.items()}
    packages["mxnet-hypothetical"] = {"1.9.1": dt.date(2022, 6, 1)}
    assert ladder.build(str(tmp_path / "b"), dataclasses.replace(MATRIX, packages=packages)) == head
