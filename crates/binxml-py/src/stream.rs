//! Incremental decoding for `iterparse` and `events`: a pull decoder over the input, handing
//! Python its events in batches, each batch decoded with the GIL released.
//!
//! A document in a regular file (a path, or a Python file object over one, from its current
//! position) is never copied. XML is read from the file as it is decoded (`binxml::xml_reader`:
//! a bounded window of the document), by positioned reads that need no GIL. A binary format is
//! memory-mapped rather than read, and the pages the decoder has gone past are given back to
//! the kernel (`madvise(MADV_DONTNEED)`; the mapping is private and read-only, so a page
//! touched again is read from the file again): resident memory stays a window over the input
//! however large the file, while the decoders keep their plain `&[u8]` input.
//!
//! From any other Python file object (a pipe, a socket, a decompressing reader), XML and Fast
//! Infoset are read as they are decoded: their codecs have reader decoders (`XmlReadDecoder`,
//! `FiReadDecoder`). The other formats' decoders (EXI, TSF, Xebu, JSON, ASN.1) decode from
//! their whole input as one slice, so the object is first copied into an unlinked temporary
//! file, which is then mapped as above (docs/python.md says why per format). A mapped TSF
//! document is checked to be UTF-8 here, in pieces given back as they are checked, rather than
//! by its decoder, which would have the whole file resident at once.

use std::borrow::Cow;
use std::io::Read;

use binxml::{DecodeOptions, Decoder, Event, Format};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::{err, resolve};

/// What the input bytes live in.
pub(crate) enum Input {
    /// A mapping of `len` bytes at `ptr`; the document starts `skip` bytes in (a mapping starts
    /// on a page boundary, a document read from a file object's position need not).
    Map {
        ptr: *mut libc::c_void,
        len: usize,
        skip: usize,
    },
    /// The bytes object the decoder borrows from (none where it reads a file itself).
    Bytes(#[allow(dead_code)] Option<Py<PyBytes>>),
}

impl Drop for Input {
    fn drop(&mut self) {
        if let Input::Map { ptr, len, .. } = *self
            && len > 0
        {
            // SAFETY: the mapping was made by `map` with this address and length, and the
            // decoder that borrowed it has been dropped already (field order of EventStream).
            unsafe { libc::munmap(ptr, len) };
        }
    }
}

/// A whole file mapped read-only: the mapping (unmapped when dropped) and its bytes, which must
/// not be used after it is dropped.
pub(crate) fn map(file: &std::fs::File) -> std::io::Result<(Input, &'static [u8])> {
    map_from(file, 0)
}

/// The file from byte `from` to its end, mapped read-only, as [`map`].
fn map_from(file: &std::fs::File, from: u64) -> std::io::Result<(Input, &'static [u8])> {
    use std::os::fd::AsRawFd;
    let size = file.metadata()?.len();
    if from >= size {
        return Ok((
            Input::Map {
                ptr: std::ptr::null_mut(),
                len: 0,
                skip: 0,
            },
            &[],
        ));
    }
    // SAFETY: sysconf has no preconditions.
    let page = (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).max(4096) as u64;
    let start = from / page * page;
    let skip = (from - start) as usize;
    let len = usize::try_from(size - start)
        .map_err(|_| std::io::Error::other("the file is too large to map"))?;
    // SAFETY: a private read-only mapping of a regular file from a page boundary to its end;
    // the slice made from it lives as long as the EventStream, which unmaps only after
    // dropping its decoder. (Another process truncating the file meanwhile would make reading
    // it fault: the usual caveat of mapping files, accepted for reading documents.)
    unsafe {
        let ptr = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            start as libc::off_t,
        );
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        libc::madvise(ptr, len, libc::MADV_SEQUENTIAL);
        Ok((
            Input::Map { ptr, len, skip },
            std::slice::from_raw_parts((ptr as *const u8).add(skip), len - skip),
        ))
    }
}

/// An event, owned, to cross from the decoding thread to Python.
enum Owned {
    Start(String, String, String),
    Ns(String, String),
    Attr(String, String, String, String),
    Text(String),
    Comment(String),
    Pi(String, String),
    End,
}

/// The decoder: over the input in memory (or mapped), or XML read from a file as it goes.
enum Source {
    Any(Box<binxml::AnyDecoder<'static>>),
    Xml(Box<binxml::xml::XmlReadDecoder<Box<dyn Read>>>),
    Fi(Box<binxml::fi::FiReadDecoder<Box<dyn Read>>>),
    Tsf(Box<binxml::tsf::TsfDecoder<'static>>),
}

/// A Python file object (anything with `read(n)` giving bytes) as a `Read`. Called while the
/// GIL is released (the decoder runs without it): each read takes the GIL back for the call.
struct PyReader(Py<PyAny>);

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        Python::with_gil(|py| {
            let data = self
                .0
                .bind(py)
                .call_method1("read", (buf.len(),))
                .map_err(std::io::Error::other)?;
            let owned: Vec<u8>;
            let bytes: &[u8] = if let Ok(b) = data.downcast::<PyBytes>() {
                b.as_bytes()
            } else if let Ok(v) = data.extract::<Vec<u8>>() {
                // A bytearray, or another sequence of bytes.
                owned = v;
                &owned
            } else {
                return Err(std::io::Error::other(format!(
                    "read() returned {}, not bytes",
                    data.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                )));
            };
            // A file object may give more than asked for: what does not fit is an error
            // rather than lost.
            if bytes.len() > buf.len() {
                return Err(std::io::Error::other("read(n) returned more than n bytes"));
            }
            buf[..bytes.len()].copy_from_slice(bytes);
            Ok(bytes.len())
        })
    }
}

impl Source {
    fn next_event(&mut self) -> binxml::Result<Option<Event<'static>>> {
        match self {
            Source::Any(d) => d.next_event(),
            Source::Xml(d) => d.next_event(),
            Source::Fi(d) => d.next_event(),
            Source::Tsf(d) => d.next_event(),
        }
    }

    fn offset(&self) -> u64 {
        match self {
            Source::Any(d) => d.offset(),
            Source::Xml(d) => d.offset(),
            Source::Fi(d) => d.offset(),
            Source::Tsf(d) => d.offset(),
        }
    }
}

/// A document's events, decoded as they are asked for.
#[pyclass(unsendable, module = "binxml._binxml")]
pub struct EventStream {
    // Declared before `input`, so dropped before it: it borrows from it.
    dec: Option<Source>,
    input: Input,
    /// Bytes from the start of the input already given back to the kernel.
    released: usize,
    /// Batches handed out so far.
    batches: u64,
}

/// Pages more than this far behind the decoder are given back (the decoders look back a little:
/// an XML name or text run being read, a binary format's current item).
const KEEP_BEHIND: usize = 4 << 20;

impl EventStream {
    /// Gives back every page past `from`: some decoders look at the whole input when they start
    /// (the XML decoder checks its encoding), which would leave all of a file resident.
    fn release_ahead(&mut self, from: usize) {
        let Input::Map { ptr, len, skip } = self.input else {
            return;
        };
        let page = 1 << 16;
        let from = (from + skip).div_ceil(page) * page;
        if from < len {
            // SAFETY: as in release_behind.
            unsafe {
                libc::madvise(
                    (ptr as *mut u8).add(from) as *mut libc::c_void,
                    len - from,
                    libc::MADV_DONTNEED,
                )
            };
        }
    }

    fn release_behind(&mut self, offset: usize) {
        let Input::Map { ptr, len, skip } = self.input else {
            return;
        };
        let page = 1 << 16;
        let upto = (offset + skip).saturating_sub(KEEP_BEHIND) / page * page;
        if upto > self.released + (8 << 20) && upto <= len {
            // SAFETY: a range inside the mapping; the mapping is private and read-only, so
            // dropping its pages loses nothing: touching them again reads the file again.
            unsafe {
                libc::madvise(
                    (ptr as *mut u8).add(self.released) as *mut libc::c_void,
                    upto - self.released,
                    libc::MADV_DONTNEED,
                )
            };
            self.released = upto;
        }
    }
}

/// The decoder, lent to the closure that runs while the GIL is released. Some decoders hold
/// `Rc`s (the XML decoder's DTD), so they are not `Send`, which `allow_threads` asks for; but
/// the closure runs on this very thread, and the stream is `unsendable` (PyO3 refuses it to any
/// other thread), so nothing else can reach the decoder or its `Rc`s meanwhile.
struct OnThisThread<'d>(&'d mut Source);

// SAFETY: see above: the value never leaves the thread that owns the stream.
unsafe impl Send for OnThisThread<'_> {}

/// The string as Python will take it: moved when the decoder owns it, copied when it borrows
/// it from the input.
fn s(c: Cow<'_, str>) -> String {
    c.into_owned()
}

#[pymethods]
impl EventStream {
    /// Up to `n` events as tuples: `("start", namespace, local, prefix)`, `("ns", prefix,
    /// uri)`, `("attr", namespace, local, prefix, value)`, `("text", text)`, `("comment",
    /// text)`, `("pi", target, data)`, `("end",)`; an empty list at the end of the document.
    fn next_batch<'py>(&mut self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyList>> {
        let Some(dec) = self.dec.as_mut() else {
            return Ok(PyList::empty(py));
        };
        let mut batch: Vec<Owned> = Vec::with_capacity(n);
        let mut done = false;
        let dec = OnThisThread(dec);
        let res = py.allow_threads(|| -> binxml::Result<u64> {
            let dec = dec;
            let dec = dec.0;
            while batch.len() < n {
                let Some(ev) = dec.next_event()? else {
                    done = true;
                    break;
                };
                batch.push(match ev {
                    Event::StartElement(q) => Owned::Start(s(q.namespace), s(q.local), s(q.prefix)),
                    Event::Namespace { prefix, uri } => Owned::Ns(s(prefix), s(uri)),
                    Event::Attribute { name, value } => {
                        Owned::Attr(s(name.namespace), s(name.local), s(name.prefix), s(value))
                    }
                    Event::Characters { text, .. } => Owned::Text(s(text)),
                    Event::Typed(t) => Owned::Text(t.lexical()),
                    Event::Comment(c) => Owned::Comment(s(c)),
                    Event::ProcessingInstruction { target, data } => Owned::Pi(s(target), s(data)),
                    Event::EndElement => Owned::End,
                    _ => continue,
                });
            }
            Ok(dec.offset())
        });
        let offset = match res {
            Ok(o) => o,
            Err(e) => {
                self.dec = None;
                return Err(err(e));
            }
        };
        if done {
            self.dec = None;
        } else {
            if self.batches == 0 {
                self.release_ahead(offset as usize + KEEP_BEHIND);
            }
            self.release_behind(offset as usize);
        }
        self.batches += 1;
        let list = PyList::empty(py);
        for ev in batch {
            let t: Bound<'py, PyTuple> = match ev {
                Owned::Start(ns, l, p) => ("start", ns, l, p).into_pyobject(py)?,
                Owned::Ns(p, u) => ("ns", p, u).into_pyobject(py)?,
                Owned::Attr(ns, l, p, v) => ("attr", ns, l, p, v).into_pyobject(py)?,
                Owned::Text(t) => ("text", t).into_pyobject(py)?,
                Owned::Comment(c) => ("comment", c).into_pyobject(py)?,
                Owned::Pi(t, d) => ("pi", t, d).into_pyobject(py)?,
                Owned::End => PyTuple::new(py, ["end"])?,
            };
            list.append(t)?;
        }
        Ok(list)
    }
}

fn start(input: Input, bytes: &'static [u8], format: Option<&str>) -> PyResult<EventStream> {
    let from = resolve(bytes, format)?;
    let opts = DecodeOptions::default();
    let mapped = matches!(input, Input::Map { .. });
    let mut s = EventStream {
        dec: None,
        input,
        released: 0,
        batches: 0,
    };
    if from == Format::Tsf && mapped {
        // The TSF decoder checks its whole input is UTF-8 before the first unit: done here in
        // pieces, each given back to the kernel once checked, so that a large file is never
        // resident whole.
        let text = s.checked_utf8(bytes)?;
        let tsf = binxml::tsf::TsfOptions::default()
            .with_limits(opts.limits.clone())
            .with_utf16_lengths(opts.tsf_utf16_lengths);
        s.dec = Some(Source::Tsf(Box::new(binxml::tsf::TsfDecoder::from_text(
            text, tsf,
        ))));
    } else {
        let dec = binxml::AnyDecoder::new(from, bytes, &opts).map_err(err)?;
        s.dec = Some(Source::Any(Box::new(dec)));
    }
    s.release_ahead(KEEP_BEHIND);
    Ok(s)
}

impl EventStream {
    /// `bytes` as text, checked to be UTF-8 a piece at a time, the pages behind the check
    /// given back as it goes.
    fn checked_utf8(&mut self, bytes: &'static [u8]) -> PyResult<&'static str> {
        const PIECE: usize = 4 << 20;
        let mut pos = 0;
        while pos < bytes.len() {
            let end = (pos + PIECE).min(bytes.len());
            match std::str::from_utf8(&bytes[pos..end]) {
                Ok(_) => pos = end,
                // A character cut by the end of the piece: checked with the next one.
                Err(e) if e.error_len().is_none() && end < bytes.len() && e.valid_up_to() > 0 => {
                    pos += e.valid_up_to()
                }
                Err(e) => {
                    return Err(err(binxml::Error::malformed(
                        Format::Tsf,
                        (pos + e.valid_up_to()) as u64,
                        "invalid UTF-8",
                    )));
                }
            }
            self.release_behind(pos);
        }
        // The decoder starts again from the start: pages are released from there again.
        self.released = 0;
        // SAFETY: every byte was checked to be UTF-8 above, in pieces cut only between
        // characters.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    }
}

/// Events of a file, decoded as they are asked for (XML read as it goes, a binary format
/// mapped).
#[pyfunction]
#[pyo3(signature = (path, format=None))]
pub fn stream_file(path: std::path::PathBuf, format: Option<&str>) -> PyResult<EventStream> {
    stream_regular(std::fs::File::open(&path)?, 0, format)
}

/// Events of the regular file a Python file object reads (its descriptor `fd`), from byte
/// `offset` (the object's position) on, as [`stream_file`]: the descriptor is duplicated and
/// read by position or mapped, so neither the object's position nor the GIL is involved.
#[pyfunction]
#[pyo3(signature = (fd, offset, format=None))]
pub fn stream_fd(fd: i32, offset: u64, format: Option<&str>) -> PyResult<EventStream> {
    use std::os::fd::BorrowedFd;
    if fd < 0 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "not a file descriptor",
        ));
    }
    // SAFETY: the descriptor is open (the caller's file object holds it) for this call, in
    // which it is only duplicated; the stream keeps the duplicate.
    let file = std::fs::File::from(unsafe { BorrowedFd::borrow_raw(fd) }.try_clone_to_owned()?);
    if !file.metadata()?.is_file() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "not a regular file",
        ));
    }
    stream_regular(file, offset, format)
}

/// A file read from a position on by positioned reads (`pread`): the file's offset, which a
/// Python file object may share through a duplicated descriptor, is left alone.
struct ReadAt {
    file: std::fs::File,
    pos: u64,
}

impl Read for ReadAt {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// A regular file from `offset` on: XML read as it is decoded, any other format mapped.
fn stream_regular(file: std::fs::File, offset: u64, format: Option<&str>) -> PyResult<EventStream> {
    let mut input = ReadAt { file, pos: offset };
    let from = match format {
        Some(_) => resolve(&[], format)?,
        None => {
            let mut head = Vec::with_capacity(4096);
            (&mut input).take(4096).read_to_end(&mut head)?;
            input.pos = offset;
            resolve(&head, None)?
        }
    };
    if from != Format::Xml {
        let (input, bytes) = map_from(&input.file, offset)?;
        return start(input, bytes, Some(from.name()));
    }
    let dec = binxml::xml_reader(Box::new(input) as Box<dyn Read>, &DecodeOptions::default());
    Ok(EventStream {
        dec: Some(Source::Xml(Box::new(dec))),
        input: Input::Bytes(None),
        released: 0,
        batches: 0,
    })
}

/// Events of a document read from a Python file object that is not over a regular file (those
/// go to [`stream_fd`]). XML and Fast Infoset are read as they are decoded (their decoders take
/// any reader). The other formats' decoders decode from their whole input as one slice: the
/// file object is copied into an unlinked temporary file, which is mapped as a file on disk
/// is, so that resident memory stays a window over the document.
#[pyfunction]
#[pyo3(signature = (source, format=None))]
pub fn stream_reader(source: Py<PyAny>, format: Option<&str>) -> PyResult<EventStream> {
    let mut reader = PyReader(source);
    let mut head = Vec::with_capacity(4096);
    (&mut reader).take(4096).read_to_end(&mut head)?;
    let from = resolve(&head, format)?;
    let input: Box<dyn Read> = Box::new(std::io::Cursor::new(head).chain(reader));
    let opts = DecodeOptions::default();
    let dec = match from {
        Format::Xml => Source::Xml(Box::new(binxml::xml_reader(input, &opts))),
        Format::Fi => Source::Fi(Box::new(binxml::fi::FiReadDecoder::with_limits(
            input,
            opts.limits.clone(),
        ))),
        _ => {
            // With the GIL held: every read of the file object needs it.
            let file = spool(input)?;
            let (input, bytes) = map(&file)?;
            return start(input, bytes, Some(from.name()));
        }
    };
    Ok(EventStream {
        dec: Some(dec),
        input: Input::Bytes(None),
        released: 0,
        batches: 0,
    })
}

/// Copies a reader into a new temporary file, already unlinked (it goes when its last handle
/// or mapping does).
fn spool(mut input: Box<dyn Read>) -> std::io::Result<std::fs::File> {
    let dir = std::env::temp_dir();
    let mut n = 0u32;
    let (mut file, path) = loop {
        let path = dir.join(format!("binxml-{}-{n}.spool", std::process::id()));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => break (f, path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(e) => return Err(e),
        }
    };
    std::fs::remove_file(&path)?;
    std::io::copy(&mut input, &mut file)?;
    Ok(file)
}

/// Events of a document in memory, decoded as they are asked for.
#[pyfunction]
#[pyo3(signature = (data, format=None))]
pub fn stream_bytes(data: Bound<'_, PyBytes>, format: Option<&str>) -> PyResult<EventStream> {
    let b = data.as_bytes();
    // SAFETY: a bytes object is immutable and lives as long as the stream keeps it (in
    // `input`, dropped after the decoder).
    let bytes: &'static [u8] = unsafe { std::slice::from_raw_parts(b.as_ptr(), b.len()) };
    start(Input::Bytes(Some(data.clone().unbind())), bytes, format)
}
