// jitvision._fastcall: a CPython binding of the native ops the eager fast path of one plain tensor calls.
//
// Why: calling a torch op from Python (torch.ops.jitvision_native.X.default._op) costs ~2-3.5 us before any work
// (pybind11 overload resolution, the arguments converted to IValues against the schema, a boxed dispatch, the
// result converted back), which is 10-30% of a cheap transform (a 128x128 crop, a flip, an invert of a 512x512
// photo). Here each function reads its Python arguments directly (METH_FASTCALL), calls the op through a typed
// (unboxed) dispatcher handle, and wraps the result: ~0.5 us. The ops themselves stay in the no-Python library
// (jitvision/lib/libjitvision_native.so, loaded first by jitvision._native); this module holds no kernel, only the
// calls, so its results are the ops' results. It is optional: jitvision._native.FAST is None when it is not built
// (or was built for another torch) and the callers then call the ops as before. Eager only: TorchScript, dynamo
// and export see the registered ops.
//
// Each function takes the op's arguments in the schema's order, positionally, and returns what the op returns
// (a tensor, or a list of tensors). bind() looks the ops up (after the library has registered them) and returns
// the names of those it found with the expected signature.

#include <Python.h>

#include <optional>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/Exceptions.h>
#include <torch/csrc/Generator.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/utils/pybind.h>

namespace {

using OptGen = std::optional<at::Generator>;

// The typed handles (the C++ signatures the ops are registered with in jitvision/csrc).
using PointSig = at::Tensor(const at::Tensor&, int64_t, int64_t);
using RandomPointSig = std::vector<at::Tensor>(const at::Tensor&, double, int64_t, int64_t, const OptGen&);
using CropCopySig = at::Tensor(const at::Tensor&, int64_t, int64_t, int64_t, int64_t);
using RandomCropSig = at::Tensor(const at::Tensor&, at::IntArrayRef, OptGen);
using VerticalFlipSig = at::Tensor(const at::Tensor&);
using RandomFlipSig = std::vector<at::Tensor>(const at::Tensor&, double, int64_t, OptGen);
using PermuteChannelsSig = at::Tensor(const at::Tensor&, const at::Tensor&);
using RandomEraseSig = std::vector<at::Tensor>(const at::Tensor&, double, at::ArrayRef<double>, at::ArrayRef<double>,
                                               int64_t, const OptGen&);
using ConstantPadSig = at::Tensor(const at::Tensor&, at::IntArrayRef, const at::Scalar&);

std::optional<c10::TypedOperatorHandle<PointSig>> point_op;
std::optional<c10::TypedOperatorHandle<RandomPointSig>> random_point_op;
std::optional<c10::TypedOperatorHandle<CropCopySig>> crop_copy_op;
std::optional<c10::TypedOperatorHandle<RandomCropSig>> random_crop_op;
std::optional<c10::TypedOperatorHandle<VerticalFlipSig>> vertical_flip_op;
std::optional<c10::TypedOperatorHandle<RandomFlipSig>> random_flip_op;
std::optional<c10::TypedOperatorHandle<RandomEraseSig>> random_erase_op;
std::optional<c10::TypedOperatorHandle<PermuteChannelsSig>> permute_channels_op;
std::optional<c10::TypedOperatorHandle<ConstantPadSig>> constant_pad_op;

template <typename Sig>
bool find(const char* name, std::optional<c10::TypedOperatorHandle<Sig>>& slot) {
  auto handle = c10::Dispatcher::singleton().findSchema({name, ""});
  if (!handle.has_value()) return false;
  try {
    slot.emplace(handle->typed<Sig>());  // throws when the registered kernel has another C++ signature
  } catch (const c10::Error&) {
    return false;
  }
  return true;
}

bool check_args(const char* name, Py_ssize_t nargs, Py_ssize_t low, Py_ssize_t high) {
  if (nargs < low || nargs > high) {
    PyErr_Format(PyExc_TypeError, "jitvision._fastcall.%s: expected %zd to %zd arguments, got %zd", name, low, high,
                 nargs);
    return false;
  }
  return true;
}

bool bound(const char* name, bool ok) {
  if (!ok) PyErr_Format(PyExc_RuntimeError, "jitvision._fastcall.%s: not bound (call bind() first)", name);
  return ok;
}

// The tensor argument: a torch.Tensor (subclasses included, as the ops accept them).
const at::Tensor* tensor_arg(const char* name, PyObject* obj) {
  if (!THPVariable_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "jitvision._fastcall.%s: expected a Tensor, got %s", name, Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  return &THPVariable_Unpack(obj);
}

bool int_arg(PyObject* obj, int64_t* out) {
  if (!PyLong_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "jitvision._fastcall: expected an int, got %s", Py_TYPE(obj)->tp_name);
    return false;
  }
  *out = PyLong_AsLongLong(obj);
  return !(*out == -1 && PyErr_Occurred());
}

// A list or tuple of `low` to `high` ints (`what` names the argument and its length in the error) into `out`; its
// length, or -1 with a Python error set.
Py_ssize_t int_list_arg(const char* name, const char* what, PyObject* obj, Py_ssize_t low, Py_ssize_t high,
                        int64_t* out) {
  const Py_ssize_t n = (PyList_Check(obj) || PyTuple_Check(obj)) ? PySequence_Fast_GET_SIZE(obj) : -1;
  if (n < low || n > high) {
    PyErr_Format(PyExc_TypeError, "jitvision._fastcall.%s: %s", name, what);
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!int_arg(PySequence_Fast_GET_ITEM(obj, i), &out[i])) return -1;
  }
  return n;
}

bool float_arg(PyObject* obj, double* out) {
  *out = PyFloat_AsDouble(obj);  // floats and ints
  return !(*out == -1.0 && PyErr_Occurred());
}

bool generator_arg(PyObject* obj, OptGen* out) {
  if (obj == nullptr || obj == Py_None) return true;
  const int is_generator = THPGenerator_Check(obj);
  if (is_generator < 0) return false;
  if (!is_generator) {
    PyErr_Format(PyExc_TypeError, "jitvision._fastcall: expected a torch.Generator or None, got %s",
                 Py_TYPE(obj)->tp_name);
    return false;
  }
  *out = reinterpret_cast<THPGenerator*>(obj)->cdata;
  return true;
}

PyObject* wrap_list(std::vector<at::Tensor>&& tensors) {
  PyObject* list = PyList_New(static_cast<Py_ssize_t>(tensors.size()));
  if (list == nullptr) return nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    PyObject* item = THPVariable_Wrap(std::move(tensors[i]));
    if (item == nullptr) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i), item);
  }
  return list;
}

PyObject* bind(PyObject* /*self*/, PyObject* /*unused*/) {
  HANDLE_TH_ERRORS
  // The names of the ops found with the expected signature (the functions of the others raise RuntimeError).
  std::vector<const char*> names;
  if (find("jitvision_native::point_u8", point_op)) names.push_back("point_u8");
  if (find("jitvision_native::random_point_u8", random_point_op)) names.push_back("random_point_u8");
  if (find("jitvision_native::crop_copy", crop_copy_op)) names.push_back("crop_copy");
  if (find("jitvision_native::random_crop", random_crop_op)) names.push_back("random_crop");
  if (find("jitvision_native::vertical_flip", vertical_flip_op)) names.push_back("vertical_flip");
  if (find("jitvision_native::random_flip", random_flip_op)) names.push_back("random_flip");
  if (find("jitvision_native::random_erase", random_erase_op)) names.push_back("random_erase");
  if (find("jitvision_native::permute_channels", permute_channels_op)) names.push_back("permute_channels");
  if (find("jitvision_native::constant_pad", constant_pad_op)) names.push_back("constant_pad");
  PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(names.size()));
  if (out == nullptr) return nullptr;
  for (size_t i = 0; i < names.size(); ++i) {
    PyObject* name = PyUnicode_FromString(names[i]);
    if (name == nullptr) {
      Py_DECREF(out);
      return nullptr;
    }
    PyTuple_SET_ITEM(out, static_cast<Py_ssize_t>(i), name);
  }
  return out;
  END_HANDLE_TH_ERRORS
}

// point_u8(image, op, arg) -> Tensor
PyObject* point_u8(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("point_u8", nargs, 3, 3) || !bound("point_u8", point_op.has_value())) return nullptr;
  const at::Tensor* image = tensor_arg("point_u8", args[0]);
  int64_t op = 0, arg = 0;
  if (image == nullptr || !int_arg(args[1], &op) || !int_arg(args[2], &arg)) return nullptr;
  at::Tensor out;
  {
    pybind11::gil_scoped_release no_gil;
    out = point_op->call(*image, op, arg);
  }
  return THPVariable_Wrap(std::move(out));
  END_HANDLE_TH_ERRORS
}

// random_point_u8(image, p, op, arg, generator=None) -> [Tensor] or []
PyObject* random_point_u8(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("random_point_u8", nargs, 4, 5) || !bound("random_point_u8", random_point_op.has_value())) {
    return nullptr;
  }
  const at::Tensor* image = tensor_arg("random_point_u8", args[0]);
  double p = 0;
  int64_t op = 0, arg = 0;
  OptGen generator;
  if (image == nullptr || !float_arg(args[1], &p) || !int_arg(args[2], &op) || !int_arg(args[3], &arg) ||
      !generator_arg(nargs > 4 ? args[4] : nullptr, &generator)) {
    return nullptr;
  }
  std::vector<at::Tensor> out;
  {
    pybind11::gil_scoped_release no_gil;
    out = random_point_op->call(*image, p, op, arg, generator);
  }
  return wrap_list(std::move(out));
  END_HANDLE_TH_ERRORS
}

// crop_copy(image, top, left, height, width) -> Tensor
PyObject* crop_copy(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("crop_copy", nargs, 5, 5) || !bound("crop_copy", crop_copy_op.has_value())) return nullptr;
  const at::Tensor* image = tensor_arg("crop_copy", args[0]);
  int64_t v[4];
  if (image == nullptr) return nullptr;
  for (int i = 0; i < 4; ++i) {
    if (!int_arg(args[i + 1], &v[i])) return nullptr;
  }
  at::Tensor out;
  {
    pybind11::gil_scoped_release no_gil;
    out = crop_copy_op->call(*image, v[0], v[1], v[2], v[3]);
  }
  return THPVariable_Wrap(std::move(out));
  END_HANDLE_TH_ERRORS
}

// random_crop(image, size, generator=None) -> Tensor; size a list or tuple of two ints
PyObject* random_crop(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("random_crop", nargs, 2, 3) || !bound("random_crop", random_crop_op.has_value())) return nullptr;
  const at::Tensor* image = tensor_arg("random_crop", args[0]);
  if (image == nullptr) return nullptr;
  int64_t hw[2];
  if (int_list_arg("random_crop", "size must be a list or tuple of two ints", args[1], 2, 2, hw) < 0) return nullptr;
  OptGen generator;
  if (!generator_arg(nargs > 2 ? args[2] : nullptr, &generator)) return nullptr;
  at::Tensor out;
  {
    pybind11::gil_scoped_release no_gil;
    out = random_crop_op->call(*image, at::IntArrayRef(hw, 2), generator);
  }
  return THPVariable_Wrap(std::move(out));
  END_HANDLE_TH_ERRORS
}

// vertical_flip(image) -> Tensor
PyObject* vertical_flip(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("vertical_flip", nargs, 1, 1) || !bound("vertical_flip", vertical_flip_op.has_value())) {
    return nullptr;
  }
  const at::Tensor* image = tensor_arg("vertical_flip", args[0]);
  if (image == nullptr) return nullptr;
  at::Tensor out;
  {
    pybind11::gil_scoped_release no_gil;
    out = vertical_flip_op->call(*image);
  }
  return THPVariable_Wrap(std::move(out));
  END_HANDLE_TH_ERRORS
}

// random_flip(image, p, dim, generator=None) -> [Tensor] or []
PyObject* random_flip(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("random_flip", nargs, 3, 4) || !bound("random_flip", random_flip_op.has_value())) return nullptr;
  const at::Tensor* image = tensor_arg("random_flip", args[0]);
  double p = 0;
  int64_t dim = 0;
  OptGen generator;
  if (image == nullptr || !float_arg(args[1], &p) || !int_arg(args[2], &dim) ||
      !generator_arg(nargs > 3 ? args[3] : nullptr, &generator)) {
    return nullptr;
  }
  std::vector<at::Tensor> out;
  {
    pybind11::gil_scoped_release no_gil;
    out = random_flip_op->call(*image, p, dim, generator);
  }
  return wrap_list(std::move(out));
  END_HANDLE_TH_ERRORS
}

bool pair_arg(const char* name, PyObject* obj, double* out) {
  if (!(PyList_Check(obj) || PyTuple_Check(obj)) || PySequence_Fast_GET_SIZE(obj) != 2) {
    PyErr_Format(PyExc_TypeError, "jitvision._fastcall.%s: expected a list or tuple of two numbers", name);
    return false;
  }
  for (int i = 0; i < 2; ++i) {
    if (!float_arg(PySequence_Fast_GET_ITEM(obj, i), &out[i])) return false;
  }
  return true;
}

// random_erase(image, p, scale, ratio, fill, generator=None) -> [Tensor] or []
PyObject* random_erase(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("random_erase", nargs, 5, 6) || !bound("random_erase", random_erase_op.has_value())) return nullptr;
  const at::Tensor* image = tensor_arg("random_erase", args[0]);
  double p = 0, scale[2], ratio[2];
  int64_t fill = 0;
  OptGen generator;
  if (image == nullptr || !float_arg(args[1], &p) || !pair_arg("random_erase", args[2], scale) ||
      !pair_arg("random_erase", args[3], ratio) || !int_arg(args[4], &fill) ||
      !generator_arg(nargs > 5 ? args[5] : nullptr, &generator)) {
    return nullptr;
  }
  std::vector<at::Tensor> out;
  {
    pybind11::gil_scoped_release no_gil;
    out = random_erase_op->call(*image, p, at::ArrayRef<double>(scale, 2), at::ArrayRef<double>(ratio, 2), fill,
                                generator);
  }
  return wrap_list(std::move(out));
  END_HANDLE_TH_ERRORS
}

// permute_channels(image, permutation) -> Tensor
PyObject* permute_channels(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("permute_channels", nargs, 2, 2) || !bound("permute_channels", permute_channels_op.has_value())) {
    return nullptr;
  }
  const at::Tensor* image = tensor_arg("permute_channels", args[0]);
  const at::Tensor* permutation = image == nullptr ? nullptr : tensor_arg("permute_channels", args[1]);
  if (permutation == nullptr) return nullptr;
  at::Tensor out;
  {
    pybind11::gil_scoped_release no_gil;
    out = permute_channels_op->call(*image, *permutation);
  }
  return THPVariable_Wrap(std::move(out));
  END_HANDLE_TH_ERRORS
}

// constant_pad(image, pad, value) -> Tensor; pad a list or tuple of ints ([left, right, top, bottom, ...], torch's
// order), value an int, a float or a bool (the Scalar the op converts to the image's dtype)
PyObject* constant_pad(PyObject* /*self*/, PyObject* const* args, Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!check_args("constant_pad", nargs, 3, 3) || !bound("constant_pad", constant_pad_op.has_value())) return nullptr;
  const at::Tensor* image = tensor_arg("constant_pad", args[0]);
  if (image == nullptr) return nullptr;
  int64_t amounts[8];
  const Py_ssize_t n =
      int_list_arg("constant_pad", "pad must be a list or tuple of at most 8 ints", args[1], 0, 8, amounts);
  if (n < 0) return nullptr;
  PyObject* fill = args[2];
  at::Scalar value;
  if (PyBool_Check(fill)) {
    value = at::Scalar(fill == Py_True);
  } else if (PyLong_Check(fill)) {
    const int64_t v = PyLong_AsLongLong(fill);
    if (v == -1 && PyErr_Occurred()) return nullptr;
    value = at::Scalar(v);
  } else if (PyFloat_Check(fill)) {
    value = at::Scalar(PyFloat_AS_DOUBLE(fill));
  } else {
    PyErr_Format(PyExc_TypeError, "jitvision._fastcall.constant_pad: value must be an int, a float or a bool, got %s",
                 Py_TYPE(fill)->tp_name);
    return nullptr;
  }
  at::Tensor out;
  {
    pybind11::gil_scoped_release no_gil;
    out = constant_pad_op->call(*image, at::IntArrayRef(amounts, static_cast<size_t>(n)), value);
  }
  return THPVariable_Wrap(std::move(out));
  END_HANDLE_TH_ERRORS
}

PyMethodDef methods[] = {
    {"bind", bind, METH_NOARGS, "Look the ops up (after the native library is loaded): the names of the bound ones."},
    {"point_u8", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(point_u8)), METH_FASTCALL,
     "jitvision_native::point_u8(image, op, arg)"},
    {"random_point_u8", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(random_point_u8)), METH_FASTCALL,
     "jitvision_native::random_point_u8(image, p, op, arg, generator=None)"},
    {"crop_copy", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(crop_copy)), METH_FASTCALL,
     "jitvision_native::crop_copy(image, top, left, height, width)"},
    {"random_crop", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(random_crop)), METH_FASTCALL,
     "jitvision_native::random_crop(image, size, generator=None)"},
    {"vertical_flip", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(vertical_flip)), METH_FASTCALL,
     "jitvision_native::vertical_flip(image)"},
    {"random_flip", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(random_flip)), METH_FASTCALL,
     "jitvision_native::random_flip(image, p, dim, generator=None)"},
    {"random_erase", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(random_erase)), METH_FASTCALL,
     "jitvision_native::random_erase(image, p, scale, ratio, fill, generator=None)"},
    {"permute_channels", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(permute_channels)),
     METH_FASTCALL, "jitvision_native::permute_channels(image, permutation)"},
    {"constant_pad", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(constant_pad)), METH_FASTCALL,
     "jitvision_native::constant_pad(image, pad, value)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_fastcall",
                          "CPython calls of jitvision's eager native ops (see jitvision/csrc_py/fastcall.cpp).", -1,
                          methods};

}  // namespace

PyMODINIT_FUNC PyInit__fastcall() { return PyModule_Create(&module_def); }
