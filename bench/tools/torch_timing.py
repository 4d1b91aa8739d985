"""Timing shared by the PyTorch harnesses of bench/tools: CUDA events
around each call after a warm-up, the median of the runs, the argument
sets rotated (so that inputs are not all in L2)."""

import os
import statistics
import sys

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


def timed_graph(fn, sets, calls=16, reps=7):
    """The device time in ms of one fn(*s) call: calls of it, s rotating
    over sets, captured in a CUDA graph (on a side stream, after a call
    per set there), the median over reps replays divided by calls. No
    host time: what the GPU spends, as a graph or a busy stream sees it."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for x in sets:
            fn(*x)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        for i in range(calls):
            fn(*sets[i % len(sets)])
    g.replay()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(True), torch.cuda.Event(True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / calls)
    return statistics.median(ts)


def compiled(fn, mode=None):
    """torch.compile of fn for the next shape alone: dynamo's caches reset,
    dynamic shapes off. A function compiled once and called at a second
    shape is recompiled with symbolic sizes (generic kernels, slower: w8
    at 16 x 4096 x 4096 0.046 ms against 0.025 static), so a sweep calls
    this once per shape."""
    import torch._dynamo
    torch._dynamo.reset()
    return torch.compile(fn, mode=mode, dynamic=False)


def timer(argv):
    """timed_graph where argv has --graph, else timed (per call: each
    side's host time included, as a Python caller sees it; torch.compile's
    call costs ~35 us of it, polymma's ~9: small problems are host-bound)."""
    return timed_graph if "--graph" in argv else timed


def arg_list(name):
    """The comma-separated values after option name in sys.argv, or []."""
    return sys.argv[sys.argv.index(name) + 1].split(",") \
        if name in sys.argv else []


def shapes_arg(default):
    """--shapes MxNxK,... as tuples, else default."""
    return [tuple(int(v) for v in x.split("x"))
            for x in arg_list("--shapes")] or default


def forced(rows, run):
    """[(row, *run())]: run() under the launch plan ("plan"), then with
    each of rows forced (POLYMMA_VARIANT=SUFFIX[,s=N], written SUFFIX/s=N
    here; the launcher reads it at each call); (row, None, why) for a row
    that cannot run the sizes."""
    out = []
    for r in [""] + rows:
        os.environ["POLYMMA_VARIANT"] = r.replace("/", ",")
        try:
            out.append((r or "plan",) + tuple(run()))
        except Exception as ex:  # noqa: BLE001 (a row refusing the sizes)
            out.append((r or "plan", None, str(ex).splitlines()[0][:70]))
    os.environ.pop("POLYMMA_VARIANT", None)
    return out


def checked_rows(tag, run, tol):
    """(row, good, err, time) for the plan, then for each kernel of --rows
    forced (forced: run() returns (err, time)); a row that cannot run the
    sizes is printed and skipped, the plan must run (RuntimeError)."""
    for row, e, t in forced(arg_list("--rows"), run):
        if e is None and row == "plan":
            raise RuntimeError("%s: the plan: %s" % (tag, t))
        if e is None:
            print("%s %s: not run (%s)" % (tag, row, t))
            continue
        yield row, e < tol, e, t
