"""A call's tensors -> NAME_argv's arrays (no CUDA needed: unit-tested).

A tensor is a PyTorch tensor (duck-typed: data_ptr(), dtype, shape,
is_contiguous(), is_cuda), any object with __cuda_array_interface__
(CuPy, Numba, PyTorch) or any DLPack producer (__dlpack__: JAX, ...).
bf16 has no array-interface type string (DLPack has one); fp8 goes
through PyTorch tensors.
"""

import ctypes

from . import _dlpack

# polymma type -> PyTorch dtype name, __cuda_array_interface__ typestrs
_TORCH = {
    "torch.float16": "f16", "torch.bfloat16": "bf16",
    "torch.float32": "f32", "torch.int8": "i8", "torch.int32": "i32",
    "torch.float8_e4m3fn": "f8e4m3", "torch.float8_e5m2": "f8e5m2",
}
_TYPESTR = {"<f2": "f16", "<f4": "f32", "|i1": "i8", "<i1": "i8",
            "<i4": "i32"}
_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4,
          "f8e4m3": 1, "f8e5m2": 1}


def tensor_info(obj):
    """(pointer, shape, polymma type or a description, contiguous, on a
    CUDA device) of obj; TypeError for something that is not a tensor."""
    if hasattr(obj, "data_ptr") and hasattr(obj, "dtype") and \
       hasattr(obj, "is_contiguous"):
        name = str(obj.dtype)
        return (int(obj.data_ptr()), tuple(int(d) for d in obj.shape),
                _TORCH.get(name, name), bool(obj.is_contiguous()),
                bool(getattr(obj, "is_cuda", False)))
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is None and hasattr(obj, "__dlpack__"):
        return _dlpack.tensor_info(obj)
    if cai is None:
        raise TypeError("%s is not a CUDA tensor (no data_ptr(), "
                        "__cuda_array_interface__ nor __dlpack__)" %
                        type(obj).__name__)
    shape = tuple(int(d) for d in cai["shape"])
    ty = _TYPESTR.get(cai["typestr"], cai["typestr"])
    strides = cai.get("strides")
    contiguous = True
    if strides is not None and ty in _BYTES:
        want = _BYTES[ty]
        for d, s in reversed(list(zip(shape, strides))):
            if d != 1 and s != want:
                contiguous = False
            want *= d
    return int(cai["data"][0]), shape, ty, contiguous, True


def _dims(t):
    return "(" + ", ".join(str(d) for d in t["dims"]) + ")"


def bind_arguments(meta, tensors):
    """The pointers (tensors[] of NAME_argv) and the sizes (sizes[], in
    meta["symbols"] order) of a call; TypeError or ValueError naming the
    tensor, the dimension and the size when the call does not fit."""
    want = meta["tensors"]
    if len(tensors) != len(want):
        raise TypeError("%s takes %d tensors (%s), got %d" % (
            meta["name"], len(want), ", ".join(t["name"] for t in want),
            len(tensors)))
    bound, source, ptrs = {}, {}, []
    for name, value in meta.get("defines", {}).items():
        bound[name], source[name] = int(value), "-D%s" % name
    for t, obj in zip(want, tensors):
        ptr, shape, ty, contiguous, cuda = tensor_info(obj)
        if ty != t["type"]:
            raise TypeError("'%s' must be %s, got %s" % (t["name"],
                            t["type"], ty))
        if not cuda:
            raise ValueError("'%s' is not on a CUDA device" % t["name"])
        if len(shape) != len(t["dims"]):
            raise ValueError("'%s' is %s%s, got shape %s" % (
                t["name"], t["type"], _dims(t), shape))
        if not contiguous:
            raise ValueError("'%s' must be contiguous (row-major)" %
                             t["name"])
        for i, (dim, n) in enumerate(zip(t["dims"], shape)):
            if isinstance(dim, int):
                if n != dim:
                    raise ValueError("'%s' dimension %d must be %d, got %d"
                                     % (t["name"], i, dim, n))
            elif dim not in bound:
                bound[dim], source[dim] = n, "'%s'" % t["name"]
            elif bound[dim] != n:
                raise ValueError("'%s' dimension %d is %s = %d, but %s "
                                 "gives %s = %d" % (t["name"], i, dim, n,
                                                    source[dim], dim,
                                                    bound[dim]))
        ptrs.append(ptr)
    missing = [s for s in meta["symbols"] if s not in bound]
    if missing:
        raise ValueError("no tensor gives the size of %s" %
                         ", ".join(missing))
    return ptrs, [bound[s] for s in meta["symbols"]]


def _torch_like(obj):
    return hasattr(obj, "data_ptr") and hasattr(obj, "dtype") and \
        hasattr(obj, "is_contiguous")


class Binder:
    """bind_arguments for one kernel's calls, as ctypes arrays (pointers,
    sizes), with the sizes kept per (type, shape, dtype) of PyTorch-like
    tensors: a call whose tensors match a call already bound checks only
    what the key does not fix (on a CUDA device, contiguous) and takes
    the pointers; anything else (a first call, a mismatch, other tensor
    kinds) goes through bind_arguments and its errors. About 3 us a call
    instead of 20 for four tensors (docs/decisions/0060)."""

    LIMIT = 64

    def __init__(self, meta):
        self.meta = meta
        self.n = len(meta["tensors"])
        self._ptrs = ctypes.c_void_p * max(self.n, 1)
        self._memo = {}

    def __call__(self, tensors):
        """(pointers, sizes): ctypes arrays for NAME_argv and
        polymma_kernel_launch."""
        if len(tensors) == self.n:
            try:
                sa = self._memo.get(tuple([(type(t), t.shape, t.dtype)
                                           for t in tensors]))
                if sa is not None and all([t.is_cuda and t.is_contiguous()
                                           for t in tensors]):
                    return self._ptrs(*[t.data_ptr() for t in tensors]), sa
            except (AttributeError, TypeError):
                pass
        ptrs, sizes = bind_arguments(self.meta, tensors)
        sa = (ctypes.c_int64 * max(len(sizes), 1))(*sizes)
        if all([_torch_like(t) for t in tensors]):
            try:
                key = tuple([(type(t), t.shape, t.dtype) for t in tensors])
            except TypeError:
                key = None
            if key is not None:
                if len(self._memo) >= self.LIMIT:
                    self._memo.clear()
                self._memo[key] = sa
        return self._ptrs(*ptrs), sa
