"""The Python module's JIT path on a GPU (docs/decisions/0043-python-jit.md):
polymma.compile through libpolymma.so (no nvcc, no command), against
PyTorch.

- gemm_nn, gemm_bias_relu, add_gemm and swiglu at odd sizes against torch
  in fp32 (relative L2 error);
- the compile and first call in a fresh cache (cold), then in a second
  process on the same cache (warm: a cache hit);
- the host time per call: the JIT kernel from Python, the nvcc path's
  kernel (the generated launcher, NAME_argv) from Python, both launchers
  through ctypes with prebuilt arrays, the torch operator, torch.matmul;
- polymma.torch.op eager, under torch.compile(fullgraph=True), and
  replayed from a captured CUDA graph (also with a split plan, whose
  workspace the graph owns);
- batched and grouped specs through the JIT (decisions 0036, 0045):
  bmm_nn, bmm_bcast_b (a shared B) and bmm_bias as operators, against
  torch.bmm; moe_up (grouped, with empty groups and a group of one row)
  against a loop over the experts, rows of no group left untouched;
- 8-bit operands declared MN-major through the JIT (K-major copies,
  decision 0033): gemm_f8e4m3_nn and add_gemm_f8e4m3_mn against torch.
- kernels called directly (k(...), no workspace given) inside a CUDA graph
  capture, JIT and nvcc paths (decision 0060): split plans, an epilogue
  reduction, K-major copies and a launcher-applied prologue, each graph
  replayed on another stream beside eager calls on the captured one, its
  outputs bit for bit the eager call's on the same inputs.

Needs build/libpolymma.so (`make shared` here; isl is linked into it,
docs/decisions/0052-small-integer-isl.md; built with `make ISL=system`,
with build/libisl.so.23 and build/libgmp.so.10 beside it: the GPU
machine has no isl); the nvcc
comparison also needs build/polymma and nvcc (skipped without). From the
repository root:

    python3 tests/gpu/python_jit_check.py

Prints one line per check, a summary, and exits 1 on any failure.
"""

import ast
import ctypes
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("POLYMMA_LIB", os.path.join(ROOT, "build",
                                                  "libpolymma.so"))
os.environ.setdefault("POLYMMA", os.path.join(ROOT, "build", "polymma"))
import polymma  # noqa: E402

SPECS = {
    "gemm_nn": ("examples/gemm_nn.tc", lambda a, b: a @ b),
    "gemm_bias_relu": ("examples/gemm_bias_relu.tc",
                       lambda a, b, bias: (a @ b + bias).relu()),
    "add_gemm": ("examples/add_gemm.tc", lambda a, b, e, f: a @ b + e @ f),
    "swiglu": ("tests/specs/swiglu.tc",
               lambda x, w, v: (x @ w) * (x @ w).sigmoid() * (x @ v)),
}
# (M, N, K): M odd, N and K multiples of 8 (16-byte rows); the last is a
# skinny one that the plan splits along k.
SIZES = [(129, 264, 72), (1000, 776, 520), (77, 136, 40), (64, 256, 8192)]
results = []


def report(ok, what):
    results.append(bool(ok))
    print("%-4s %s" % ("ok" if ok else "FAIL", what), flush=True)


def libisl():
    """Where this process's libisl came from."""
    with open("/proc/self/maps") as f:
        paths = {line.split()[-1] for line in f if "libisl" in line}
    return ", ".join(sorted(paths)) or "not loaded"


def rnd(torch, shape):
    return (torch.rand(shape, device="cuda") * 2 - 1).half()


def inputs(torch, k, M, N, K):
    shapes = {"M": M, "N": N, "K": K}
    return [rnd(torch, [shapes.get(d, d) for d in t["dims"]])
            for t in k.tensors if not t["output"]]


def check(torch, name, got, want, tol=5e-3):
    err = ((got.float() - want).norm() /
           want.norm().clamp_min(1e-30)).item()
    report(err <= tol and bool(torch.isfinite(got).all()),
           "%-44s rel_l2 %.2e" % (name, err))


def correctness(torch):
    for name, (path, ref) in SPECS.items():
        k = polymma.compile(os.path.join(ROOT, path))
        report(k.backend == "jit", "%s compiled by the %s path%s" % (
            name, k.backend, " (%s)" % k.jit_refused if k.jit_refused
            else ""))
        for M, N, K in SIZES:
            ins = inputs(torch, k, M, N, K)
            C = torch.full((M, N), float("nan"), device="cuda",
                           dtype=torch.half)
            k(*ins, C)
            torch.cuda.synchronize()
            check(torch, "%s %dx%dx%d" % (name, M, N, K), C,
                  ref(*[x.float() for x in ins]))


def rowsum(torch):
    """An epilogue reduction through the JIT (its workspace kept per
    stream; docs/decisions/0056): D = A B + bias, S = the row sums of D^2,
    at the sizes, twice: S bit for bit the same."""
    k = polymma.compile(os.path.join(ROOT, "tests/specs/gemm_rowsum.tc"))
    report(k.backend == "jit", "gemm_rowsum compiled by the %s path%s" % (
        k.backend, " (%s)" % k.jit_refused if k.jit_refused else ""))
    for M, N, K in SIZES + [(4096, 4096, 1024)]:
        ins = inputs(torch, k, M, N, K)
        outs = []
        for _ in range(2):
            D = torch.full((M, N), float("nan"), device="cuda",
                           dtype=torch.half)
            S = torch.full((M,), float("nan"), device="cuda",
                           dtype=torch.float)
            k(*ins, D, S)
            outs.append((D, S))
        torch.cuda.synchronize()
        a, b, bias = [x.float() for x in ins]
        d = a @ b + bias
        check(torch, "gemm_rowsum D %dx%dx%d" % (M, N, K), outs[0][0], d)
        check(torch, "gemm_rowsum S %dx%dx%d" % (M, N, K), outs[0][1],
              (outs[0][0].float() ** 2).sum(1))
        report(torch.equal(outs[0][1], outs[1][1]),
               "gemm_rowsum S %dx%dx%d bit for bit across launches" % (
                   M, N, K))


def first_calls(torch):
    """{spec: (cached, compile seconds, first call seconds)}, CUDA's
    context made before (not timed)."""
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    out = {}
    for name, (path, _) in SPECS.items():
        t0 = time.perf_counter()
        k = polymma.compile(os.path.join(ROOT, path))
        t1 = time.perf_counter()
        ins = inputs(torch, k, 129, 264, 72)
        C = torch.empty((129, 264), device="cuda", dtype=torch.half)
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        k(*ins, C)		# loads the module
        torch.cuda.synchronize()
        out[name] = (k.cached, t1 - t0, time.perf_counter() - t2)
    return out


def cold_warm(torch):
    cache = tempfile.mkdtemp(prefix="polymma-pyjit-")
    os.environ["POLYMMA_CACHE_DIR"] = cache
    cold = first_calls(torch)
    r = subprocess.run([sys.executable, os.path.abspath(__file__),
                        "--first-calls"], stdout=subprocess.PIPE, text=True,
                       env=dict(os.environ))
    warm = ast.literal_eval(r.stdout.strip().splitlines()[-1]) \
        if r.returncode == 0 else {}
    nan = float("nan")
    for name in SPECS:
        c, w = cold[name], warm.get(name, (False, nan, nan))
        report(not c[0] and w[0] and w[1] < 0.5,
               "%-14s compile cold %.2f s (%s), second process %.1f ms "
               "(%s); first call %.1f / %.1f ms" % (
                   name, c[1], "hit" if c[0] else "miss", 1e3 * w[1],
                   "hit" if w[0] else "MISS", 1e3 * c[2], 1e3 * w[2]))


def per_call(torch):
    """Host microseconds per call, 64x64x64 (host-bound)."""
    path = os.path.join(ROOT, SPECS["gemm_nn"][0])
    k = polymma.compile(path)
    A, B = rnd(torch, (64, 64)), rnd(torch, (64, 64))
    C = torch.empty((64, 64), device="cuda", dtype=torch.half)
    stream = torch.cuda.current_stream().cuda_stream
    rows = [("jit: k(A, B, C) from Python", lambda: k(A, B, C))]
    ptrs = (ctypes.c_void_p * 3)(A.data_ptr(), B.data_ptr(), C.data_ptr())
    sizes = (ctypes.c_int64 * 3)(64, 64, 64)
    lib, h, s = polymma._jit.load(), k._k, ctypes.c_void_p(stream or None)
    rows.append(("jit: polymma_kernel_launch through ctypes",
                 lambda: lib.polymma_kernel_launch(h, ptrs, sizes, s)))
    try:
        with open(path) as f:
            kn = polymma._compile_nvcc(f.read(), path, None, {})
        rows.append(("nvcc: k(A, B, C) from Python", lambda: kn(A, B, C)))
        rows.append(("nvcc: gemm_nn_argv through ctypes",
                     lambda: kn._fn(ptrs, sizes, s)))
    except polymma.Error as e:
        print("skip the nvcc path: %s" % str(e).splitlines()[0])
    from polymma import torch as pmtorch
    op = pmtorch.op(path)
    rows.append(("torch.ops.polymma.gemm_nn(A, B)", lambda: op(A, B)))
    rows.append(("torch.matmul(A, B)", lambda: torch.matmul(A, B)))
    for what, fn in rows:
        for _ in range(200):
            fn()
        torch.cuda.synchronize()
        n = 3000
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t = (time.perf_counter() - t0) / n
        torch.cuda.synchronize()
        print("     %-44s %7.2f us/call" % (what, 1e6 * t))
    check(torch, "gemm_nn 64x64x64 after the timing", C,
          A.float() @ B.float())


def torch_op(torch):
    from polymma import torch as pmtorch
    path, ref = SPECS["gemm_bias_relu"]
    op = pmtorch.op(os.path.join(ROOT, path))
    report(hasattr(torch.ops.polymma, "gemm_bias_relu"),
           "torch.ops.polymma.gemm_bias_relu registered (%s)" %
           op.kernel.backend)
    for M, N, K in (SIZES[1], SIZES[3]):
        A, B, bias = rnd(torch, (M, K)), rnd(torch, (K, N)), rnd(torch, (N,))
        want = ref(A.float(), B.float(), bias.float())
        tag = "%dx%dx%d (workspace %d B)" % (
            M, N, K, op.kernel.workspace_size(
                A, B, bias, torch.empty((M, N), device="cuda",
                                        dtype=torch.half))
            if op.kernel.backend == "jit" else 0)
        check(torch, "op eager " + tag, op(A, B, bias), want)
        f = torch.compile(lambda a, b, c: op(a, b, c) * 2, fullgraph=True)
        check(torch, "op under torch.compile " + tag, f(A, B, bias) / 2,
              want)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                op(A, B, bias)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            C = op(A, B, bias)
        A2, bias2 = rnd(torch, (M, K)), rnd(torch, (N,))
        A.copy_(A2)
        bias.copy_(bias2)
        for _ in range(2):
            g.replay()
        torch.cuda.synchronize()
        check(torch, "op replayed from a CUDA graph " + tag, C,
              ref(A2.float(), B.float(), bias2.float()))


def batched(torch):
    from polymma import torch as pmtorch
    cases = {
        "bmm_nn": lambda a, b: a @ b,
        "bmm_bcast_b": lambda a, b: a.transpose(1, 2) @ b,
        "bmm_bias": lambda a, b, bias, sc, r: (
            (a @ b.transpose(1, 2)) * sc + bias[:, None, :] + r).relu(),
    }
    # (Bt, M, N, K): M a multiple of 8 for bmm_bcast_b's A(Bt, K, M)
    sizes = [(3, 136, 264, 72), (16, 520, 512, 136), (64, 128, 128, 64),
             (1, 1000, 776, 520), (2, 2048, 2048, 1024)]
    for name, ref in cases.items():
        op = pmtorch.op(os.path.join(ROOT, "tests/specs/%s.tc" % name))
        report(op.kernel.backend == "jit", "%s compiled by the %s path%s" % (
            name, op.kernel.backend, " (%s)" % op.kernel.jit_refused
            if op.kernel.jit_refused else ""))
        for bt, M, N, K in sizes:
            shapes = {"Bt": bt, "M": M, "N": N, "K": K}
            ins = [rnd(torch, [shapes.get(d, d) for d in t["dims"]])
                   if t["type"] == "f16" else
                   rnd(torch, [shapes.get(d, d) for d in t["dims"]]).float()
                   for t in op.kernel.tensors if not t["output"]]
            check(torch, "%s %dx%dx%dx%d" % (name, bt, M, N, K), op(*ins),
                  ref(*[x.float() for x in ins]))
    k = polymma.compile(os.path.join(ROOT, "tests/specs/moe_up.tc"))
    report(k.backend == "jit", "moe_up compiled by the %s path%s" % (
        k.backend, " (%s)" % k.jit_refused if k.jit_refused else ""))
    counts = [0, 1, 7, 127, 129, 64, 255, 33]
    for E, T, N, K in [(8, 1000, 776, 520), (3, 1, 264, 72),
                       (64, 4096, 512, 256), (8, 6208, 1024, 1024)]:
        ends = torch.tensor([sum(counts[i % 8] for i in range(e + 1))
                             for e in range(E)], dtype=torch.int32)
        offs = ends.clamp(max=T).cuda()
        X, W, bias = rnd(torch, (T, K)), rnd(torch, (E, K, N)), \
            rnd(torch, (E, N))
        Y = torch.full((T, N), float("nan"), device="cuda", dtype=torch.half)
        k(X, W, bias, offs, Y)
        torch.cuda.synchronize()
        want = torch.full((T, N), float("nan"), device="cuda")
        lo = 0
        for e, hi in enumerate(offs.tolist()):
            z = X[lo:hi].float() @ W[e].float() + bias[e].float()
            want[lo:hi] = z * z.sigmoid()
            lo = hi
        rows = offs[-1].item()
        tag = "moe_up E=%d %dx%dx%d (%d rows in groups)" % (E, T, N, K, rows)
        if rows:
            check(torch, tag, Y[:rows], want[:rows])
        report(bool(Y[rows:].isnan().all()), tag + ": rows of no group "
               "untouched")


def kcopies(torch):
    """8-bit operands declared MN-major (K-major copies in the workspace
    before the kernel, decision 0033) through the JIT: gemm_f8e4m3_nn (B
    copied) and add_gemm_f8e4m3_mn (A, B and E copied) against torch in
    fp32 on the same 8-bit values."""
    from polymma import torch as pmtorch
    f8 = torch.float8_e4m3fn
    cases = {
        "gemm_f8e4m3_nn": lambda a, b: a @ b,
        "add_gemm_f8e4m3_mn": lambda a, b, e, f: a.t() @ b + e.t() @ f.t(),
    }
    for name, ref in cases.items():
        op = pmtorch.op(os.path.join(ROOT, "tests/specs/%s.tc" % name))
        report(op.kernel.backend == "jit", "%s compiled by the %s path%s" % (
            name, op.kernel.backend, " (%s)" % op.kernel.jit_refused
            if op.kernel.jit_refused else ""))
        for M, N, K in [(1000, 776, 528), (129, 264, 80), (16, 4096, 4096),
                        (2048, 2048, 1024), (7, 136, 8192)]:
            shapes = {"M": M, "N": N, "K": K}
            ins = [(rnd(torch, [shapes[d] for d in t["dims"]]) * 4).to(f8)
                   for t in op.kernel.tensors if not t["output"]]
            check(torch, "%s %dx%dx%d" % (name, M, N, K), op(*ins),
                  ref(*[x.float() for x in ins]))


CAPTURED = [
    ("examples/gemm_nn.tc", [(16, 4096, 4096), (1000, 776, 520)]),
    ("tests/specs/gemm_rowsum.tc", [(4096, 4096, 1024), (129, 264, 72)]),
    ("tests/specs/gemm_f8e4m3_nn.tc", [(16, 4096, 4096), (1000, 776, 528)]),
    ("tests/specs/gemm_w8_zp.tc", [(4096, 4096, 4096), (16, 4096, 4096)]),
]


def tensors_of(torch, k, M, N, K):
    """Fresh inputs by type (drawn on the host: a failed capture leaves
    the CUDA generator unusable) and NaN-poisoned (zeroed: integers)
    outputs."""
    def rnd(torch, shape):
        return (torch.rand(shape) * 2 - 1).half().cuda()

    shapes = {"M": M, "N": N, "K": K}
    ins, outs = [], []
    for t in k.tensors:
        shape = [shapes.get(d, d) for d in t["dims"]]
        ty = t["type"]
        if t["output"]:
            dt = {"f16": torch.half, "bf16": torch.bfloat16,
                  "f32": torch.float, "i32": torch.int32}[ty]
            outs.append(torch.full(shape, 0 if ty == "i32" else
                                   float("nan"), device="cuda", dtype=dt))
        elif ty == "i8":
            ins.append(torch.randint(-8, 9, shape,
                                     dtype=torch.int8).cuda())
        elif ty.startswith("f8"):
            ins.append((rnd(torch, shape) * 4).to(
                torch.float8_e4m3fn if ty == "f8e4m3" else
                torch.float8_e5m2))
        elif t["name"] == "z":
            ins.append(torch.randint(-4, 5, shape).half().cuda())
        else:
            ins.append(rnd(torch, shape) / (4 if ty == "f16" and
                                            len(shape) == 1 else 1))
    return ins, outs


def captured(torch):
    """Direct calls captured into CUDA graphs (decision 0060): the stream's
    kept workspace stays out of the graph; each launch there takes its own
    (graph nodes). Captured on stream s after eager calls on s; replayed on
    another stream while eager calls run on s; outputs bit for bit the
    eager call's on the replay's inputs."""
    for path, sizes in CAPTURED:
        kernels = [polymma.compile(os.path.join(ROOT, path))]
        try:
            with open(os.path.join(ROOT, path)) as f:
                kernels.append(polymma._compile_nvcc(
                    f.read(), os.path.join(ROOT, path), None, {}))
        except polymma.Error as e:
            print("skip the nvcc path: %s" % str(e).splitlines()[0])
        for k in kernels:
            for M, N, K in sizes:
                tag = "%s (%s) %dx%dx%d in a CUDA graph" % (
                    k.name, k.backend, M, N, K)
                ins, outs = tensors_of(torch, k, M, N, K)
                s, s2 = torch.cuda.Stream(), torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(2):
                        k(*ins, *outs)
                torch.cuda.synchronize()
                g = torch.cuda.CUDAGraph()
                try:
                    with torch.cuda.graph(g, stream=s):
                        k(*ins, *outs)
                except Exception as e:
                    torch.cuda.synchronize()
                    report(False, "%s: %s" % (tag, str(e).splitlines()[0]))
                    continue
                new, _ = tensors_of(torch, k, M, N, K)
                for x, y in zip(ins, new):
                    x.copy_(y)
                for o in outs:
                    o.fill_(0 if o.dtype == torch.int32 else float("nan"))
                eager = [torch.empty_like(o) for o in outs]
                torch.cuda.synchronize()
                with torch.cuda.stream(s2):
                    g.replay()
                with torch.cuda.stream(s):
                    for _ in range(3):
                        k(*ins, *eager)
                torch.cuda.synchronize()
                report(all(torch.equal(a, b) for a, b in zip(outs, eager))
                       and all(bool(torch.isfinite(o.float()).all())
                               for o in outs),
                       tag + ": replayed, bit for bit the eager call")


class DLPackOnly:
    """A tensor seen through DLPack alone (no data_ptr, no
    __cuda_array_interface__): the producer is the wrapped torch tensor."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__()

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def dlpack(torch):
    """gemm_nn called with DLPack producers (f16 and bf16) against torch,
    and a column-major view refused with the tensor's name."""
    for dt, name in ((torch.half, "f16"), (torch.bfloat16, "bf16")):
        spec = open(os.path.join(ROOT, "examples/gemm_nn.tc")).read()
        k = polymma.compile(spec.replace("f16", name))
        M, N, K = 129, 264, 72
        A = (torch.rand(M, K, device="cuda") * 2 - 1).to(dt)
        B = (torch.rand(K, N, device="cuda") * 2 - 1).to(dt)
        C = torch.full((M, N), float("nan"), device="cuda", dtype=dt)
        k(DLPackOnly(A), DLPackOnly(B), DLPackOnly(C))
        torch.cuda.synchronize()
        check(torch, "DLPack %s gemm_nn %dx%dx%d" % (name, M, N, K), C,
              A.float() @ B.float(), 5e-3 if name == "f16" else 2e-2)
    # A's shape, column-major: its strides say so
    At = A.t().contiguous().t()
    try:
        k(DLPackOnly(At), DLPackOnly(B), DLPackOnly(C))
        report(False, "DLPack: a column-major A was not refused")
    except ValueError as e:
        report("'A' must be contiguous" in str(e),
               "DLPack: a column-major A refused: %s" % e)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--first-calls":
        import torch
        print(repr(first_calls(torch)))
        return 0
    if polymma.jit_unavailable():
        print("FAIL: no JIT: %s\nbuilt on the system's isl, libpolymma.so "
              "needs libisl.so.23 and libgmp.so.10 beside it (make shared "
              "copies them into build/) or on LD_LIBRARY_PATH"
              % polymma.jit_unavailable())
        return 1
    import torch
    torch.manual_seed(0)
    print("%s; libpolymma: %s; libisl: %s" % (
        torch.cuda.get_device_name(), polymma.jit_library(), libisl()))
    cold_warm(torch)
    correctness(torch)
    rowsum(torch)
    batched(torch)
    kcopies(torch)
    captured(torch)
    dlpack(torch)
    per_call(torch)
    torch_op(torch)
    print("%d passed, %d failed" % (sum(results),
                                    len(results) - sum(results)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
