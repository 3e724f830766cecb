#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *fastsum_sum(PyObject *self, PyObject *args)
{
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O", &seq)) {
        return NULL;
    }
    long total = 0;
    Py_ssize_t n = PySequence_Length(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        total += PyLong_AsLong(PySequence_GetItem(seq, i));
    }
    return PyLong_FromLong(totl);
}

static PyMethodDef methods[] = {
    {"sum", fastsum_sum, METH_VARARGS, "Sum a sequence of integers."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fastsum", NULL, -1, methods};

PyMODINIT_FUNC PyInit_fastsum(void)
{
    return PyModule_Create(&module)
}
