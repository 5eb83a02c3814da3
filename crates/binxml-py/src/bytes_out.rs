//! `convert`'s result written in place: the encoder writes straight into a new Python bytes
//! object, allocated larger than the output is expected to be and then cut to the length
//! written. Made in a vector and copied into the bytes object, the output would pass twice over
//! fresh memory, which on a large document costs as much as a tenth of the conversion.
//!
//! The allocation is reserved, not touched: the system maps its pages as the encoder writes
//! them, and cutting it back returns the rest.

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

unsafe extern "C" {
    // CPython's own, exported by every CPython 3. The limited API (abi3) has no call that changes
    // a bytes object's length, which is what allocating before the length is known needs; the
    // object is new and unshared, the case the call is for.
    fn _PyBytes_Resize(
        bytes: *mut *mut ffi::PyObject,
        newsize: ffi::Py_ssize_t,
    ) -> std::os::raw::c_int;
}

/// A bytes object being filled: `cap` octets allocated, `len` written; what does not fit goes
/// to `spill`, appended when the object is finished.
pub struct BytesOut {
    obj: Py<PyBytes>,
    buf: *mut u8,
    cap: usize,
    len: usize,
    spill: Vec<u8>,
}

// The object is new and reachable only through this value. Its buffer is written without the
// GIL (no Python code can see the object yet); the object itself is touched through the C API
// only in `new` and `finish`, which hold the GIL.
unsafe impl Send for BytesOut {}

impl BytesOut {
    /// A bytes object of `cap` octets to write into, or None when it cannot be allocated (the
    /// caller then writes into a vector).
    pub fn new(py: Python<'_>, cap: usize) -> Option<BytesOut> {
        let size = ffi::Py_ssize_t::try_from(cap).ok()?;
        // SAFETY: a null source asks for an uninitialised buffer of `size` octets.
        let ptr = unsafe { ffi::PyBytes_FromStringAndSize(std::ptr::null(), size) };
        // SAFETY: an owned reference to a new bytes object, or null with an exception set.
        let Some(obj) = (unsafe { Bound::from_owned_ptr_or_opt(py, ptr) }) else {
            // A MemoryError for a large reservation: the vector's way still works.
            let _ = PyErr::take(py);
            return None;
        };
        // SAFETY: `ptr` is a bytes object; its buffer holds `size` octets.
        let buf = unsafe { ffi::PyBytes_AsString(ptr) }.cast::<u8>();
        Some(BytesOut {
            obj: unsafe { obj.downcast_into_unchecked::<PyBytes>() }.unbind(),
            buf,
            cap,
            len: 0,
            spill: Vec::new(),
        })
    }

    /// The bytes object holding exactly what was written.
    pub fn finish(self, py: Python<'_>) -> PyResult<Bound<'_, PyBytes>> {
        let total = self.len + self.spill.len();
        let mut ptr = self.obj.into_ptr();
        let size = ffi::Py_ssize_t::try_from(total)
            .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("output too large"))?;
        // SAFETY: `ptr` is the only reference to a bytes object no one else has seen; on failure
        // the call releases it, sets it to null and raises.
        if unsafe { _PyBytes_Resize(&mut ptr, size) } != 0 {
            return Err(PyErr::fetch(py));
        }
        if !self.spill.is_empty() {
            // SAFETY: the object now holds `total` octets; the first `len` are written.
            unsafe {
                let buf = ffi::PyBytes_AsString(ptr).cast::<u8>();
                std::ptr::copy_nonoverlapping(
                    self.spill.as_ptr(),
                    buf.add(self.len),
                    self.spill.len(),
                );
            }
        }
        // SAFETY: an owned reference to a bytes object.
        Ok(unsafe { Bound::from_owned_ptr(py, ptr).downcast_into_unchecked() })
    }
}

impl std::io::Write for BytesOut {
    #[inline]
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.spill.is_empty() && data.len() <= self.cap - self.len {
            // SAFETY: `len + data.len() <= cap`, inside the object's buffer, which nothing else
            // reads or writes until `finish`.
            unsafe {
                std::ptr::copy_nonoverlapping(data.as_ptr(), self.buf.add(self.len), data.len())
            };
            self.len += data.len();
        } else {
            self.spill.extend_from_slice(data);
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
