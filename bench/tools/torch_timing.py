"""Timing shared by the PyTorch harnesses of bench/tools: CUDA events
around each call after a warm-up, the median of the runs, the argument
sets rotated (so that inputs are not all in L2)."""

import statistics

import torch


def timed(fn, sets, reps=30, warmup=5):
    """The median time in ms of fn(*s) over reps calls, s rotating over
    sets, after warmup calls."""
    for i in range(warmup):
        fn(*sets[i % len(sets)])
    torch.cuda.synchronize()
    ts = []
    for i in range(reps):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        s = sets[i % len(sets)]
        a.record()
        fn(*s)
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)
