"""Tensors through DLPack (`__dlpack__`): JAX, CuPy, PyTorch and any other
producer of the protocol. Reads the DLManagedTensor of the capsule with
ctypes (no CUDA needed: unit-tested with capsules made here).

The capsule is not consumed: it is dropped after its fields are read and
its destructor calls the producer's deleter; the memory stays the
producer object's, which the caller holds for the call. `__dlpack__` is
called without a stream: the producer orders its pending work before the
legacy default stream, as the protocol says for stream None.
"""

import ctypes

# DLDeviceType: CUDA memory, CUDA managed memory
_CUDA_DEVICES = (2, 13)
# (DLDataTypeCode, bits) -> polymma type: kDLInt 0, kDLFloat 2, kDLBfloat 4
_TYPES = {(2, 16): "f16", (2, 32): "f32", (4, 16): "bf16", (0, 8): "i8",
          (0, 32): "i32"}
_CODES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex",
          6: "bool"}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def type_name(code, bits, lanes):
    """polymma's name of a DLPack element type, or a description."""
    if lanes == 1 and (code, bits) in _TYPES:
        return _TYPES[(code, bits)]
    return "DLPack %s%d%s" % (_CODES.get(code, "code %d " % code), bits,
                              "x%d" % lanes if lanes != 1 else "")


def tensor_info(obj):
    """(pointer, shape, polymma type or a description, contiguous, on a
    CUDA device) of obj's DLPack capsule; TypeError where obj's
    __dlpack__ does not give one."""
    try:
        cap = obj.__dlpack__()
    except Exception as e:  # the producer's refusal, whatever its class
        raise TypeError("%s.__dlpack__() failed: %s" % (
            type(obj).__name__, e)) from e
    if not _api.PyCapsule_IsValid(cap, b"dltensor"):
        raise TypeError("%s.__dlpack__() did not return a DLPack capsule "
                        "named 'dltensor'" % type(obj).__name__)
    m = DLManagedTensor.from_address(_api.PyCapsule_GetPointer(
        cap, b"dltensor"))
    t = m.dl_tensor
    shape = tuple(int(t.shape[i]) for i in range(t.ndim))
    contiguous = True
    if t.strides:
        want = 1
        for i in reversed(range(t.ndim)):
            if shape[i] != 1 and int(t.strides[i]) != want:
                contiguous = False
            want *= shape[i]
    ptr = (t.data or 0) + int(t.byte_offset)
    info = (ptr, shape, type_name(t.dtype.code, t.dtype.bits,
                                  t.dtype.lanes), contiguous,
            t.device.device_type in _CUDA_DEVICES)
    del m, t
    return info

