"""The Python module (python/polymma) without a GPU: argument binding,
the generated file's argv metadata, the JIT path (libpolymma.so through
ctypes: NVRTC for sm_80, the library's cache, errors, the fallback to
nvcc), compilation with nvcc into the on-disk cache, errors, the PyTorch
operator's shapes and schema. Run from the repository root: python3
tests/test_python.py (POLYMMA: the command to use; POLYMMA_LIB:
libpolymma.so, default build/libpolymma.so; JIT cases are skipped without
libpolymma.so or NVRTC, nvcc cases without nvcc, PyTorch cases without
PyTorch)."""

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
import polymma.torch as pmtorch  # noqa: E402
from polymma import _bind, _jit  # noqa: E402

GBR = os.path.join(ROOT, "examples", "gemm_bias_relu.tc")
POLYMMA = os.environ.get("POLYMMA") or os.path.join(ROOT, "build", "polymma")
HAVE_NVCC = bool(shutil.which("nvcc") or os.environ.get("NVCC") or
                 os.access("/usr/local/cuda/bin/nvcc", os.X_OK))
HAVE_LIB = _jit.load() is not None
try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False
# More tensors than the JIT launcher takes (16: runtime/jit.h): the JIT
# refuses the spec (unsupported), the command generates it.
WIDE = ("def wide(f16(M, K) A, f16(K, N) B, %s) -> (f16(M, N) C) {\n"
        "    C(i, j) +=! A(i, k) * B(k, j)\n"
        "    C(i, j) = C(i, j) + %s\n}\n") % (
    ", ".join("f16(N) b%d" % i for i in range(15)),
    " + ".join("b%d(j)" % i for i in range(15)))


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

    def test_binder_memo(self):
        meta = dict(META, tensors=[dict(t, type="bf16")
                                   for t in META["tensors"]])
        b = _bind.Binder(meta)
        shapes = [(3, 5), (5, 7), (7,), (3, 7)]
        pa, sa = b([FakeTorch(s) for s in shapes])
        self.assertEqual((list(pa), list(sa)), ([8192] * 4, [3, 5, 7]))
        self.assertEqual(len(b._memo), 1)
        # a hit: the same sizes array, fresh pointers
        pb, sb = b([FakeTorch(s) for s in shapes])
        self.assertIs(sb, sa)
        self.assertEqual(list(pb), [8192] * 4)
        # what the key does not fix is checked on a hit
        ts = [FakeTorch(s) for s in shapes]
        ts[2] = FakeTorch((7,), contiguous=False)
        with self.assertRaisesRegex(ValueError, "'bias' must be contiguous"):
            b(ts)
        ts[2] = FakeTorch((7,), cuda=False)
        with self.assertRaisesRegex(ValueError, "'bias' is not on a CUDA"):
            b(ts)
        # another shape or type misses, and is checked in full
        ts = [FakeTorch(s) for s in [(3, 5), (6, 7), (7,), (3, 7)]]
        with self.assertRaisesRegex(ValueError, "'B' dimension 0 is K = 6"):
            b(ts)
        ts = [FakeTorch(s) for s in shapes]
        ts[0] = FakeTorch((3, 5), dtype="torch.float16")
        with self.assertRaisesRegex(TypeError, "'A' must be bf16, got f16"):
            b(ts)
        self.assertEqual(list(b([FakeTorch(s) for s in [
            (2, 5), (5, 9), (9,), (2, 9)]])[1]), [2, 5, 9])
        self.assertEqual(len(b._memo), 2)
        # other kinds are never kept; the count is checked first
        self.assertEqual(list(b([FakeDLPack(s, code=4) for s in
                                 shapes])[1]), [3, 5, 7])
        self.assertEqual(len(b._memo), 2)
        with self.assertRaisesRegex(TypeError, "takes 4 tensors"):
            b([FakeTorch(s) for s in shapes[:3]])
        for m in range(b.LIMIT + 1):
            b([FakeTorch(s) for s in [(m + 1, 5), (5, 7), (7,),
                                      (m + 1, 7)]])
        self.assertLessEqual(len(b._memo), b.LIMIT)


class FakeDLPack:
    """A DLPack producer: a capsule 'dltensor' over a DLManagedTensor made
    here (device_type 2: CUDA; 1: CPU), without a deleter (the memory is
    not real: nothing to free)."""

    def __init__(self, shape, code=2, bits=16, device=2, strides=None,
                 offset=0):
        import ctypes
        from polymma import _dlpack as d
        n = len(shape)
        self._shape = (ctypes.c_int64 * n)(*shape)
        self._strides = (ctypes.c_int64 * n)(*strides) if strides else None
        self._m = d.DLManagedTensor()
        t = self._m.dl_tensor
        t.data, t.byte_offset, t.ndim = 1 << 20, offset, n
        t.device.device_type, t.device.device_id = device, 0
        t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
        t.shape = self._shape
        t.strides = self._strides

    def __dlpack__(self, stream=None):
        import ctypes
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self._m), b"dltensor", None)


class DLPack(unittest.TestCase):
    def test_info(self):
        ptr, shape, ty, contiguous, cuda = _bind.tensor_info(
            FakeDLPack((3, 5), offset=64))
        self.assertEqual((ptr, shape, ty, contiguous, cuda),
                         ((1 << 20) + 64, (3, 5), "f16", True, True))
        self.assertEqual(_bind.tensor_info(
            FakeDLPack((3, 5), code=4))[2], "bf16")
        self.assertEqual(_bind.tensor_info(
            FakeDLPack((3, 5), code=1, bits=8))[2], "DLPack uint8")
        # strides in elements: row-major (5, 1) or a unit dimension's any
        self.assertTrue(_bind.tensor_info(
            FakeDLPack((3, 5), strides=(5, 1)))[3])
        self.assertTrue(_bind.tensor_info(
            FakeDLPack((1, 5), strides=(99, 1)))[3])
        self.assertFalse(_bind.tensor_info(
            FakeDLPack((3, 5), strides=(1, 3)))[3])

    def test_bind(self):
        ts = [FakeDLPack(s) for s in [(3, 5), (5, 7), (7,), (3, 7)]]
        self.assertEqual(_bind.bind_arguments(META, ts)[1], [3, 5, 7])
        ts[1] = FakeDLPack((5, 7), device=1)
        with self.assertRaisesRegex(ValueError, "'B' is not on a CUDA "
                                    "device"):
            _bind.bind_arguments(META, ts)
        ts[1] = FakeDLPack((5, 7), code=2, bits=32)
        with self.assertRaisesRegex(TypeError, "'B' must be f16, got f32"):
            _bind.bind_arguments(META, ts)
        ts[1] = FakeDLPack((5, 7), strides=(1, 5))
        with self.assertRaisesRegex(ValueError, "'B' must be contiguous"):
            _bind.bind_arguments(META, ts)

    def test_producer_errors(self):
        class Refuses:
            def __dlpack__(self, stream=None):
                raise BufferError("not exportable")

        class NotACapsule:
            def __dlpack__(self, stream=None):
                return 7
        with self.assertRaisesRegex(TypeError, r"__dlpack__\(\) failed: "
                                    "not exportable"):
            _bind.tensor_info(Refuses())
        with self.assertRaisesRegex(TypeError, "did not return a DLPack "
                                    "capsule"):
            _bind.tensor_info(NotACapsule())


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


class NoJit:
    """The nvcc path only (as without libpolymma.so) within the block."""

    def __enter__(self):
        self.saved = dict(_jit._state)
        _jit._state.update(tried=True, lib=None, path=None, why="test")

    def __exit__(self, *exc):
        _jit._state.clear()
        _jit._state.update(self.saved)


@unittest.skipUnless(HAVE_NVCC, "no nvcc")
class Compile(unittest.TestCase):
    """The nvcc path. One cache for the class (each nvcc run takes ~15 s);
    every test expects only what it made itself."""

    @classmethod
    def setUpClass(cls):
        cls.cache = tempfile.mkdtemp()
        os.environ["POLYMMA_CACHE"] = cls.cache
        os.environ["POLYMMA"] = POLYMMA
        cls.nojit = NoJit()
        cls.nojit.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.nojit.__exit__()
        shutil.rmtree(cls.cache)

    def test_backend(self):
        k = polymma.compile(GBR, target="sm_80", split_k=1)
        self.assertEqual(k.backend, "nvcc")
        self.assertIsNone(k.jit_refused)

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

    def test_no_such_command(self):
        """POLYMMA naming no program: polymma.Error naming it, not an
        OSError from subprocess."""
        os.environ["POLYMMA"] = "/nonexistent/polymma"
        try:
            with self.assertRaisesRegex(polymma.Error, "cannot run "
                                        "/nonexistent/polymma"):
                polymma.compile(GBR, target="sm_80", split_k=3)
        finally:
            os.environ["POLYMMA"] = POLYMMA

    def test_option_error(self):
        with self.assertRaisesRegex(polymma.OptionError, "--split-k many"):
            polymma.compile(GBR, target="sm_80", split_k="many")
        with self.assertRaises(polymma.OptionError):
            polymma.compile(GBR, target="sm_80", no_such_option=1)


class Library(unittest.TestCase):
    """Finding libpolymma.so (fresh processes: the module loads it once)."""

    def where(self, lib):
        env = dict(os.environ, POLYMMA_LIB=lib,
                   PYTHONPATH=os.path.join(ROOT, "python"))
        r = subprocess.run([sys.executable, "-c", "import polymma; print("
                            "polymma.jit_library()); print(polymma."
                            "jit_unavailable())"], env=env, check=True,
                           stdout=subprocess.PIPE, text=True)
        return r.stdout.splitlines()

    def test_off(self):
        self.assertEqual(self.where("off"), ["None", "POLYMMA_LIB=off"])

    def test_missing(self):
        path, why = self.where("/nonexistent/libpolymma.so")
        self.assertEqual(path, "None")
        self.assertIn("/nonexistent/libpolymma.so", why)

    @unittest.skipUnless(HAVE_LIB, "no libpolymma.so: " + _jit.unavailable())
    def test_found(self):
        path, why = self.where(_jit.library_path())
        self.assertEqual((path, why), (_jit.library_path(), ""))

    def test_option_pairs(self):
        self.assertEqual(_jit.option_pairs(
            {"split_k": 4, "persistent": True, "tma": False,
             "defines": {"N": 8, "K": 64}}),
            [("define", "K=64"), ("define", "N=8"), ("persistent", "on"),
             ("split-k", "4"), ("tma", "off")])


@unittest.skipUnless(HAVE_LIB, "no libpolymma.so: " + _jit.unavailable())
class Jit(unittest.TestCase):
    """The JIT path: polymma.compile through libpolymma.so. Its own cache
    (POLYMMA_CACHE_DIR); each cold compile of gemm_bias_relu for sm_80
    takes ~10 s here (generation and NVRTC)."""

    @classmethod
    def setUpClass(cls):
        cls.cache = tempfile.mkdtemp()
        cls.saved = os.environ.get("POLYMMA_CACHE_DIR")
        os.environ["POLYMMA_CACHE_DIR"] = cls.cache
        cls.k = None
        try:
            cls.k = polymma.compile(GBR, target="sm_80", split_k=1)
        except polymma.CudaError as e:	# no NVRTC: a fallback needs one
            cls.why = str(e)
        except polymma.Error as e:
            if "NVRTC" not in str(getattr(e, "diagnostic", e)):
                raise
            cls.why = str(e)

    @classmethod
    def tearDownClass(cls):
        cls.k = None
        if cls.saved is None:
            del os.environ["POLYMMA_CACHE_DIR"]
        else:
            os.environ["POLYMMA_CACHE_DIR"] = cls.saved
        shutil.rmtree(cls.cache)

    def kernel(self):
        if self.k is None:
            self.skipTest("no NVRTC: " + self.why)
        if self.k.backend != "jit":
            self.skipTest("the JIT fell back to nvcc: %s" %
                          self.k.jit_refused)
        return self.k

    def test_compile_sm80(self):
        k = self.kernel()
        self.assertEqual((k.name, k.arch, k.target), ("gemm_bias_relu",
                                                      "sm_80", "sm_80"))
        self.assertFalse(k.cached)
        self.assertIn("f16 bias('N',)", repr(k))
        self.assertEqual(len(os.listdir(self.cache)), 1)

    def test_cache_hit(self):
        self.kernel()
        with open(GBR) as f:	# the text, not the path: the same key
            k2 = polymma.compile(f.read(), target="sm_80", split_k=1)
        self.assertEqual(k2.backend, "jit")
        self.assertTrue(k2.cached)
        self.assertEqual(len(os.listdir(self.cache)), 1)

    def test_meta_as_the_command(self):
        """The spec's metadata from the library = the command's --meta."""
        m = gen_meta(GBR, "-DK=64")
        k = polymma.compile(GBR, target="sm_80", split_k=1,
                            defines={"K": 64})
        if k.backend != "jit":
            self.skipTest("no JIT: %s" % k.jit_refused)
        for key in ("name", "symbols", "defines"):
            self.assertEqual(k.meta[key], m[key])
        self.assertEqual([(t["name"], t["type"], t["output"], t["dims"])
                          for t in k.meta["tensors"]],
                         [(t["name"], t["type"], t["output"], t["dims"])
                          for t in m["tensors"]])
        with self.assertRaisesRegex(ValueError, r"K = 32, but -DK gives"):
            k(Fake((64, 32)), Fake((32, 64)), Fake((64,)), Fake((64, 64)))

    def test_argument_checking(self):
        k = self.kernel()
        with self.assertRaisesRegex(ValueError, r"'B' dimension 0 is K = "
                                    r"33, but 'A' gives K = 32"):
            k(Fake((64, 32)), Fake((33, 64)), Fake((64,)), Fake((64, 64)))
        with self.assertRaisesRegex(TypeError, r"takes 4 tensors"):
            k(Fake((64, 32)), Fake((32, 64)), Fake((64, 64)))
        with self.assertRaisesRegex(TypeError, r"'bias' must be f16, got "
                                    r"f32"):
            k(Fake((64, 32)), Fake((32, 64)), Fake((64,), "<f4"),
              Fake((64, 64)))

    def test_call_without_gpu_is_an_error(self):
        k = self.kernel()
        if polymma._compute_capability():
            self.skipTest("a GPU is present")
        with self.assertRaisesRegex(polymma.CudaError, "libcuda|device"):
            k(Fake((64, 32)), Fake((32, 64)), Fake((64,)), Fake((64, 64)))

    def test_spec_error(self):
        bad = "def f(f16(M) A) -> (f16(M) B) {\n    B(i) = nosuch(A(i))\n}\n"
        before = set(os.listdir(self.cache))
        with self.assertRaises(polymma.SpecError) as e:
            polymma.compile(bad, target="sm_80")
        self.assertRegex(e.exception.diagnostic,
                         r"^<spec>:2:12: error: unknown function 'nosuch'")
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "bad.tc")
            with open(path, "w") as f:
                f.write(bad)
            with self.assertRaises(polymma.SpecError) as e:
                polymma.compile(path, target="sm_80")
            self.assertTrue(e.exception.diagnostic.startswith(
                path + ":2:12: error:"), e.exception.diagnostic)
        finally:
            shutil.rmtree(d)
        self.assertEqual(set(os.listdir(self.cache)), before)

    def test_option_error(self):
        with self.assertRaisesRegex(polymma.OptionError, "split-k=many"):
            polymma.compile(GBR, target="sm_80", split_k="many")
        with self.assertRaisesRegex(polymma.OptionError, "no-such-option"):
            polymma.compile(GBR, target="sm_80", no_such_option=1)

    def test_refused_falls_back_to_nvcc(self):
        """What the JIT cannot launch goes to the nvcc path where there is
        one (stubbed here: the call is what is checked), else it is the
        JIT's SpecError."""
        self.kernel()
        calls = []
        real_compile, real_avail = polymma._compile_nvcc, \
            polymma._nvcc_path_available
        try:
            polymma._compile_nvcc = lambda *a: calls.append(a) or \
                polymma.Kernel.__new__(polymma.Kernel)
            polymma._nvcc_path_available = lambda: True
            k = polymma.compile(WIDE, target="sm_90a")
            self.assertEqual(len(calls), 1)
            self.assertEqual(k.backend, "nvcc")
            self.assertIn("unsupported", k.jit_refused)
            polymma._nvcc_path_available = lambda: False
            with self.assertRaisesRegex(polymma.SpecError, "unsupported"):
                polymma.compile(WIDE, target="sm_90a")
            self.assertEqual(len(calls), 1)
        finally:
            polymma._compile_nvcc = real_compile
            polymma._nvcc_path_available = real_avail


class MockTensor:
    """What polymma.torch asks of a tensor."""

    def __init__(self, shape, dtype="float16", fake=False, zeroed=False):
        self.shape, self.dtype, self.fake = tuple(shape), dtype, fake
        self.device, self.zeroed = MockDevice(), zeroed
        self.nbytes = shape[0] if len(shape) == 1 else 0

    def contiguous(self):
        return self

    def new_empty(self, shape, dtype):
        return MockTensor(shape, dtype, fake=True)


class MockDevice:
    index = 0


class MockTorch:
    """What polymma.torch asks of torch: dtypes, empty, zeros, the current
    stream and device, torch.library's Library (define, impl) and
    register_fake, torch.ops."""

    def __init__(self):
        for name in pmtorch._DTYPES.values():
            setattr(self, name, name)
        self.uint8 = "uint8"
        self.registered = []
        mock = self
        ops = {}

        class Op:
            def __init__(self, fn):
                self.fn, self.fake = fn, None

            def __call__(self, *a):
                return self.fn(*a)

        class Library:
            def __init__(self, ns, kind):
                self.ns, self.schemas = ns, {}
                mock.registered.append(("library", ns, kind))

            def define(self, sig):
                name = sig[:sig.index("(")]
                self.schemas[name] = sig[len(name):]

            def impl(self, name, fn, key):
                qual = self.ns + "::" + name
                mock.registered.append((qual, self.schemas[name], key))
                ops[qual] = Op(fn)

            @staticmethod
            def register_fake(qual, fn, lib):
                ops[qual].fake = fn

        class Namespace:
            def __init__(self, ns):
                self.ns = ns

            def __getattr__(self, name):
                return ops[self.ns + "::" + name]

        class Ops:
            def __getattr__(self, ns):
                return Namespace(ns)

        Library.Library = Library
        self.ops = Ops()

        class Stream:
            cuda_stream = 77

        class Cuda:
            @staticmethod
            def current_stream(dev):
                return Stream()

            @staticmethod
            def current_device():
                return 0

        self.library, self.cuda = Library, Cuda

    def empty(self, shape, dtype, device):
        return MockTensor(shape, dtype)

    def zeros(self, n, dtype, device):
        return MockTensor((n,), dtype, zeroed=True)


class TorchOp(unittest.TestCase):
    """polymma.torch without PyTorch: the results' shapes and the schema;
    with PyTorch (a GPU machine), registering an operator."""

    META = {"name": "g", "defines": {"N": 8}, "symbols": ["M", "K", "N"],
            "tensors": [
                {"name": "A", "type": "f16", "output": False,
                 "dims": ["M", "K"]},
                {"name": "B", "type": "f16", "output": False,
                 "dims": ["K", "N"]},
                {"name": "C", "type": "f32", "output": True,
                 "dims": ["M", "N"]},
                {"name": "D", "type": "f16", "output": True,
                 "dims": ["M", 4]}]}

    def test_output_shapes(self):
        self.assertEqual(pmtorch.output_shapes(self.META, [(3, 5), (5, 9)]),
                         [[3, 8], [3, 4]])	# N from the define
        with self.assertRaisesRegex(TypeError, "takes 2 inputs"):
            pmtorch.output_shapes(self.META, [(3, 5)])
        with self.assertRaisesRegex(ValueError, r"'B' is f16"):
            pmtorch.output_shapes(self.META, [(3, 5), (5,)])
        meta = dict(self.META, defines={})
        meta["tensors"] = self.META["tensors"][:2] + [
            {"name": "C", "type": "f32", "output": True, "dims": ["M", "P"]}]
        with self.assertRaisesRegex(ValueError, "no input gives the size P "
                                    "of output 'C'"):
            pmtorch.output_shapes(meta, [(3, 5), (5, 9)])

    def test_schema(self):
        self.assertEqual(pmtorch.schema(self.META),
                         "(Tensor A, Tensor B) -> (Tensor, Tensor)")
        one = dict(self.META, tensors=self.META["tensors"][:3])
        self.assertEqual(pmtorch.schema(one), "(Tensor A, Tensor B) -> "
                         "Tensor")

    def test_operator_with_a_stand_in(self):
        """op()'s registration, implementation and fake implementation,
        with a stand-in for torch and for the kernel (no GPU): results
        allocated from the inputs' shapes (kept per shapes), the kernel
        called with no stream and no workspace (its own: the current
        stream, the stream's kept workspace or in a CUDA graph capture
        the launch's own), one registration per name."""
        mock, calls = MockTorch(), []

        class K:
            backend, target, arch = "jit", "sm_80", "sm_80"
            meta = dict(self.META, name="mk")

            def workspace_size(self, *t):
                return 4096 if t[0].shape[0] > 100 else 0

            def __call__(self, *t, stream=None, workspace=None):
                calls.append((t, stream, workspace))

        real_compile, real_torch = polymma.compile, sys.modules.get("torch")
        real_libs = dict(pmtorch._libs)
        pmtorch._libs.clear()
        polymma.compile = lambda *a, **kw: K()
        sys.modules["torch"] = mock
        try:
            o = pmtorch.op("spec text")
            self.assertEqual(mock.registered, [
                ("library", "polymma", "FRAGMENT"),
                ("polymma::mk", "(Tensor A, Tensor B) -> (Tensor, Tensor)",
                 "CUDA")])
            self.assertIs(pmtorch.op("spec text"), o)
            A, B = MockTensor((300, 5), "float16"), MockTensor((5, 9))
            C, D = o(A, B)
            self.assertEqual((C.shape, C.dtype, D.shape, D.dtype),
                             ((300, 8), "float32", (300, 4), "float16"))
            t, stream, ws = calls[-1]
            self.assertEqual([x.shape for x in t],
                             [(300, 5), (5, 9), (300, 8), (300, 4)])
            self.assertEqual((stream, ws), (None, None))
            C, D = o(MockTensor((3, 5)), B)
            self.assertEqual((C.shape, D.shape), ((3, 8), (3, 4)))
            C, D = o(A, B)
            self.assertEqual((C.shape, D.shape), ((300, 8), (300, 4)))
            with self.assertRaisesRegex(ValueError, r"'B' is f16"):
                o(A, MockTensor((5,)))
            C, D = o.fake(MockTensor((7, 5)), B)	# register_fake's
            self.assertEqual((C.shape, C.fake, D.shape), ((7, 8), True,
                                                          (7, 4)))
            with self.assertRaisesRegex(ValueError, "pass name="):
                pmtorch.op("spec text", split_k=2)
            K.backend = "nvcc"
            o2 = pmtorch.op("spec text", name="mk_nvcc")
            o2(A, B)
            self.assertEqual((calls[-1][1], calls[-1][2]), (None, None))
        finally:
            polymma.compile = real_compile
            if real_torch is None:
                del sys.modules["torch"]
            else:
                sys.modules["torch"] = real_torch
            pmtorch._ops.pop("polymma::mk", None)
            pmtorch._ops.pop("polymma::mk_nvcc", None)
            pmtorch._libs.clear()
            pmtorch._libs.update(real_libs)

    @unittest.skipUnless(HAVE_TORCH, "no PyTorch")
    @unittest.skipUnless(HAVE_LIB, "no libpolymma.so")
    def test_register(self):
        d = tempfile.mkdtemp()
        os.environ["POLYMMA_CACHE_DIR"] = d
        try:
            o = pmtorch.op(GBR, target="sm_80", split_k=1)
            self.assertIs(pmtorch.op(GBR, target="sm_80", split_k=1), o)
            with self.assertRaisesRegex(ValueError, "pass name="):
                pmtorch.op(GBR, target="sm_80", split_k=2)
        finally:
            del os.environ["POLYMMA_CACHE_DIR"]
            shutil.rmtree(d)



def _var_report():
    """bench/tools/var_report.py as a module."""
    import importlib.util
    path = os.path.join(ROOT, "bench", "tools", "var_report.py")
    spec = importlib.util.spec_from_file_location("var_report", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class VarReport(unittest.TestCase):
    """The var-time summary: parsing, the ratios against cuBLAS, A/B."""
    TEXT = [
        "SKIP 64x64x64 new/_x invalid argument",
        "VAR 64x64x64 cublas=0.010 new/=0.020 old/=0.010 new/_x=-1.0 "
        "old/_x=0.040 new/_r,s=2=0.005 old/_r,s=2=0.010 3",
        "VAR 8x8x8 cublas=0.020 new/=0.010 old/=0.020 new/_x=0.010 "
        "old/_x=0.020 4",
        "garbage line",
    ]

    def test_parse(self):
        vr = _var_report()
        rows = vr.parse(self.TEXT)
        self.assertEqual([r[0] for r in rows], ["64x64x64", "8x8x8"])
        # -1 (did not run) is left out; a key holding '=' is kept whole
        self.assertNotIn("new/_x", rows[0][2])
        self.assertEqual(rows[0][2]["new/_r,s=2"], 0.005)

    def test_summary_and_ab(self):
        vr = _var_report()
        rows = [r + (vr.size_set(r[0], {"8x8x8"}),)
                for r in vr.parse(self.TEXT)]
        self.assertEqual(rows[0][3], "square")
        self.assertEqual(rows[1][3], "paper")
        s = vr.summary(rows, 0.85)
        n, g, lo, below = s["square"]["new/"]
        self.assertEqual((n, below), (1, 1))
        self.assertAlmostEqual(g, 0.5)
        a = vr.ab(rows, "new", "old")
        self.assertAlmostEqual(a["square"]["(plan)"][1], 0.5)
        self.assertAlmostEqual(a["square"]["_r,s=2"][1], 2.0)
        self.assertNotIn("_x", a["square"])
        self.assertAlmostEqual(a["paper"]["_x"][1], 2.0)


if __name__ == "__main__":
    unittest.main(verbosity=1)
