"""The C library's JIT through ctypes (include/polymma.h: polymma_jit_compile,
polymma_kernel_launch; docs/decisions/0043-python-jit.md).

libpolymma.so is looked for in $POLYMMA_LIB ("off": never), this source
tree's build/libpolymma.so, then the system's (libpolymma.so.0 on the
loader's path, PREFIX/lib for the usual prefixes). Without it, or where it
cannot be loaded, the module uses the nvcc path and `unavailable()` says
why.
"""

import ctypes
import os
import sys

from ._bind import Binder

# enum polymma_status
OK, ERR_SPEC, ERR_USAGE, ERR_INTERNAL, ERR_CUDA = 0, 1, 2, 3, 4

_P, _I64P = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
_C = ctypes.c_char_p
# name: (restype, argtypes)
_PROTOS = {
    "polymma_ctx_alloc": (_P, []),
    "polymma_ctx_free": (None, [_P]),
    "polymma_diagnostics": (_C, [_P]),
    "polymma_options_alloc": (_P, []),
    "polymma_options_free": (None, [_P]),
    "polymma_options_set": (ctypes.c_int,
                            [_P, _C, _C, ctypes.POINTER(_C)]),
    "polymma_spec_parse": (ctypes.c_int, [_P, _C, _C,
                                          ctypes.POINTER(_P)]),
    "polymma_spec_free": (None, [_P]),
    "polymma_spec_name": (_C, [_P]),
    "polymma_spec_nsizes": (ctypes.c_int, [_P]),
    "polymma_spec_size_name": (_C, [_P, ctypes.c_int]),
    "polymma_spec_ntensors": (ctypes.c_int, [_P]),
    "polymma_spec_tensor_name": (_C, [_P, ctypes.c_int]),
    "polymma_spec_tensor_type": (_C, [_P, ctypes.c_int]),
    "polymma_spec_tensor_is_output": (ctypes.c_int, [_P, ctypes.c_int]),
    "polymma_spec_tensor_rank": (ctypes.c_int, [_P, ctypes.c_int]),
    "polymma_spec_tensor_dim": (ctypes.c_int, [_P, ctypes.c_int,
                                               ctypes.c_int, _I64P]),
    "polymma_jit_compile": (ctypes.c_int, [_P, _C, _P, _C,
                                           ctypes.POINTER(_P)]),
    "polymma_kernel_launch": (ctypes.c_int, [_P, _P, _I64P, _P]),
    "polymma_kernel_launch_ws": (ctypes.c_int, [_P, _P, _I64P, _P,
                                                ctypes.c_size_t, _P]),
    "polymma_kernel_workspace_size": (ctypes.c_size_t, [_P, _I64P]),
    "polymma_kernel_error": (_C, [_P]),
    "polymma_kernel_arch": (_C, [_P]),
    "polymma_kernel_cached": (ctypes.c_int, [_P]),
    "polymma_kernel_free": (None, [_P]),
    "polymma_jit_cache_clear": (ctypes.c_int, []),
}

_state = {"tried": False, "lib": None, "path": None, "why": None}


def _candidates():
    env = os.environ.get("POLYMMA_LIB")
    if env:
        return [] if env == "off" else [env]
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    out = [os.path.join(root, "build", "libpolymma.so"), "libpolymma.so.0"]
    for prefix in (sys.prefix, "/usr/local", "/usr"):
        out.append(os.path.join(prefix, "lib", "libpolymma.so"))
    return out


def load():
    """The loaded library (ctypes.CDLL with its prototypes) or None."""
    if _state["tried"]:
        return _state["lib"]
    _state["tried"] = True
    why = []
    explicit = bool(os.environ.get("POLYMMA_LIB"))
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            if explicit:
                why.append("%s: no such file" % path)
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:	# e.g. libisl.so.23 missing beside it
            why.append(str(e))
            continue
        try:
            for name, (res, args) in _PROTOS.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = res, args
        except AttributeError as e:	# an older libpolymma.so
            why.append("%s: %s" % (path, e))
            continue
        _state.update(lib=lib, path=path)
        return lib
    _state["why"] = "; ".join(why) or (
        "POLYMMA_LIB=off" if os.environ.get("POLYMMA_LIB") == "off" else
        "libpolymma.so not found (POLYMMA_LIB, build/, the system's)")
    return None


def library_path():
    """The path of the loaded libpolymma.so, or None."""
    load()
    return _state["path"]


def unavailable():
    """Why the JIT is not used ("" where it is)."""
    return "" if load() else _state["why"]


def _s(b):
    return b.decode() if b is not None else ""


class _Ctx:
    """A polymma_ctx and a polymma_options for one compile (the library
    wants one ctx per thread)."""

    def __init__(self, lib):
        self.lib = lib
        self.ctx = lib.polymma_ctx_alloc()
        self.opts = lib.polymma_options_alloc()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.lib.polymma_options_free(self.opts)
        self.lib.polymma_ctx_free(self.ctx)

    def diagnostics(self):
        return _s(self.lib.polymma_diagnostics(self.ctx))


def option_pairs(options):
    """The keywords of compile() as polymma_options_set's (key, value),
    in a fixed order (the cache key covers their order): split_k=4 ->
    ("split-k", "4"), True/False -> "on"/"off", defines={"K": 64} ->
    ("define", "K=64"); the command's --split-k 4, -DK=64."""
    pairs = []
    for key in sorted(options):
        value = options[key]
        if key == "defines":
            for name in sorted(value):
                pairs.append(("define", "%s=%d" % (name, int(value[name]))))
            continue
        if value is True:
            value = "on"
        elif value is False:
            value = "off"
        pairs.append((key.replace("_", "-"), str(value)))
    return pairs


def spec_meta(lib, text, filename, defines):
    """The metadata of the nvcc path's --meta (name, symbols, defines,
    tensors) from polymma_spec_parse; (None, diagnostics) on a spec error."""
    with _Ctx(lib) as c:
        spec = _P()
        rc = lib.polymma_spec_parse(c.ctx, text.encode(),
                                    filename.encode(), ctypes.byref(spec))
        if rc != OK:
            return None, c.diagnostics(), rc
        try:
            return _meta_of(lib, spec, defines), "", OK
        finally:
            lib.polymma_spec_free(spec)


def _meta_of(lib, spec, defines):
    syms = [_s(lib.polymma_spec_size_name(spec, i))
            for i in range(lib.polymma_spec_nsizes(spec))]
    tensors = []
    for i in range(lib.polymma_spec_ntensors(spec)):
        dims = []
        for d in range(lib.polymma_spec_tensor_rank(spec, i)):
            lit = ctypes.c_int64()
            s = lib.polymma_spec_tensor_dim(spec, i, d, ctypes.byref(lit))
            dims.append(syms[s] if s >= 0 else int(lit.value))
        tensors.append({
            "name": _s(lib.polymma_spec_tensor_name(spec, i)),
            "type": _s(lib.polymma_spec_tensor_type(spec, i)),
            "output": bool(lib.polymma_spec_tensor_is_output(spec, i)),
            "dims": dims})
    return {"name": _s(lib.polymma_spec_name(spec)), "symbols": syms,
            "defines": {k: int(v) for k, v in defines.items()},
            "tensors": tensors}


class JitError(Exception):
    """polymma_jit_compile's status and diagnostics (turned into the
    module's errors by compile())."""

    def __init__(self, rc, diagnostic, parsed):
        super().__init__(diagnostic)
        self.rc, self.diagnostic = rc, diagnostic
        self.parsed = parsed	# the spec parsed: the refusal came later


def compile_jit(lib, text, filename, options, arch):
    """(meta, polymma_kernel handle); JitError on failure."""
    meta, diag, rc = spec_meta(lib, text, filename,
                               options.get("defines", {}))
    if meta is None:
        raise JitError(rc, diag, False)
    with _Ctx(lib) as c:
        err = _C()
        for key, value in option_pairs(options):
            if lib.polymma_options_set(c.opts, key.encode(), value.encode(),
                                       ctypes.byref(err)) != OK:
                raise JitError(ERR_USAGE, "%s=%s: %s" % (
                    key, value, _s(err.value)), True)
        k = _P()
        rc = lib.polymma_jit_compile(c.ctx, text.encode(), c.opts,
                                     arch.encode() if arch else None,
                                     ctypes.byref(k))
        if rc != OK:
            raise JitError(rc, c.diagnostics(), True)
    return meta, k


class JitKernel:
    """A spec compiled by the library's JIT (backend "jit"): call it with
    its tensors (inputs, then outputs) and optionally stream= and
    workspace= (an object with data_ptr() and nbytes, or (pointer,
    bytes): polymma_kernel_launch_ws; default: the library's own)."""

    backend = "jit"
    jit_refused = None

    def __init__(self, lib, meta, handle, target, errors):
        self._lib, self._k, self.meta = lib, handle, meta
        self.name, self.symbols = meta["name"], meta["symbols"]
        self.tensors = meta["tensors"]
        self.target = target
        self.arch = _s(lib.polymma_kernel_arch(handle))
        self.cached = bool(lib.polymma_kernel_cached(handle))
        self._errors = errors	# (CudaError, stream_of)
        self._launch = lib.polymma_kernel_launch
        self._free = lib.polymma_kernel_free
        self._bind = Binder(meta)

    def __del__(self):
        k, self._k = getattr(self, "_k", None), None
        if k:
            self._free(k)

    def __repr__(self):
        sig = ", ".join("%s %s%s" % (t["type"], t["name"], tuple(t["dims"]))
                        for t in self.tensors)
        return "<polymma.JitKernel %s(%s) %s>" % (self.name, sig, self.arch)

    def _arrays(self, tensors):
        return self._bind(tensors)

    def workspace_size(self, *tensors):
        """Bytes of workspace the plan wants for these tensors' sizes."""
        _, sa = self._arrays(tensors)
        return int(self._lib.polymma_kernel_workspace_size(self._k, sa))

    def __call__(self, *tensors, stream=None, workspace=None):
        pa, sa = self._arrays(tensors)
        cuda_error, stream_of = self._errors
        s = stream_of(tensors, stream) or None
        if workspace is None:
            rc = self._launch(self._k, pa, sa, s)
        else:
            if isinstance(workspace, tuple):
                wp, wn = workspace
            else:
                wp, wn = workspace.data_ptr(), workspace.nbytes
            rc = self._lib.polymma_kernel_launch_ws(
                self._k, pa, sa, ctypes.c_void_p(int(wp) or None), int(wn),
                s)
        if rc == ERR_USAGE:
            raise ValueError("%s: %s" % (self.name, _s(
                self._lib.polymma_kernel_error(self._k))))
        if rc != OK:
            raise cuda_error(None, _s(self._lib.polymma_kernel_error(
                self._k)))
