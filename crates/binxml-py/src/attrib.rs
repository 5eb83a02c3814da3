//! `Element.attrib`: a live mapping over an element's attributes in the tree (ElementTree's
//! `attrib` is the element's own dict, so that changing it changes the element; this is the
//! same contract over the arena). Keys are `{namespace}local` names, as everywhere in the API.

use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::tree::{Element, attribute_items, remove_attr, set_attr, split_clark};

/// The attributes of one element, as a mutable mapping whose changes are the element's.
#[pyclass(module = "binxml", name = "Attrib")]
pub struct Attrib {
    element: Py<Element>,
}

impl Attrib {
    pub(crate) fn new(element: Py<Element>) -> Self {
        Attrib { element }
    }

    fn items_of(&self, py: Python<'_>) -> Vec<(String, String)> {
        attribute_items(&self.element.borrow(py))
    }

    fn lookup(&self, py: Python<'_>, key: &str) -> PyResult<Option<String>> {
        let (ns, local) = split_clark(key)?;
        Ok(self.element.borrow(py).attribute(&ns, &local))
    }

    fn set(&self, py: Python<'_>, key: &str, value: String) -> PyResult<()> {
        set_attr(&self.element.borrow(py), key, value)
    }

    fn remove(&self, py: Python<'_>, key: &str) -> PyResult<bool> {
        remove_attr(&self.element.borrow(py), key)
    }

    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in self.items_of(py) {
            d.set_item(k, v)?;
        }
        Ok(d)
    }
}

fn key_error(key: &str) -> PyErr {
    PyKeyError::new_err(key.to_string())
}

#[pymethods]
impl Attrib {
    fn __getitem__(&self, py: Python<'_>, key: &str) -> PyResult<String> {
        self.lookup(py, key)?.ok_or_else(|| key_error(key))
    }

    fn __setitem__(&self, py: Python<'_>, key: &str, value: String) -> PyResult<()> {
        self.set(py, key, value)
    }

    fn __delitem__(&self, py: Python<'_>, key: &str) -> PyResult<()> {
        if self.remove(py, key)? {
            Ok(())
        } else {
            Err(key_error(key))
        }
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        match key.downcast::<PyString>() {
            Ok(k) => Ok(self.lookup(py, &k.to_cow()?)?.is_some()),
            Err(_) => Ok(false),
        }
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.element.borrow(py).attribute_count()
    }

    /// The names as they are now (changing the mapping while iterating does not disturb it).
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.keys(py)
            .into_pyobject(py)?
            .try_iter()
            .map(Bound::into_any)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let other = if let Ok(a) = other.downcast::<Attrib>() {
            a.borrow().as_dict(py)?.into_any()
        } else {
            other.clone()
        };
        self.as_dict(py)?.eq(other)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(self.as_dict(py)?.repr()?.to_string())
    }

    /// The attribute names.
    fn keys(&self, py: Python<'_>) -> Vec<String> {
        self.items_of(py).into_iter().map(|(k, _)| k).collect()
    }

    /// The attribute values.
    fn values(&self, py: Python<'_>) -> Vec<String> {
        self.items_of(py).into_iter().map(|(_, v)| v).collect()
    }

    /// The (name, value) pairs.
    fn items(&self, py: Python<'_>) -> Vec<(String, String)> {
        self.items_of(py)
    }

    /// A value, or `default`.
    #[pyo3(signature = (key, default=None))]
    fn get(&self, py: Python<'_>, key: &str, default: Option<PyObject>) -> PyResult<PyObject> {
        Ok(match self.lookup(py, key)? {
            Some(v) => PyString::new(py, &v).into_any().unbind(),
            None => default.unwrap_or_else(|| py.None()),
        })
    }

    /// Removes an attribute and returns its value (or `default`; KeyError without one).
    #[pyo3(signature = (key, *default))]
    fn pop(&self, py: Python<'_>, key: &str, default: Vec<PyObject>) -> PyResult<PyObject> {
        if default.len() > 1 {
            return Err(PyTypeError::new_err("pop expected at most 2 arguments"));
        }
        match self.lookup(py, key)? {
            Some(v) => {
                self.remove(py, key)?;
                Ok(PyString::new(py, &v).into_any().unbind())
            }
            None => default.into_iter().next().ok_or_else(|| key_error(key)),
        }
    }

    /// The value of `key`, set to `default` first when absent.
    fn setdefault(&self, py: Python<'_>, key: &str, default: String) -> PyResult<String> {
        if let Some(v) = self.lookup(py, key)? {
            return Ok(v);
        }
        self.set(py, key, default.clone())?;
        Ok(default)
    }

    /// Sets every pair of a mapping (or of an iterable of pairs) and of the keyword arguments.
    #[pyo3(signature = (other=None, **extra))]
    fn update(
        &self,
        py: Python<'_>,
        other: Option<&Bound<'_, PyAny>>,
        extra: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        if let Some(o) = other {
            let pairs = if o.hasattr("keys")? {
                let d = PyDict::new(py);
                for k in o.call_method0("keys")?.try_iter()? {
                    let k = k?;
                    d.set_item(&k, o.get_item(&k)?)?;
                }
                d.items().into_any()
            } else {
                PyList::new(py, o.try_iter()?.collect::<PyResult<Vec<_>>>()?)?.into_any()
            };
            for pair in pairs.try_iter()? {
                let (k, v): (String, String) = pair?.extract()?;
                self.set(py, &k, v)?;
            }
        }
        if let Some(e) = extra {
            for (k, v) in e.iter() {
                self.set(py, &k.extract::<String>()?, v.extract()?)?;
            }
        }
        Ok(())
    }

    /// Removes every attribute.
    fn clear(&self, py: Python<'_>) -> PyResult<()> {
        for k in self.keys(py) {
            self.remove(py, &k)?;
        }
        Ok(())
    }

    /// A plain dict of the attributes as they are now.
    fn copy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.as_dict(py)
    }
}
