"""The Python module (python/polymma) without a GPU: argument binding,
the generated file's argv metadata, compilation with nvcc into the on-disk
cache, errors. Run from the repository root: python3 tests/test_python.py
(POLYMMA: the command to use; nvcc cases are skipped without nvcc)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
import polymma  # noqa: E402
from polymma import _bind  # noqa: E402

GBR = os.path.join(ROOT, "examples", "gemm_bias_relu.tc")
POLYMMA = os.environ.get("POLYMMA") or os.path.join(ROOT, "build", "polymma")
HAVE_NVCC = bool(shutil.which("nvcc") or os.environ.get("NVCC") or
                 os.access("/usr/local/cuda/bin/nvcc", os.X_OK))


class Fake:
    """A tensor through __cuda_array_interface__."""

    def __init__(self, shape, typestr="<f2", ptr=4096, strides=None):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (ptr, False),
            "strides": strides, "version": 3}


class FakeTorch:
    """A tensor duck-typed as PyTorch's."""

    def __init__(self, shape, dtype="torch.bfloat16", cuda=True,
                 contiguous=True):
        self.shape, self.dtype, self.is_cuda = shape, dtype, cuda
        self._c = contiguous

    def data_ptr(self):
        return 8192

    def is_contiguous(self):
        return self._c


def gen_meta(spec, *args):
    d = tempfile.mkdtemp()
    try:
        out = os.path.join(d, "k.json")
        subprocess.run([POLYMMA, "gen", spec, "-o", os.path.join(d, "k.cu"),
                        "--meta", out] + list(args), check=True)
        with open(out) as f:
            return json.load(f)
    finally:
        shutil.rmtree(d)


class Meta(unittest.TestCase):
    def test_argv_arrays(self):
        m = gen_meta(GBR)
        self.assertEqual(m["symbols"], ["M", "K", "N"])
        self.assertEqual([(t["name"], t["type"], t["output"], t["dims"])
                          for t in m["tensors"]],
                         [("A", "f16", False, ["M", "K"]),
                          ("B", "f16", False, ["K", "N"]),
                          ("bias", "f16", False, ["N"]),
                          ("C", "f16", True, ["M", "N"])])

    def test_outputs_after_inputs(self):
        d = tempfile.mkdtemp()
        try:
            spec = os.path.join(d, "o.tc")
            with open(spec, "w") as f:
                f.write("def o(f16(M, K) A, f16(N, K) B) -> (f32(M, N) C)"
                        " {\n    C(i, j) +=! A(i, k) * B(j, k)\n}\n")
            m = gen_meta(spec, "-DK=64")
        finally:
            shutil.rmtree(d)
        self.assertEqual([t["name"] for t in m["tensors"]], ["A", "B", "C"])
        self.assertEqual(m["tensors"][2]["type"], "f32")
        self.assertEqual(m["defines"], {"K": 64})


META = {"name": "g", "symbols": ["M", "K", "N"], "defines": {},
        "tensors": [{"name": "A", "type": "f16", "dims": ["M", "K"]},
                    {"name": "B", "type": "f16", "dims": ["K", "N"]},
                    {"name": "bias", "type": "f16", "dims": ["N"]},
                    {"name": "C", "type": "f16", "dims": ["M", "N"]}]}


class Bind(unittest.TestCase):
    def call(self, *shapes, meta=META, **kw):
        return _bind.bind_arguments(meta, [Fake(s, **kw) for s in shapes])

    def test_sizes_in_symbol_order(self):
        ptrs, sizes = self.call((3, 5), (5, 7), (7,), (3, 7))
        self.assertEqual(sizes, [3, 5, 7])
        self.assertEqual(ptrs, [4096] * 4)

    def test_mismatch_names_both_sides(self):
        with self.assertRaisesRegex(ValueError,
                                    r"'B' dimension 0 is K = 6, but 'A' "
                                    r"gives K = 5"):
            self.call((3, 5), (6, 7), (7,), (3, 7))

    def test_count(self):
        with self.assertRaisesRegex(TypeError, r"takes 4 tensors "
                                    r"\(A, B, bias, C\), got 3"):
            self.call((3, 5), (5, 7), (7,))

    def test_rank(self):
        with self.assertRaisesRegex(ValueError, r"'bias' is f16\(N\)"):
            self.call((3, 5), (5, 7), (7, 1), (3, 7))

    def test_type(self):
        with self.assertRaisesRegex(TypeError, r"'A' must be f16, got f32"):
            self.call((3, 5), (5, 7), (7,), (3, 7), typestr="<f4")

    def test_strides(self):
        ok = [Fake((3, 5), strides=(10, 2)), Fake((5, 7)), Fake((7,)),
              Fake((3, 7))]
        self.assertEqual(_bind.bind_arguments(META, ok)[1], [3, 5, 7])
        bad = [Fake((3, 5), strides=(2, 6))] + ok[1:]
        with self.assertRaisesRegex(ValueError, "'A' must be contiguous"):
            _bind.bind_arguments(META, bad)

    def test_defines_fix_sizes(self):
        meta = dict(META, defines={"K": 64})
        with self.assertRaisesRegex(ValueError, r"K = 5, but -DK gives"):
            self.call((3, 5), (5, 7), (7,), (3, 7), meta=meta)

    def test_literal_dims(self):
        meta = dict(META, symbols=["M", "K"], tensors=[
            {"name": "A", "type": "f16", "dims": ["M", "K"]},
            {"name": "B", "type": "f16", "dims": ["K", 8]}])
        self.assertEqual(self.call((2, 4), (4, 8), meta=meta)[1], [2, 4])
        with self.assertRaisesRegex(ValueError, "dimension 1 must be 8"):
            self.call((2, 4), (4, 9), meta=meta)

    def test_torch_like(self):
        meta = dict(META, tensors=[dict(t, type="bf16")
                                   for t in META["tensors"]])
        ts = [FakeTorch(s) for s in [(3, 5), (5, 7), (7,), (3, 7)]]
        self.assertEqual(_bind.bind_arguments(meta, ts)[1], [3, 5, 7])
        ts[0] = FakeTorch((3, 5), cuda=False)
        with self.assertRaisesRegex(ValueError, "not on a CUDA device"):
            _bind.bind_arguments(meta, ts)
        ts[0] = FakeTorch((3, 5), dtype="torch.float16")
        with self.assertRaisesRegex(TypeError, "must be bf16, got f16"):
            _bind.bind_arguments(meta, ts)

    def test_not_a_tensor(self):
        with self.assertRaisesRegex(TypeError, "not a CUDA tensor"):
            _bind.bind_arguments(META, [1, 2, 3, 4])


class Targets(unittest.TestCase):
    def test_device_target(self):
        self.assertEqual(polymma.device_target((9, 0)), "sm_90a")
        self.assertEqual(polymma.device_target((8, 6)), "sm_80")
        self.assertEqual(polymma.device_target((10, 0)), "sm_80")
        self.assertEqual(polymma.device_target((7, 5)), "sm_70")

    def test_options(self):
        self.assertEqual(polymma._option_args(
            {"split_k": 4, "persistent": True, "defines": {"K": 64}}),
            ["-DK=64", "--persistent", "on", "--split-k", "4"])


@unittest.skipUnless(HAVE_NVCC, "no nvcc")
class Compile(unittest.TestCase):
    """One cache for the class (each nvcc run takes ~15 s); every test
    expects only what it made itself."""

    @classmethod
    def setUpClass(cls):
        cls.cache = tempfile.mkdtemp()
        os.environ["POLYMMA_CACHE"] = cls.cache
        os.environ["POLYMMA"] = POLYMMA

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.cache)

    def test_compile_cached(self):
        k = polymma.compile(GBR, target="sm_80", split_k=1)
        self.assertEqual(k.name, "gemm_bias_relu")
        self.assertIn("f16 bias('N',)", repr(k))
        so = os.path.join(k.path, "kernel.so")
        t0 = os.stat(so).st_mtime_ns
        with open(GBR) as f:
            k2 = polymma.compile(f.read(), target="sm_80", split_k=1)
        self.assertEqual(k2.path, k.path)	# the text hashes the same
        self.assertEqual(os.stat(so).st_mtime_ns, t0)
        before = set(os.listdir(self.cache))
        k3 = polymma.compile(GBR, target="sm_80", split_k=2)
        self.assertNotEqual(k3.path, k.path)
        self.assertEqual(set(os.listdir(self.cache)) - before,
                         {os.path.basename(k3.path)})

    def test_call_without_gpu_is_an_error(self):
        if polymma._compute_capability():
            self.skipTest("a GPU is present")
        k = polymma.compile(GBR, target="sm_80", split_k=1)
        with self.assertRaises(polymma.CudaError):
            k(Fake((64, 32)), Fake((32, 64)), Fake((64,)), Fake((64, 64)))

    def test_spec_error(self):
        before = set(os.listdir(self.cache))
        with self.assertRaises(polymma.SpecError) as e:
            polymma.compile("def f(f16(M) A) -> (f16(M) B) {\n"
                            "    B(i) = nosuch(A(i))\n}\n", target="sm_80")
        self.assertRegex(e.exception.diagnostic, r"spec\.tc:2:\d+: error:")
        # nothing half-made is left
        self.assertEqual(set(os.listdir(self.cache)), before)

    def test_option_error(self):
        with self.assertRaisesRegex(polymma.OptionError, "--split-k many"):
            polymma.compile(GBR, target="sm_80", split_k="many")
        with self.assertRaises(polymma.OptionError):
            polymma.compile(GBR, target="sm_80", no_such_option=1)


if __name__ == "__main__":
    unittest.main(verbosity=1)
