"""Fused idioms of issue 29 against PyTorch, in one process: polymma's one
kernel, the same function in eager PyTorch (cuBLAS and its pointwise or
reduction kernels), and torch.compile of it.

    PYTHONPATH=python POLYMMA=build/polymma python3 bench/tools/idioms_torch.py
        [--max-autotune] [--only rowsum|dequant|w8|w8zp|add]
        [--target sm_80] [--graph] [--shapes MxNxK,...] [--rows SUFFIX,...]

  rowsum   D = A B (f16), S = the f32 row sums of D (an epilogue reduction,
           docs/decisions/0037): torch: d = a @ b; d.float().sum(1)
  dequant  C = A (B diag(s)) (f16 weights scaled per column in the copy's
           prologue, docs/decisions/0039): torch: a @ (b * s)
  w8       C = A (Bq diag(s)), i8 weights Bq (K, N) widened to f16 in shared
           memory, s in the epilogue (issue 29, docs/decisions/0047): torch:
           dequantize, then cuBLAS: a @ (bq.half() * s)
  w8zp     C = A ((Bq - z) diag(s)), a per-column zero point too: torch:
           a @ ((bq.half() - z) * s)
  add      O = A B + E F (the paper's Add(GEMM, GEMM), examples/add_gemm.tc):
           torch: a @ b + e @ f

--max-autotune: torch.compile's "max-autotune-no-cudagraphs" mode (minutes
to tune); default: torch.compile's default mode. Every output is checked
against fp32 torch first; times are CUDA-event medians of 30 runs after a
warm-up, inputs rotated over 4 sets (bench/tools/torch_timing.py).
--shapes: these problem sizes instead of each idiom's own (w8, w8zp, add).
--rows: w8, w8zp and add also with each of these kernels forced
(POLYMMA_VARIANT=SUFFIX[,s=N], written SUFFIX/s=N; checked as the plan's),
one line each.
--graph: device time, each side's calls replayed from a CUDA graph (per
call, the default, includes each side's host time: torch.compile's call
costs ~35 us of it, polymma's ~9, so small problems are host-bound).
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "python"))
import polymma  # noqa: E402
from torch_timing import checked_rows, compiled, shapes_arg, timer  # noqa: E402,E501

timed = timer(sys.argv)

ROWSUM = """def rowsum(f16(M, K) A, f16(K, N) B) -> (f16(M, N) D, f32(M) S) {
    C(i, j) +=! A(i, k) * B(k, j)
    D(i, j) = C(i, j)
    S(i) +=! D(i, j)
}
"""
DEQUANT = """def dequant(f16(M, K) A, f16(K, N) B, f16(N) s) -> (f16(M, N) C) {
    C(i, j) +=! A(i, k) * (B(k, j) * s(j))
}
"""
W8 = """def w8(f16(M, K) A, i8(K, N) Bq, f16(N) s) -> (f16(M, N) C) {
    C(i, j) +=! A(i, k) * (Bq(k, j) * s(j))
}
"""
W8ZP = """def w8zp(f16(M, K) A, i8(K, N) Bq, f16(N) z, f16(N) s) -> (f16(M, N) C) {
    C(i, j) +=! A(i, k) * ((Bq(k, j) - z(j)) * s(j))
}
"""
TARGET = sys.argv[sys.argv.index("--target") + 1] if "--target" in sys.argv \
    else "sm_90a"


def rnd(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.float16) / 8


def rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def rowsum(mode, shapes):
    k = polymma.compile(ROWSUM, target=TARGET)
    eager = lambda a, b: (lambda d: (d, d.float().sum(1)))(a @ b)
    ok = True
    for M, N, K in shapes:
        comp = compiled(eager, mode)
        sets = [(rnd(M, K), rnd(K, N)) for _ in range(4)]
        d = torch.empty(M, N, device="cuda", dtype=torch.float16)
        s = torch.empty(M, device="cuda", dtype=torch.float32)
        a, b = sets[0]
        k(a, b, d, s)
        ref = a.float() @ b.float()
        e = max(rel(d, ref), rel(s, ref.sum(1)))
        ok &= e < 5e-3
        yield ok, "rowsum  %5dx%5dx%5d rel_l2 %.1e %s" % (
            M, N, K, e, "ok" if e < 5e-3 else "FAIL"), (
            timed(lambda x, y: k(x, y, d, s), sets), timed(eager, sets),
            timed(comp, sets))


def dequant(mode, shapes):
    k = polymma.compile(DEQUANT, target=TARGET)
    eager = lambda a, b, s: a @ (b * s)
    ok = True
    for M, N, K in shapes:
        comp = compiled(eager, mode)
        sets = [(rnd(M, K), rnd(K, N),
                 (torch.rand(N, device="cuda") + 0.5).half())
                for _ in range(4)]
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        a, b, s = sets[0]
        k(a, b, s, c)
        e = rel(c, a.float() @ (b.float() * s.float()))
        ok &= e < 5e-3
        yield ok, "dequant %5dx%5dx%5d rel_l2 %.1e %s" % (
            M, N, K, e, "ok" if e < 5e-3 else "FAIL"), (
            timed(lambda x, y, z: k(x, y, z, c), sets), timed(eager, sets),
            timed(comp, sets))


# decode (M 16), prefill (M 4096) and a square GEMM
W8_SHAPES = [(16, 4096, 4096), (16, 11008, 4096), (4096, 11008, 4096),
             (4096, 4096, 4096)]


def w8_sets(M, N, K, zp):
    def one():
        bq = torch.randint(-127, 128, (K, N), device="cuda",
                           dtype=torch.int8)
        s = ((torch.rand(N, device="cuda") + 0.5) / 64).half()
        z = torch.randint(-8, 9, (N,), device="cuda").half()
        return (rnd(M, K), bq, z, s) if zp else (rnd(M, K), bq, s)
    return [one() for _ in range(4)]


def rows_of(tag, shape, k, sets, out, ref, times):
    """(good, line, (time, *times)) for the plan, then for each kernel of
    --rows forced: k on sets[0] into out (poisoned first) against ref,
    then timed over sets. A row that cannot run the sizes is printed and
    skipped; the plan must run (torch_timing.checked_rows)."""
    def run():
        out.fill_(float("nan"))
        k(*sets[0], out)
        return rel(out, ref), timed(lambda *t: k(*t, out), sets)
    name = "%-7s %5dx%5dx%5d" % ((tag,) + shape)
    for row, good, e, t in checked_rows(name, run, 5e-3):
        yield good, "%s %-16s rel_l2 %.1e %s" % (
            name, row, e, "ok" if good else "FAIL"), \
            (t,) + times


def w8(mode, shapes, zp=False):
    k = polymma.compile(W8ZP if zp else W8, target=TARGET)
    if zp:
        eager = lambda a, bq, z, s: a @ ((bq.half() - z) * s)
    else:
        eager = lambda a, bq, s: a @ (bq.half() * s)
    ok = True
    for M, N, K in shapes:
        comp = compiled(eager, mode)
        sets = w8_sets(M, N, K, zp)
        c = torch.empty(M, N, device="cuda", dtype=torch.float16)
        x = sets[0]
        w = (x[1].float() - x[2].float()) * x[3].float() if zp else \
            x[1].float() * x[2].float()
        ref = x[0].float() @ w
        for good, line, t in rows_of("w8zp" if zp else "w8", (M, N, K), k,
                                     sets, c, ref, (timed(eager, sets),
                                                    timed(comp, sets))):
            ok &= good
            yield ok, line, t


ADD = """def add_gemm(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F)
    -> (f16(M, N) O) {
    C(i, j) +=! A(i, k) * B(k, j)
    D(i, j) +=! E(i, k) * F(k, j)
    O(i, j) = C(i, j) + D(i, j)
}
"""


def add(mode, shapes):
    k = polymma.compile(ADD, target=TARGET)
    eager = lambda a, b, e, f: a @ b + e @ f
    ok = True
    for M, N, K in shapes:
        comp = compiled(eager, mode)
        sets = [(rnd(M, K), rnd(K, N), rnd(M, K), rnd(K, N))
                for _ in range(4)]
        o = torch.empty(M, N, device="cuda", dtype=torch.float16)
        x = sets[0]
        ref = eager(*(t.float() for t in x))
        for good, line, t in rows_of("add", (M, N, K), k, sets, o, ref,
                                     (timed(eager, sets), timed(comp, sets))):
            ok &= good
            yield ok, line, t


def main():
    mode = ("max-autotune-no-cudagraphs" if "--max-autotune" in sys.argv
            else "default")
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv \
        else None
    print(torch.cuda.get_device_name(), "torch.compile mode:", mode)
    runs = [("rowsum", rowsum, [(8192, 11008, 4096), (4096, 4096, 4096)]),
            ("dequant", dequant, [(4096, 11008, 4096), (16, 4096, 4096)]),
            ("w8", w8, W8_SHAPES),
            ("w8zp", lambda m, sh: w8(m, sh, True), W8_SHAPES),
            ("add", add, [(4096, 4096, 4096), (16, 4096, 4096)])]
    given = shapes_arg([])
    ok = True
    for name, fn, shapes in runs:
        if only and name != only:
            continue
        if given and (name.startswith("w8") or name == "add"):
            shapes = given
        for good, line, (t_pm, t_e, t_c) in fn(mode, shapes):
            ok &= good
            print("%s | polymma %.3f ms | torch %.3f ms (%.2fx) | "
                  "torch.compile %.3f ms (%.2fx)" % (
                      line, t_pm, t_e, t_e / t_pm, t_c, t_c / t_pm),
                  flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
