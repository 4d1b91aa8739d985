"""The Python module on a GPU, against PyTorch: compile specs of several
types, idioms and targets, call them with torch tensors at ragged sizes,
compare with torch in fp32 (relative L2 error per output type), check that
the errors name the tensor, that a side stream is honoured and that the
second compile is a cache hit.

    PYTHONPATH=python POLYMMA=build/polymma python3 tests/gpu/test_python_torch.py

Prints one line per case and 'N passed, M failed'.
"""

import os
import sys
import tempfile
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))), "python"))
import polymma  # noqa: E402

os.environ.setdefault("POLYMMA_CACHE", tempfile.mkdtemp())
TOL = {torch.float16: 5e-3, torch.bfloat16: 2e-2, torch.float32: 2e-3}
H, BF, F = torch.float16, torch.bfloat16, torch.float32
SIZES = [(200, 328, 576), (1000, 744, 512), (4096, 4096, 1024),
         (64, 8192, 4096)]
results = []


def rnd(shape, dtype):
    return (torch.rand(shape, device="cuda", dtype=F) * 2 - 1).to(dtype)


def check(name, got, want):
    err = ((got.float() - want).norm() / want.norm().clamp_min(1e-30)).item()
    ok = err <= TOL[got.dtype] and bool(torch.isfinite(got).all())
    results.append(ok)
    print("%-4s %-48s rel_l2 %.2e" % ("ok" if ok else "FAIL", name, err))


def gemm(spec, ta, tc, ref, nin=2, **opt):
    for target in ("sm_90a", "sm_80"):
        k = polymma.compile(spec, target=target, **opt)
        for M, N, K in SIZES:
            ins = {"A": rnd((M, K), ta), "B": rnd((K, N), ta),
                   "bias": rnd((N,), ta), "E": rnd((M, K), ta),
                   "F": rnd((K, N), ta)}
            args = [ins[t["name"]] for t in k.tensors if not t["output"]]
            C = torch.full((M, N), float("nan"), device="cuda", dtype=tc)
            k(*args, C)
            torch.cuda.synchronize()
            check("%s %s %dx%dx%d" % (k.name, target, M, N, K), C,
                  ref(*[a.float() for a in args]))


def errors():
    k = polymma.compile("examples/gemm_bias_relu.tc")
    A, B = rnd((64, 32), H), rnd((32, 64), H)
    bias, C = rnd((64,), H), torch.empty((64, 64), device="cuda", dtype=H)
    cases = [((A, rnd((48, 64), H), bias, C), ValueError, "'B' dimension 0"),
             ((A.float(), B, bias, C), TypeError, "'A' must be f16"),
             ((A, B.t(), bias, C), ValueError, ""),
             ((A, B, bias, C.t()), ValueError, "contiguous"),
             ((A.cpu(), B, bias, C), ValueError, "not on a CUDA device")]
    for args, exc, text in cases:
        try:
            k(*args)
            ok = False
        except exc as e:
            ok = text in str(e)
        results.append(ok)
        print("%-4s error %s %s" % ("ok" if ok else "FAIL", exc.__name__,
                                    text))
    try:
        polymma.compile("def f(f16(M) A) -> (f16(M) B) {\n  B(i) = A(j)\n}")
        ok = False
    except polymma.SpecError as e:
        ok = ":2:" in e.diagnostic
    results.append(ok)
    print("%-4s SpecError at line 2" % ("ok" if ok else "FAIL"))


def stream_and_cache():
    t0 = time.time()
    k = polymma.compile("examples/gemm_bias_relu.tc")
    hit = time.time() - t0
    A, B, bias = rnd((1000, 512), H), rnd((512, 744), H), rnd((744,), H)
    C = torch.full((1000, 744), float("nan"), device="cuda", dtype=H)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        k(A, B, bias, C)		# on s: the current stream
    s.synchronize()
    check("gemm_bias_relu on a side stream", C,
          torch.relu(A.float() @ B.float() + bias.float()))
    ok = hit < 1.0
    results.append(ok)
    print("%-4s cache hit in %.3f s" % ("ok" if ok else "FAIL", hit))


def main():
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), "default target",
          polymma.device_target())
    gemm("examples/gemm_bias_relu.tc", H, H,
         lambda a, b, bias: torch.relu(a @ b + bias))
    gemm("examples/relu_gemm.tc", H, H, lambda a, b: torch.relu(a) @ b)
    gemm("examples/add_gemm.tc", H, H, lambda a, b, e, f: a @ b + e @ f)
    gemm("tests/specs/gemm_bf16_nn.tc", BF, BF, lambda a, b: a @ b)
    with open("examples/gemm_bias_relu.tc") as f:	# bf16, from text
        text = f.read().replace("f16(", "bf16(")
    gemm(text, BF, BF, lambda a, b, bias: torch.relu(a @ b + bias))
    gemm("tests/specs/gemm_f32out.tc", H, F, lambda a, b: a @ b)
    errors()
    stream_and_cache()
    print("%d passed, %d failed" % (sum(results),
                                    len(results) - sum(results)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
