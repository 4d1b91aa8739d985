"""fp8 GEMM with row and column scales, D = (A B^T) * sa(i) * sb(j) in
bf16: polymma's one kernel (the scales applied to the f32 accumulators
in its epilogue) against PyTorch's fp8 GEMMs in the same process:

  * torch._scaled_mm with per-tensor scales (cuBLASLt's fp8 GEMM: the
    issue's baseline, which scales by two scalars, less work than ours);
  * torch._scaled_mm with row-wise scales, (M, 1) and (1, N) (the same
    product as ours; PyTorch's own kernel on Hopper).

    PYTHONPATH=python POLYMMA=build/polymma python3 bench/tools/f8_scaled_torch.py [--graph]
        [--shapes MxNxK,...]

e4m3 inputs, A M x K and B N x K (both K-major, "TN"). Checks every output
against an fp32 reference of the rounded inputs first (rel_l2 <= 1e-2);
times with CUDA events after a warm-up, the median of 30 runs, inputs
rotated over 4 sets. Prints one line a shape and the geometric means.
--shapes: these sizes instead (M, N, K multiples of 16: torch._scaled_mm's).
--graph: device time, each side's calls replayed from a CUDA graph (per
call, the default, includes each side's host time: torch.compile's call
costs ~35 us of it, polymma's ~9, so small problems are host-bound).
"""

import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "python"))
import polymma  # noqa: E402
from torch_timing import shapes_arg, timer  # noqa: E402

timed = timer(sys.argv)

SPEC = """def f8_scaled(f8e4m3(M, K) A, f8e4m3(N, K) B, f32(M) sa, f32(N) sb)
        -> (bf16(M, N) D) {
    C(i, j) +=! A(i, k) * B(j, k)
    D(i, j) = C(i, j) * sa(i) * sb(j)
}
"""
SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (6144, 6144, 6144),
          (8192, 8192, 8192), (4096, 11008, 4096), (4096, 4096, 11008),
          (4096, 12288, 4096), (8192, 4096, 8192), (1024, 3072, 2048),
          (2816, 1536, 3840)]


def inputs(M, N, K):
    f8 = torch.float8_e4m3fn
    return (torch.empty(M, K, device="cuda").uniform_(-1, 1).to(f8),
            torch.empty(N, K, device="cuda").uniform_(-1, 1).to(f8),
            torch.empty(M, device="cuda").uniform_(0.5, 2),
            torch.empty(N, device="cuda").uniform_(0.5, 2))


def main():
    print(torch.cuda.get_device_name(), torch.__version__)
    k = polymma.compile(SPEC, target="sm_90a")
    one = torch.ones((), device="cuda")
    ok, r_lt, r_row = True, [], []
    for M, N, K in shapes_arg(SHAPES):
        sets = [inputs(M, N, K) for _ in range(4)]
        out = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        a, b, sa, sb = sets[0]
        out.fill_(float("nan"))
        k(a, b, sa, sb, out)
        ref = (a.float() @ b.float().t()) * sa[:, None] * sb[None, :]
        err = ((out.float() - ref).norm() / ref.norm()).item()
        good = err <= 1e-2 and bool(torch.isfinite(out).all())
        ok &= good

        def ours(a, b, sa, sb):
            k(a, b, sa, sb, out)

        def lt(a, b, sa, sb):
            torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                             out_dtype=torch.bfloat16)

        def row(a, b, sa, sb):
            torch._scaled_mm(a, b.t(), scale_a=sa[:, None],
                             scale_b=sb[None, :], out_dtype=torch.bfloat16)

        t_pm = timed(ours, sets)
        t_lt = timed(lt, sets)
        try:
            t_row = timed(row, sets)
        except RuntimeError as e:
            t_row = float("nan")
            print("  row-wise _scaled_mm: %s" % str(e).splitlines()[0])
        tf = 2.0 * M * N * K / t_pm / 1e9
        r_lt.append(t_lt / t_pm)
        if t_row == t_row:
            r_row.append(t_row / t_pm)
        print("%5dx%5dx%5d rel_l2 %.1e %s | polymma %.4f ms %6.0f TF/s | "
              "cuBLASLt per-tensor %.4f ms (%.3fx) | row-wise %.4f ms "
              "(%.3fx)" % (M, N, K, err, "ok" if good else "FAIL", t_pm, tf,
                           t_lt, t_lt / t_pm, t_row, t_row / t_pm),
              flush=True)

    def gm(v):
        return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    print("geomean: vs cuBLASLt fp8 (per-tensor) %.3fx, vs row-wise "
          "_scaled_mm %.3fx (%d shapes)" % (gm(r_lt), gm(r_row), len(r_lt)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
