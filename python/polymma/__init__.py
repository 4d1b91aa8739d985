"""polymma from Python: compile a spec to a fused CUDA kernel and call it.

    import polymma
    k = polymma.compile('''
    def gemm_bias_relu(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) C) {
        C(i, j) +=! A(i, k) * B(k, j)
        C(i, j)  =  relu(C(i, j) + bias(j))
    }''')
    k(A, B, bias, C)            # torch tensors (or __cuda_array_interface__, __dlpack__)

Two ways to build a kernel (k.backend says which one made it):

- "jit": libpolymma.so's JIT through ctypes (polymma_jit_compile: the
  generator and NVRTC in-process, the cubin in the library's disk cache,
  launched by polymma_kernel_launch: no nvcc, no command). Used where
  libpolymma.so is found ($POLYMMA_LIB, "off" for never; this source
  tree's build/libpolymma.so; the system's).
- "nvcc": the `polymma` command (generation) and nvcc (a shared library
  with the generated launcher), both kept in this module's on-disk cache,
  loaded with ctypes. Used without libpolymma.so, and where the JIT
  refuses a spec that the command may still build (what the JIT cannot
  launch yet, "unsupported:"; no NVRTC): k.jit_refused says why.

A call passes the tensors in the spec's order (inputs, then outputs), takes
every size from their shapes, checks types, shapes and row-major
contiguity, and launches on the stream given (default: PyTorch's current
stream when a tensor is PyTorch's, else the legacy default stream).

Standard library only. Environment: POLYMMA_LIB (libpolymma.so, or
"off"), POLYMMA_CACHE_DIR (the JIT's cache, the library's default), POLYMMA
(the command; default: on PATH, then the source tree's build/polymma), NVCC
(nvcc on PATH, then /usr/local/cuda/bin/nvcc), POLYMMA_CACHE (the nvcc
path's cache; default $XDG_CACHE_HOME/polymma or ~/.cache/polymma).
"""

import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from ._bind import Binder, bind_arguments, tensor_info  # noqa: F401
from . import _jit
from ._jit import JitKernel

__all__ = ["compile", "Kernel", "JitKernel", "Error", "SpecError",
           "OptionError", "CompileError", "CudaError", "device_target",
           "cache_dir", "jit_library", "jit_unavailable", "jit_cache_clear"]
__version__ = "0.1.0"


class Error(Exception):
    """Anything polymma could not do."""


class SpecError(Error):
    """The spec or an option was refused: `diagnostic` holds polymma's
    file:line:col messages."""

    def __init__(self, diagnostic):
        super().__init__(diagnostic.strip())
        self.diagnostic = diagnostic


class OptionError(Error, ValueError):
    """An option keyword or value that `polymma gen` does not take."""


class CompileError(Error):
    """nvcc (or NVRTC, on the JIT path) failed on the generated file: `log`
    holds its output."""

    def __init__(self, message, log):
        super().__init__(message + "\n" + log.strip())
        self.log = log


class CudaError(Error):
    """The launcher returned a CUDA error: `code` and its CUDA name (nvcc
    path); the JIT's message, `code` None (no driver, no NVRTC, a driver
    call failing: polymma_kernel_error)."""

    def __init__(self, code, text):
        super().__init__("CUDA error %d: %s" % (code, text)
                         if code is not None else "CUDA: " + text)
        self.code = code


def jit_library():
    """The path of the libpolymma.so used for the JIT, or None."""
    return _jit.library_path()


def jit_unavailable():
    """Why compile() does not use the JIT ("" where it does)."""
    return _jit.unavailable()


def jit_cache_clear():
    """Empties the JIT's disk cache (polymma_jit_cache_clear): the number
    of entries removed, or -1."""
    lib = _jit.load()
    if lib is None:
        raise Error("no libpolymma.so: " + _jit.unavailable())
    return lib.polymma_jit_cache_clear()


def _here_build(name):
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    path = os.path.join(root, "build", name)
    return path if os.access(path, os.X_OK) else None


def _polymma():
    p = os.environ.get("POLYMMA") or shutil.which("polymma") or \
        _here_build("polymma")
    if not p:
        raise Error("the polymma command was not found: set POLYMMA or "
                    "put it on PATH")
    return p


def _nvcc():
    p = os.environ.get("NVCC") or shutil.which("nvcc")
    if not p and os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        p = "/usr/local/cuda/bin/nvcc"
    if not p:
        raise Error("nvcc was not found: set NVCC or put it on PATH")
    return p


def cache_dir():
    d = os.environ.get("POLYMMA_CACHE")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or \
            os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "polymma")
    return d


def _compute_capability(device=0):
    """(major, minor) of a CUDA device through the driver API, or None."""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    dev, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    if cu.cuInit(0) or cu.cuDeviceGet(ctypes.byref(dev), device):
        return None
    # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR
    if cu.cuDeviceGetAttribute(ctypes.byref(major), 75, dev) or \
       cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev):
        return None
    return major.value, minor.value


def device_target(cc=None):
    """The target for compute capability cc ((9, 0) -> sm_90a, 8.x and
    newer -> sm_80, 7.x -> sm_70); cc None: the current device's (sm_80
    when there is none)."""
    cc = cc or _compute_capability() or (8, 0)
    if cc == (9, 0):
        return "sm_90a"
    return "sm_80" if cc >= (8, 0) else "sm_70"


def _arch_flags(target, cc):
    if target == "sm_90a":
        return ["-gencode=arch=compute_90a,code=sm_90a"]
    major, minor = cc or (int(target[3]), int(target[4]))
    return ["-arch=sm_%d%d" % (major, minor)]


def _option_args(options):
    args = []
    for key in sorted(options):
        value = options[key]
        if key == "defines":
            for name in sorted(value):
                args.append("-D%s=%d" % (name, int(value[name])))
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            value = "on"
        elif value is False:
            value = "off"
        args += [flag, str(value)]
    return args


def _run(cmd, cwd=None):
    try:
        return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    except OSError as e:	# POLYMMA or NVCC naming no program
        raise Error("cannot run %s: %s" % (cmd[0], e.strerror or e))


def _version(cmd):
    r = _run([cmd, "--version"])
    return r.stdout if r.returncode == 0 else ""


# Appended to the generated file: the CUDA error's name, from the library's
# own CUDA runtime (nvcc links it statically).
_SHIM = r"""
extern "C" const char *pm_py_error_string(int e)
{
	return cudaGetErrorString((cudaError_t) e);
}
"""


def _build(spec_path, target, args, arch, out_dir, polymma, nvcc):
    cu = os.path.join(out_dir, "kernel.cu")
    meta = os.path.join(out_dir, "kernel.json")
    r = _run([polymma, "gen", spec_path, "-o", cu, "--meta", meta,
              "--target", target] + args)
    if r.returncode == 1:
        raise SpecError(r.stdout)
    if r.returncode == 2:
        raise OptionError(r.stdout.strip())
    if r.returncode != 0:
        raise Error("polymma gen exited %d:\n%s" % (r.returncode, r.stdout))
    with open(cu, "a") as f:
        f.write(_SHIM)
    so = os.path.join(out_dir, "kernel.so")
    r = _run([nvcc, "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC"] +
             arch + [cu, "-o", so])
    if r.returncode != 0:
        raise CompileError("nvcc failed on the generated kernel", r.stdout)


def compile(spec, target=None, **options):
    """Compile spec (its text, or the path of a .tc file) for target
    ("sm_70", "sm_80", "sm_90a"; default: the current device's) with the
    options of `polymma gen` as keywords (split_k=4, persistent="on",
    defines={"K": 4096}, ...). Returns a JitKernel (libpolymma.so's JIT)
    or a Kernel (the command and nvcc); both are cached on disk."""
    if os.path.isfile(spec):
        spec_path = os.path.abspath(spec)
        with open(spec_path) as f:
            text = f.read()
    else:
        spec_path, text = None, spec
    lib = _jit.load()
    refused = None
    if lib is not None:
        try:
            return _compile_jit(lib, text, spec_path, target, options)
        except _JitRefused as e:
            refused = e
            if not _nvcc_path_available():
                raise refused.error from None
    k = _compile_nvcc(text, spec_path, target, options)
    k.jit_refused = refused.error.diagnostic if refused else None
    return k


class _JitRefused(Exception):
    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def _nvcc_path_available():
    try:
        _polymma(), _nvcc()
    except Error:
        return False
    return True


def _compile_jit(lib, text, spec_path, target, options):
    """The JIT path: target -> the options' target (the arch is the
    device's, where there is one; else target's, default sm_80)."""
    cc = _compute_capability()
    opts = dict(options)
    if target:
        opts["target"] = target
    arch = None if cc else (target or "sm_80")
    try:
        meta, handle = _jit.compile_jit(lib, text, spec_path or "<spec>",
                                        opts, arch)
    except _jit.JitError as e:
        raise _jit_error(e) from None
    return JitKernel(lib, meta, handle, target or device_target(cc),
                     (CudaError, _stream_of))


def _jit_error(e):
    """A JitError as the module's error; _JitRefused (wrapping it) for what
    the nvcc path may still build."""
    if e.rc == _jit.ERR_USAGE:
        return OptionError(e.diagnostic.strip())
    if e.rc == _jit.ERR_INTERNAL:
        return CompileError("NVRTC failed on the generated kernels",
                            e.diagnostic)
    if e.rc == _jit.ERR_SPEC and e.parsed:
        return _JitRefused(SpecError(e.diagnostic))
    if e.rc == _jit.ERR_CUDA:
        err = CudaError(None, e.diagnostic.strip())
        err.diagnostic = e.diagnostic
        return _JitRefused(err)
    return SpecError(e.diagnostic)


def _compile_nvcc(text, spec_path, target, options):
    cc = _compute_capability()
    target = target or device_target(cc)
    polymma, nvcc = _polymma(), _nvcc()
    args = _option_args(options)
    arch = _arch_flags(target, cc)
    key = hashlib.sha256(json.dumps(
        [__version__, _version(polymma), _version(nvcc), text, target, args,
         arch]).encode()).hexdigest()[:32]
    entry = os.path.join(cache_dir(), key)
    if not os.path.isfile(os.path.join(entry, "kernel.so")):
        os.makedirs(cache_dir(), exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=key + ".", dir=cache_dir())
        try:
            if spec_path is None:
                spec_path = os.path.join(tmp, "spec.tc")
                with open(spec_path, "w") as f:
                    f.write(text)
            _build(spec_path, target, args, arch, tmp, polymma, nvcc)
            try:
                os.rename(tmp, entry)
            except OSError:		# another process made it first
                if not os.path.isfile(os.path.join(entry, "kernel.so")):
                    raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return Kernel(entry)


class Kernel:
    """A compiled spec (backend "nvcc"): call it with its tensors (inputs,
    then outputs, in the spec's order) and optionally stream= (an int
    handle or an object with .cuda_stream)."""

    backend = "nvcc"
    jit_refused = None

    def __init__(self, path):
        self.path = path
        with open(os.path.join(path, "kernel.json")) as f:
            self.meta = json.load(f)
        self.name = self.meta["name"]
        self.target = self.meta["target"]
        self.tensors = self.meta["tensors"]
        self.symbols = self.meta["symbols"]
        self._lib = ctypes.CDLL(os.path.join(path, "kernel.so"))
        fn = getattr(self._lib, self.name + "_argv")
        fn.argtypes = [ctypes.POINTER(ctypes.c_void_p),
                       ctypes.POINTER(ctypes.c_int64), ctypes.c_void_p]
        fn.restype = ctypes.c_int
        self._fn = fn
        self._bind = Binder(self.meta)
        err = self._lib.pm_py_error_string
        err.argtypes = [ctypes.c_int]
        err.restype = ctypes.c_char_p
        self._err = err

    def __repr__(self):
        sig = ", ".join("%s %s%s" % (t["type"], t["name"], tuple(t["dims"]))
                        for t in self.tensors)
        return "<polymma.Kernel %s(%s) %s>" % (self.name, sig, self.target)

    def __call__(self, *tensors, stream=None):
        pa, sa = self._bind(tensors)
        e = self._fn(pa, sa, _stream_of(tensors, stream) or None)
        if e:
            raise CudaError(e, self._err(e).decode())


def _stream_of(tensors, stream):
    """The stream handle of a call: stream (a handle or an object with
    .cuda_stream), else PyTorch's current one (_torch_stream)."""
    if stream is None:
        return _torch_stream(tensors)
    if hasattr(stream, "cuda_stream"):
        stream = stream.cuda_stream
    return int(stream or 0)


def _torch_stream(tensors):
    torch = sys.modules.get("torch")
    if torch is None:
        return 0
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.is_cuda:
            # the current stream's handle without a Stream object (7 us
            # a call through torch.cuda.current_stream)
            if raw is not None:
                return raw(t.get_device())
            return torch.cuda.current_stream(t.device).cuda_stream
    return 0
