"""The release ladder is deterministic, complete, and safe to regenerate."""
import dataclasses
import datetime as dt
import subprocess

from env_matrix import ladder
from env_matrix.matrix import load

MATRIX = load()

# The ladder commits of the 1.x releases, as generated before the 2.0 pre-releases joined the
# ladder: results/ (and experiments/) are attached to these hashes (their file names start
# with the first 8 hex digits). Nothing added to the data may change one of them.
HASHES_1X = {
    "1.0.0": "fb18223a24b45a31d3f34cf1f7f999fc890c0b77",
    "1.0.0.post0": "dfff372d97fc576cc8b77147fe29e856f72110fc",
    "1.0.0.post1": "70f5f4cd7cbca2922b919fd4789d2f5405f482a8",
    "1.0.0.post2": "8e73c42200555fcca315e42488004fb066a6770b",
    "1.0.0.post3": "f132e1ff11bd8d435b64fe175149b7592deb2ae6",
    "1.0.0.post4": "154b7a0214bbb0a5b5455518a627a4001f0cfa97",
    "1.1.0": "f2ba6aba46e96ee1d39df4289d2c2434866efede",
    "1.1.0.post0": "67b37c22543b718fcdc81bab2add1841316d6943",
    "1.2.0": "aa570fd04027970ee2a86b113109ee2dcc5af842",
    "1.2.1": "99172e5f42d8e06142dd55c2f62b52573fc8380a",
    "1.2.1.post0": "9339110ffe0e0d206f1821b9dfce0dfd9f7777a7",
    "1.2.1.post1": "9461f1ac3695b6281d75f28097db779b5e89e618",
    "1.3.0": "a776670cbf53a6959956c7887ec3ad500645fe69",
    "1.3.0.post0": "77f75e8dec3f25a7d6cf008f284160275f4cab28",
    "1.3.1": "b49bfe1b93ffaa8d525b7ada1171a602b63c514e",
    "1.4.0": "63c410d64974e321670c56f362d03970ad1b0500",
    "1.4.0.post0": "3c249ab96d5119aea5b08deff19826604d695c07",
    "1.4.1": "91f5740e43797f65c6a6435edf392ed59b5d1d90",
    "1.5.0": "013845c3d4345dab65073dba8e4aba09396ee6d9",
    "1.5.1": "740529ea11dd8efbbbc37d4d110e0874d4302d3c",
    "1.5.1.post0": "44ff025dfbbdb6a06094cb887fdbd59a79905955",
    "1.6.0": "ebc37c66f5b01f14d5505f3ff4e62789edbdd9ba",
    "1.6.0.post0": "5f8bd4e543e428f368412a334172bdd19aa6d81a",
    "1.7.0": "fad34f3a87379461dea96d0c9b82ef9f8eebe37c",
    "1.7.0.post0": "92c9241dfbc376981b664cd71dd0a46d8c2f7773",
    "1.7.0.post1": "2550492b0b5cc5ca2429493757661fbf27eda839",
    "1.7.0.post2": "0bde45adcba79d0e0d283b26179c741a192fce15",
    "1.8.0": "f66e21673f6f1073c815a030224649cd9d07882e",
    "1.8.0.post0": "b27765f8f972b31af979440b69482da5449808ed",
    "1.9.0": "55a233c90e5519d6cf85611de146fe907ff9d061",
    "1.9.1": "bd164242339775222401ed7165eb37afd4a35110",
}


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


def test_the_1x_commits_keep_the_hashes_results_is_attached_to(tmp_path):
    ladder.build(str(tmp_path / "ladder"))
    tags = ladder.tags(str(tmp_path / "ladder"))
    assert {r: tags[r] for r in HASHES_1X} == HASHES_1X
    assert [r for r in MATRIX.releases() if r not in HASHES_1X] == ["2.0.0a0", "2.0.0b1"]
    assert git(tmp_path / "ladder", "rev-parse", "2.0.0a0^").strip() == HASHES_1X["1.9.1"]


def test_pre_releases_sit_at_1_9_1s_day_and_leave_the_1x_dates_alone():
    """2.0.0a0 was uploaded (2021-03-31) before 1.9.0 and 1.9.1: under a rule that let any
    later release pull a date back, both would move to that day (and change hashes)."""
    days = dict((r, when.date()) for r, when in ladder.ladder_dates(MATRIX))
    assert days["1.9.0"] == dt.date(2021, 12, 18) and days["1.9.1"] == dt.date(2022, 5, 17)
    assert days["2.0.0a0"] == days["2.0.0b1"] == dt.date(2022, 5, 17)
    assert MATRIX.release_date("2.0.0a0") == dt.date(2021, 3, 31)


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
        assert by_hash[sha].endswith(ladder.commit_subject(release))
        assert by_hash[sha].endswith("(pre-release)") == (release in ("2.0.0a0", "2.0.0b1"))
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


def with_release(release, day):
    """The matrix plus a hypothetical plain-mxnet release (the range check is bypassed)."""
    packages = {k: dict(v) for k, v in MATRIX.packages.items()}
    packages["mxnet"][release] = day
    return dataclasses.replace(MATRIX, packages=packages)


def test_appending_a_release_keeps_every_earlier_hash(tmp_path):
    before = ladder.build(str(tmp_path / "before"))
    old_tags = ladder.tags(str(tmp_path / "before"))
    ladder.build(str(tmp_path / "after"), with_release("2.0.0", dt.date(2023, 1, 1)))
    new_tags = ladder.tags(str(tmp_path / "after"))
    assert {k: new_tags[k] for k in old_tags} == old_tags
    assert git(tmp_path / "after", "rev-parse", "main~1").strip() == before


def test_a_later_series_cannot_move_the_dates_of_an_earlier_one(tmp_path):
    """A 2.x release uploaded before 1.9.1 takes 1.9.1's day; the 1.x commits stay as they are.
    Within a series the earlier releases still take the earlier day (1.7.0.post0's rule)."""
    grown = with_release("2.0.0", dt.date(2021, 1, 1))
    ladder.build(str(tmp_path / "ladder"), grown)
    tags = ladder.tags(str(tmp_path / "ladder"))
    assert {r: tags[r] for r in HASHES_1X} == HASHES_1X
    days = dict((r, when.date()) for r, when in ladder.ladder_dates(grown))
    assert days["2.0.0a0"] == days["2.0.0b1"] == days["2.0.0"] == days["1.9.1"]
    assert days["1.7.0.post0"] == MATRIX.release_date("1.7.0.post1") < MATRIX.release_date("1.7.0.post0")


def test_adding_a_flavor_package_does_not_change_hashes(tmp_path):
    head = ladder.build(str(tmp_path / "a"))
    packages = {k: dict(v) for k, v in MATRIX.packages.items()}
    packages["mxnet-hypothetical"] = {"1.9.1": dt.date(2022, 6, 1)}
    assert ladder.build(str(tmp_path / "b"), dataclasses.replace(MATRIX, packages=packages)) == head
