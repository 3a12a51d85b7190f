"""HTA's first analyses over weft's tables (weft.hta, issue #56) against HTA itself (HolisticTraceAnalysis,
installed in the test environment) on the HTA samples in ../shared/traces/chrome-json/hta (a folder per
sample, and a two-rank folder made from the sampled rank-0 trace): temporal breakdown and communication /
computation overlap, HTA's columns and numbers. Skipped, saying so, without HTA or the samples."""

import gzip
import logging
import shutil
import warnings

import numpy as np
import pandas as pd
import pytest

import weft
import weft.hta

from test_weft import SHARED

HTA_SAMPLES = SHARED / "chrome-json" / "hta"
SAMPLES = ["amd_mi250_minitoy_train_kineto.json.gz", "critical_path_simple_add_trace.json.gz",
           "trace_filter_sampled_rank-0.json.gz"]
TEMPORAL = ["rank", "idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)",
            "idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]


def hta_analysis(folder):
    ta = pytest.importorskip("hta.trace_analysis", reason="SKIPPED: HTA (HolisticTraceAnalysis) is not installed")
    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ta.TraceAnalysis(trace_dir=str(folder))
    finally:
        logging.disable(logging.NOTSET)


def folder_of(tmp_path, name):
    src = HTA_SAMPLES / name
    if not src.is_file():
        pytest.skip(f"SKIPPED: {src} is absent")
    d = tmp_path / name.split(".")[0]
    d.mkdir()
    shutil.copy(src, d / name)
    return d


def check(folder, repaired_ns=0):
    """weft.hta's frames equal HTA's; `repaired_ns`: what weft's model clips of intervals that do not nest
    on their track (HTA keeps them as written), which moves idle into non-compute time on some samples."""
    a = hta_analysis(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = a.get_temporal_breakdown(visualize=False)
        want_overlap = a.get_comm_comp_overlap(visualize=False)
    got = weft.hta.temporal_breakdown(folder)
    assert list(got.columns) == list(want.columns) == TEMPORAL
    assert got["rank"].tolist() == want["rank"].tolist()
    for col in ("compute_time(us)", "kernel_time(us)", "idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"):
        assert got[col].tolist() == want[col].astype(float).tolist(), col
    diff = (got["idle_time(us)"] - want["idle_time(us)"]).abs()
    assert (diff <= repaired_ns / 1000).all(), diff
    assert (got["idle_time(us)"] + got["non_compute_time(us)"]).tolist() == \
        (want["idle_time(us)"] + want["non_compute_time(us)"]).astype(float).tolist()
    if repaired_ns == 0:
        pd.testing.assert_frame_equal(got, want, check_dtype=False)
    got_o = weft.hta.comm_comp_overlap(folder)
    assert list(got_o.columns) == list(want_overlap.columns)
    np.testing.assert_array_equal(got_o["rank"], want_overlap["rank"])
    np.testing.assert_allclose(got_o["comp_comm_overlap_pctg"], want_overlap["comp_comm_overlap_pctg"], rtol=0, atol=0)
    return got, got_o


def test_amd_sample_equals_hta(tmp_path):
    check(folder_of(tmp_path, SAMPLES[0]))


def test_sampled_rank_equals_hta_with_its_last_step_left_out(tmp_path):
    got, overlap = check(folder_of(tmp_path, SAMPLES[2]))
    # Communication kernels, overlapped by computation: the figure is a real one.
    assert 0 < overlap["comp_comm_overlap_pctg"][0] < 100


def test_simple_add_equals_hta_but_for_repaired_syncs(tmp_path):
    folder = folder_of(tmp_path, SAMPLES[1])
    info = weft.open(next(folder.iterdir())).info()
    # weft clips the 'Stream Sync' events that overlap the next event on their stream (repaired warnings).
    assert info["warnings_repaired"] > 0
    check(folder, repaired_ns=100_000)


def test_a_folder_of_ranks_equals_hta(tmp_path):
    src = HTA_SAMPLES / SAMPLES[2]
    if not src.is_file():
        pytest.skip(f"SKIPPED: {src} is absent")
    d = tmp_path / "ranks"
    d.mkdir()
    text = gzip.decompress(src.read_bytes())
    assert b'"rank": 0,' in text
    for rank in (0, 1, 3):
        (d / f"rank-{rank}.json.gz").write_bytes(gzip.compress(text.replace(b'"rank": 0,', f'"rank": {rank},'.encode(), 1)))
    got, _ = check(d)
    assert got["rank"].tolist() == [0, 1, 3]


def test_kernel_types_are_hta_s():
    hta_utils = pytest.importorskip("hta.utils.utils", reason="SKIPPED: HTA is not installed")
    for name in ["ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", "ncclDevKernel_SendRecv(x)",
                 "Memcpy HtoD (Pageable -> Device)", "Memset (Device)", "dma_copy", "Stream Sync",
                 "void at::native::elementwise_kernel<128>", "Context Sync", "ampere_sgemm_32x32"]:
        assert weft.hta.kernel_type(name) == hta_utils.get_kernel_type(name), name


def check_kernels(folder):
    a = hta_analysis(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_types, want_kernels = a.get_gpu_kernel_breakdown(visualize=False)
    got_types, got_kernels = weft.hta.gpu_kernel_breakdown(folder)
    # Rows of no time are left out of both (HTA's sweep can label a zero-length step between equal times).
    want_types = want_types[want_types["sum"] > 0].reset_index(drop=True)
    pd.testing.assert_frame_equal(got_types, want_types, check_dtype=False)
    assert len(got_kernels) > 3
    pd.testing.assert_frame_equal(got_kernels, want_kernels, check_dtype=False)
    return got_types


@pytest.mark.parametrize("name", SAMPLES)
def test_kernel_breakdown_equals_hta(tmp_path, name):
    types = check_kernels(folder_of(tmp_path, name))
    assert set(types["kernel_type"]) >= {"COMPUTATION", "MEMORY"}


def test_kernel_breakdown_of_a_folder_of_ranks_equals_hta(tmp_path):
    src = HTA_SAMPLES / SAMPLES[2]
    if not src.is_file():
        pytest.skip(f"SKIPPED: {src} is absent")
    d = tmp_path / "ranks"
    d.mkdir()
    text = gzip.decompress(src.read_bytes())
    for rank in (0, 2):
        (d / f"rank-{rank}.json.gz").write_bytes(gzip.compress(text.replace(b'"rank": 0,', f'"rank": {rank},'.encode(), 1)))
    types = check_kernels(d)
    assert "COMPUTATION overlapping COMMUNICATION" in set(types["kernel_type"])


def check_idle(folder, ranks=None):
    a = hta_analysis(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, _ = a.get_idle_time_breakdown(ranks=ranks, visualize=False)
    got = weft.hta.idle_time_breakdown(folder, ranks=ranks)
    assert list(got.columns) == list(want.columns)
    # The streams in another order: HTA's is the trace file's order of its events, which weft's tables
    # (by location, then time) do not keep.
    key = ["rank", "stream", "idle_category"]
    pd.testing.assert_frame_equal(got.sort_values(key, ignore_index=True), want.sort_values(key, ignore_index=True),
                                  check_dtype=False)
    return got


@pytest.mark.parametrize("name", SAMPLES)
def test_idle_time_breakdown_equals_hta(tmp_path, name):
    got = check_idle(folder_of(tmp_path, name))
    assert (got["idle_category"] == "host_wait").any() and got["idle_time"].sum() > 0


def test_idle_time_breakdown_of_another_rank_equals_hta(tmp_path):
    src = HTA_SAMPLES / SAMPLES[2]
    if not src.is_file():
        pytest.skip(f"SKIPPED: {src} is absent")
    d = tmp_path / "ranks"
    d.mkdir()
    text = gzip.decompress(src.read_bytes())
    for rank in (0, 5):
        (d / f"rank-{rank}.json.gz").write_bytes(gzip.compress(text.replace(b'"rank": 0,', f'"rank": {rank},'.encode(), 1)))
    assert check_idle(d, ranks=[5])["rank"].eq(5).all()
    assert set(check_idle(d, ranks=[0, 5])["rank"]) == {0, 5}
    with pytest.raises(ValueError, match="rank: 2 is not among"):
        weft.hta.idle_time_breakdown(d, ranks=[2])
