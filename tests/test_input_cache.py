"""The input cache (harness.inputs.drawn): a process reading a kept draw gets the very values, and
leaves the generator where, that drawing them would have (real mxnet 1.9.1, real files)."""
import os

import numpy as np
import pytest

mx = pytest.importorskip("mxnet")

from benchmarks import harness as H  # noqa: E402
from benchmarks.catalogue import by_class_name  # noqa: E402

SHAPE = (512, 256)  # above INPUT_CACHE_MIN_ELEMENTS


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "inputs"
    monkeypatch.setenv("MXBENCH_INPUT_CACHE", str(folder))
    return folder


def entries(cache):
    """The kept draws' files (each has its digest beside it)."""
    return sorted(cache.glob("*.npz"))


def draw_twice(seed=7, shape=SHAPE):
    """(values, the generator's next draw), through drawn() within cached_draws()."""
    rng = np.random.RandomState(seed)
    with H.cached_draws():
        values = H.drawn(repr(("t", shape)), rng, lambda: rng.standard_normal(shape), shape,
                         "float32")
    return values, rng.uniform(size=3)


def test_a_kept_draw_reads_back_the_values_and_the_generator_state(cache):
    rng = np.random.RandomState(7)
    plain = rng.standard_normal(SHAPE).astype("float32"), rng.uniform(size=3)
    first = draw_twice()  # drawn and kept
    assert len(entries(cache)) == 1 and len(os.listdir(cache)) == 2
    second = draw_twice()  # read back
    for got in (first, second):
        assert got[0].dtype == np.float32 and np.array_equal(got[0], plain[0])
        assert np.array_equal(got[1], plain[1])
    other = draw_twice(seed=8)  # another generator state is another key
    assert not np.array_equal(other[0], plain[0]) and len(entries(cache)) == 2


def test_a_bad_file_is_drawn_again_and_replaced(cache):
    draw_twice()
    (kept,) = entries(cache)
    kept.write_bytes(kept.read_bytes()[:100])  # truncated
    values, after = draw_twice()
    rng = np.random.RandomState(7)
    assert np.array_equal(values, rng.standard_normal(SHAPE).astype("float32"))
    assert np.array_equal(after, rng.uniform(size=3))
    assert kept.stat().st_size > 100 * 1000


def test_small_draws_outside_the_timing_setup_or_switched_off_are_not_kept(cache, monkeypatch):
    draw_twice(shape=(16, 16))
    rng = np.random.RandomState(7)
    H.drawn("outside", rng, lambda: rng.standard_normal(SHAPE), SHAPE, "float32")
    assert not cache.exists() or not os.listdir(cache)
    monkeypatch.setenv("MXBENCH_INPUT_CACHE", "0")
    draw_twice()
    assert not cache.exists() or not os.listdir(cache)


@pytest.mark.parametrize("entry", ["LayerNorm", "elemwise_add_csr", "sgd_update_row_sparse",
                                   "np_sin"])
def test_a_timing_setup_builds_the_same_inputs_from_the_cache(cache, monkeypatch, entry):
    """prepare_call's inputs (dense, csr, row_sparse, mx.np): uncached, kept, read back."""
    op = by_class_name()[entry]

    def inputs():
        H._CALLS.clear()
        call = H.prepare_call(op, "medium", op.dtypes[0], mx.cpu())
        arrays = list(call.args) + [v for _, v in sorted(call.kwargs.items())
                                    if hasattr(v, "asnumpy")]
        return [a.tostype("default").asnumpy() if getattr(a, "stype", "default") != "default"
                else a.asnumpy() for a in arrays]

    monkeypatch.setenv("MXBENCH_INPUT_CACHE", "0")
    plain = inputs()
    monkeypatch.setenv("MXBENCH_INPUT_CACHE", str(cache))
    kept, read_back = inputs(), inputs()
    assert os.listdir(cache)
    assert len(plain) == len(kept) == len(read_back) > 0
    for a, b, c in zip(plain, kept, read_back):
        assert np.array_equal(a, b, equal_nan=True) and np.array_equal(a, c, equal_nan=True)
    H._CALLS.clear()


def test_a_kept_draw_is_read_not_drawn_whatever_its_dtype(cache):
    """The second call never draws: float32 values, and a boolean mask kept as drawn (the
    sparse entries' kept elements, out_dtype None)."""
    def refused():
        raise AssertionError("drawn again")

    for out_dtype, draw in (("float32", lambda rng: rng.standard_normal(SHAPE)),
                            (None, lambda rng: rng.uniform(0, 1, SHAPE) < 0.1)):
        first = np.random.RandomState(3)
        with H.cached_draws():
            kept = H.drawn(repr(out_dtype), first, lambda: draw(first), SHAPE, out_dtype)
            again = np.random.RandomState(3)
            read = H.drawn(repr(out_dtype), again, refused, SHAPE, out_dtype)
        assert read.dtype == kept.dtype and np.array_equal(read, kept)
        assert np.array_equal(again.uniform(size=2), first.uniform(size=2))


def rewrite_values(entry, change):
    """Rewrite a kept draw's values in place: same key, shape and dtype, other values."""
    with np.load(str(entry)) as kept:
        fields = dict(kept)
    fields["values"] = change(fields["values"])
    with open(str(entry), "wb") as fh:
        np.savez(fh, **fields)


@pytest.mark.parametrize("change", [lambda v: np.full_like(v, np.nan), lambda v: v[::-1].copy()],
                         ids=["all-nan", "reordered"])
def test_a_kept_draw_whose_values_changed_is_drawn_again(cache, change):
    """An entry rewritten with other values (all NaN: the benchmark would time NaN arithmetic)
    fails its digest: the values are drawn again, and the entry written again."""
    draw_twice()
    (kept,) = entries(cache)
    rewrite_values(kept, change)
    values, after = draw_twice()
    rng = np.random.RandomState(7)
    assert np.array_equal(values, rng.standard_normal(SHAPE).astype("float32"))
    assert np.array_equal(after, rng.uniform(size=3))
    with np.load(str(kept)) as again:
        assert np.array_equal(again["values"], values)


def test_an_entry_without_its_digest_is_drawn_again(cache):
    """An entry kept before digests (or whose digest is gone) is not trusted: drawn again,
    and kept with its digest."""
    def refused():
        raise AssertionError("drawn again")

    draw_twice()
    (digest,) = cache.glob("*.digest")
    digest.unlink()
    draw_twice()
    assert digest.exists()
    rng = np.random.RandomState(7)
    with H.cached_draws():
        read = H.drawn(repr(("t", SHAPE)), rng, refused, SHAPE, "float32")
    assert np.isfinite(read).all()
