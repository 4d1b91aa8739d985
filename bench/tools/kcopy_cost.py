"""The cost of an 8-bit operand declared MN-major: polymma reads it from
a K-major copy the launcher writes into the workspace first
(docs/decisions/0033). Times the same GEMM with B declared N x K (K-major,
no copy), K x N (B copied) and A K x M too (both copied), in one process.

    PYTHONPATH=python POLYMMA=build/polymma python3 bench/tools/kcopy_cost.py

e4m3 -> bf16 and i8 -> i32 on sm_90a; outputs of the three layouts
compared with each other first (the same products); CUDA events, warm-up,
the median of 30 runs, inputs rotated over 4 sets.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "python"))
import polymma  # noqa: E402
from torch_timing import timed  # noqa: E402

SPECS = {
    "tn": "def g(T(M, K) A, T(N, K) B) -> (O(M, N) C) {\n"
          "    C(i, j) +=! A(i, k) * B(j, k)\n}\n",
    "nn": "def g(T(M, K) A, T(K, N) B) -> (O(M, N) C) {\n"
          "    C(i, j) +=! A(i, k) * B(k, j)\n}\n",
    "tt": "def g(T(K, M) A, T(K, N) B) -> (O(M, N) C) {\n"
          "    C(i, j) +=! A(k, i) * B(k, j)\n}\n",
}
SHAPES = [(1024, 1024, 4096), (2048, 2048, 2048), (4096, 4096, 4096),
          (8192, 8192, 8192), (4096, 11008, 4096)]


def operands(dt, M, N, K):
    if dt == "i8":
        a = torch.randint(-8, 8, (M, K), device="cuda", dtype=torch.int8)
        b = torch.randint(-8, 8, (N, K), device="cuda", dtype=torch.int8)
    else:
        f8 = torch.float8_e4m3fn
        a = torch.empty(M, K, device="cuda").uniform_(-1, 1).to(f8)
        b = torch.empty(N, K, device="cuda").uniform_(-1, 1).to(f8)
    # the same values in each layout
    return {"tn": (a, b), "nn": (a, b.t().contiguous()),
            "tt": (a.t().contiguous(), b.t().contiguous())}


def main():
    print(torch.cuda.get_device_name(), torch.__version__)
    ok = True
    for dt, ty, oty, odt in (("f8", "f8e4m3", "bf16", torch.bfloat16),
                             ("i8", "i8", "i32", torch.int32)):
        ks = {l: polymma.compile(s.replace("T(", ty + "(").replace(
            "O(", oty + "("), target="sm_90a") for l, s in SPECS.items()}
        for M, N, K in SHAPES:
            sets = [operands(dt, M, N, K) for _ in range(4)]
            out = torch.empty(M, N, device="cuda", dtype=odt)
            t, res = {}, {}
            for l, k in ks.items():
                a, b = sets[0][l]
                out.fill_(0)
                k(a, b, out)
                res[l] = out.clone()
                t[l] = timed(lambda s, k=k, l=l: k(s[l][0], s[l][1], out),
                             [(s,) for s in sets])
            same = all(torch.equal(res["tn"], res[l]) for l in res)
            ok &= same
            print("%s %5dx%5dx%5d %s | tn %.4f ms | nn (B copied) %.4f ms "
                  "(+%.1f %%) | tt (A, B copied) %.4f ms (+%.1f %%)" % (
                      dt, M, N, K, "same" if same else "DIFFER", t["tn"],
                      t["nn"], 100 * (t["nn"] / t["tn"] - 1), t["tt"],
                      100 * (t["tt"] / t["tn"] - 1)), flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
