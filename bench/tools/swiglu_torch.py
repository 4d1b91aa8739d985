"""SwiGLU, O = silu(X W) * (X V): polymma's one fused kernel (X's tile
loaded once for both products) against PyTorch (two cuBLAS GEMMs and its
pointwise kernels, and torch.compile of the same function), in one process.

    PYTHONPATH=python POLYMMA=build/polymma python3 bench/tools/swiglu_torch.py
        [--compile | --max-autotune] [--dtypes f16,bf16] [--graph]
        [--shapes MxNxK,...] [--rows SUFFIX,...] [--bound]

--compile: torch.compile's default mode; --max-autotune: mode
"max-autotune-no-cudagraphs" (issue 29's baseline; minutes to tune).

f16 and bf16, LLM shapes (tokens x hidden -> intermediate). Checks every
output against torch in fp32 first; times with CUDA events, warm-up, the
median of 30 runs, inputs rotated over 4 sets.
--shapes: these sizes instead of the LLM shapes (e.g. decode: 16x11008x4096).
--rows: polymma also with each of these kernels forced (POLYMMA_VARIANT=
SUFFIX[,s=N], written SUFFIX/s=N), each checked as the plan's, one line each.
--bound: also the two GEMMs alone (torch.mm into preallocated outputs):
eager / that is what a fused kernel at the library's GEMM speed can gain
over eager PyTorch (the pointwise passes it saves).
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

SPEC = """def swiglu(T(M, K) X, T(K, N) W, T(K, N) V) -> (T(M, N) O) {
    G(i, j) +=! X(i, k) * W(k, j)
    U(i, j) +=! X(i, k) * V(k, j)
    O(i, j) = silu(G(i, j)) * U(i, j)
}
"""
SHAPES = [(4096, 11008, 4096), (2048, 14336, 4096), (512, 11008, 4096),
          (8192, 8192, 2048)]


def main():
    mode = ("max-autotune-no-cudagraphs" if "--max-autotune" in sys.argv
            else "default" if "--compile" in sys.argv else None)
    dtypes = "f16,bf16"
    if "--dtypes" in sys.argv:
        dtypes = sys.argv[sys.argv.index("--dtypes") + 1]
    shapes = shapes_arg(SHAPES)
    print(torch.cuda.get_device_name(), "torch.compile mode:", mode)
    ok = True
    for name, dt in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        if name not in dtypes.split(","):
            continue
        k = polymma.compile(SPEC.replace("T(", name + "("), target="sm_90a")
        eager = lambda x, w, v: torch.nn.functional.silu(x @ w) * (x @ v)
        for M, N, K in shapes:
            comp = compiled(eager, mode) if mode else None
            sets = [(torch.randn(M, K, device="cuda", dtype=dt) / 8,
                     torch.randn(K, N, device="cuda", dtype=dt) / 8,
                     torch.randn(K, N, device="cuda", dtype=dt) / 8)
                    for _ in range(4)]
            out = torch.empty(M, N, device="cuda", dtype=dt)
            x, w, v = sets[0]
            ref = eager(x.float(), w.float(), v.float())
            tol = 5e-3 if dt == torch.float16 else 2e-2

            def run():
                out.fill_(float("nan"))
                k(x, w, v, out)
                err = ((out.float() - ref).norm() / ref.norm()).item()
                return err, timed(lambda a, b, c: k(a, b, c, out), sets)
            t_eager = timed(eager, sets)
            t_c = timed(comp, sets) if comp else None
            t_g = None
            if "--bound" in sys.argv:
                g, u = torch.empty_like(out), torch.empty_like(out)
                t_g = timed(lambda a, b, c: (torch.mm(a, b, out=g),
                                             torch.mm(a, c, out=u)), sets)
            tag = "%-4s %5dx%5dx%5d" % (name, M, N, K)
            for row, good, err, t_pm in checked_rows(tag, run, tol):
                ok &= good
                line = ("%s %-15s rel_l2 %.1e %s | polymma %.3f ms | "
                        "torch %.3f ms (%.2fx)" % (
                            tag, row, err, "ok" if good else "FAIL", t_pm,
                            t_eager, t_eager / t_pm))
                if t_c:
                    line += " | torch.compile %.3f ms (%.2fx)" % (
                        t_c, t_c / t_pm)
                if t_g:
                    line += " | 2 GEMMs %.3f ms (bound %.2fx)" % (
                        t_g, t_eager / t_g)
                print(line, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
