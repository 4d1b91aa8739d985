"""A spec as a PyTorch operator (docs/decisions/0043-python-jit.md).

    import polymma.torch
    gbr = polymma.torch.op("examples/gemm_bias_relu.tc")
    C = gbr(A, B, bias)                 # torch.ops.polymma.gemm_bias_relu
    torch.compile(lambda a, b, c: gbr(a, b, c))(A, B, bias)

op() compiles the spec (polymma.compile: the JIT where libpolymma.so is
found) and registers the operator "polymma::NAME" (NAME: the spec's def
name, or name=; torch.library.Library's define and impl on CUDA): its inputs are the spec's inputs, its results
the spec's outputs, allocated with the sizes the inputs' shapes bind (and
-D defines). The kernel runs on torch.cuda.current_stream(); a split
plan's workspace is the stream's kept one, and in a CUDA graph capture
the launch's own (allocated and freed in the capture: the graph owns it;
docs/decisions/0060). A fake implementation (register_fake) returns
empty results of the right shapes and types: torch.compile traces through
the operator, and the operator's call is captured in a CUDA graph like any
other kernel. PyTorch is imported when op() is called.
"""

import threading

import polymma as _pm

# polymma type -> torch dtype attribute
_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
           "i8": "int8", "i32": "int32", "f8e4m3": "float8_e4m3fn",
           "f8e5m2": "float8_e5m2"}

_lock = threading.Lock()
_ops = {}	# "polymma::NAME" -> (key, operator)
_libs = {}	# namespace -> its torch.library.Library


def output_shapes(meta, shapes):
    """The outputs' shapes from the inputs' shapes (in the spec's order)
    and the meta's defines; ValueError naming what no input gives."""
    bound = dict(meta.get("defines", {}))
    ins = [t for t in meta["tensors"] if not t["output"]]
    if len(shapes) != len(ins):
        raise TypeError("%s takes %d inputs (%s), got %d" % (
            meta["name"], len(ins), ", ".join(t["name"] for t in ins),
            len(shapes)))
    for t, shape in zip(ins, shapes):
        if len(shape) != len(t["dims"]):
            raise ValueError("'%s' is %s%s, got shape %s" % (
                t["name"], t["type"], tuple(t["dims"]), tuple(shape)))
        for d, n in zip(t["dims"], shape):
            if isinstance(d, str):
                bound.setdefault(d, n)
    out = []
    for t in meta["tensors"]:
        if not t["output"]:
            continue
        missing = [d for d in t["dims"] if isinstance(d, str) and
                   d not in bound]
        if missing:
            raise ValueError("no input gives the size %s of output '%s'" %
                             (", ".join(missing), t["name"]))
        out.append([bound[d] if isinstance(d, str) else d
                    for d in t["dims"]])
    return out


def schema(meta):
    """The operator's schema: "(Tensor A, Tensor B) -> Tensor"."""
    ins = ["Tensor %s" % t["name"] for t in meta["tensors"]
           if not t["output"]]
    n = sum(1 for t in meta["tensors"] if t["output"])
    res = "Tensor" if n == 1 else "(" + ", ".join(["Tensor"] * n) + ")"
    return "(%s) -> %s" % (", ".join(ins), res)


def op(spec, target=None, name=None, **options):
    """Register (once) and return the operator torch.ops.polymma.NAME of
    spec (a path or its text) compiled with options (those of
    polymma.compile). The same name for another spec or other options is
    a ValueError: pass name=."""
    import torch

    k = _pm.compile(spec, target, **options)
    meta = k.meta
    output_shapes(meta, [[1] * len(t["dims"]) for t in meta["tensors"]
                         if not t["output"]])	# every size from an input
    qual = "polymma::" + (name or meta["name"])
    key = (repr(meta), k.target, repr(sorted(options.items())),
           getattr(k, "arch", None))
    with _lock:
        if qual in _ops:
            if _ops[qual][0] != key:
                raise ValueError("%s is registered for another spec or "
                                 "other options: pass name=" % qual)
            return _ops[qual][1]
        oper = _register(torch, k, qual)
        _ops[qual] = (key, oper)
    return oper


def _register(torch, k, qual):
    meta = k.meta
    outs = [t for t in meta["tensors"] if t["output"]]
    dtypes = [getattr(torch, _DTYPES[t["type"]]) for t in outs]
    single = len(outs) == 1

    def results(inputs, fake):
        shapes = output_shapes(meta, [tuple(x.shape) for x in inputs])
        x = inputs[0]
        if fake:
            return [x.new_empty(s, dtype=dt) for s, dt in zip(shapes, dtypes)]
        return [torch.empty(s, dtype=dt, device=x.device)
                for s, dt in zip(shapes, dtypes)]

    shapes_of = {}	# the inputs' shapes -> the outputs'

    def impl(*inputs):
        dev = inputs[0].device
        if dev.index is not None and dev.index != torch.cuda.current_device():
            with torch.cuda.device(dev):	# the launch's context
                return impl(*inputs)
        inputs = [x.contiguous() for x in inputs]
        key = tuple([x.shape for x in inputs])
        shapes = shapes_of.get(key)
        if shapes is None:
            shapes = output_shapes(meta, [tuple(x.shape) for x in inputs])
            if len(shapes_of) >= 64:
                shapes_of.clear()
            shapes_of[key] = shapes
        res = [torch.empty(sh, dtype=dt, device=dev)
               for sh, dt in zip(shapes, dtypes)]
        # the current stream; a split plan's workspace is the stream's
        # kept one, or in a CUDA graph capture the launch's own (graph
        # nodes: docs/decisions/0060)
        k(*inputs, *res)
        return res[0] if single else tuple(res)

    def fake(*inputs):
        res = results(inputs, True)
        return res[0] if single else tuple(res)

    # torch.library.Library's define and impl: the dispatcher calls impl
    # directly (custom_op's wrapper cost ~12 us more a call; decision
    # 0060); the Library objects live as long as the module (their
    # registrations end with them)
    ns, name = qual.split("::")
    lib = _libs.get(ns)
    if lib is None:
        lib = _libs[ns] = torch.library.Library(ns, "FRAGMENT")
    lib.define(name + schema(meta))
    lib.impl(name, impl, "CUDA")
    torch.library.register_fake(qual, fake, lib=lib)
    oper = getattr(getattr(torch.ops, ns), name)
    oper.kernel = k
    return oper
