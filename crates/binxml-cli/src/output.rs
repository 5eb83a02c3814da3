//! Where output goes, without ever destroying what the user did not ask to write.
//!
//! `-o PATH` writes *through* to what the path names, as a shell redirection would, except that a
//! regular file is replaced atomically:
//! * standard output (`-`, `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`) is this process's own
//!   descriptor, never reopened (a `>>` redirection keeps appending);
//! * a device, a FIFO or a socket is opened and written directly: no temporary file beside it;
//! * a symbolic link is followed: its final target is written or replaced, the link stays;
//! * a regular file (existing or new) is written to a temporary file in the same directory,
//!   given the old file's permissions (and owner, where allowed), and renamed over it once the
//!   conversion has succeeded. On error, or on SIGINT/SIGTERM/SIGHUP (see [`crate::signals`]),
//!   the temporary file is removed and the old file is untouched.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::CliError;
use crate::signals;

/// Compression applied to what is written, chosen by the output name (`.gz`, `.zst`, `.xz`)
/// or by `--compress`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Compression {
    /// gzip (RFC 1952).
    Gzip,
    /// Zstandard.
    Zstd,
    /// xz (LZMA2).
    Xz,
}

impl Compression {
    /// The file-name suffix that selects it.
    pub fn extension(self) -> &'static str {
        match self {
            Compression::Gzip => "gz",
            Compression::Zstd => "zst",
            Compression::Xz => "xz",
        }
    }

    /// The compression a file name's last extension names, if any.
    pub fn from_path(path: &Path) -> Option<Compression> {
        match path.extension()?.to_str()? {
            "gz" => Some(Compression::Gzip),
            "zst" => Some(Compression::Zstd),
            "xz" => Some(Compression::Xz),
            _ => None,
        }
    }

    /// Wraps `w` in the compressor.
    pub fn writer<'w>(self, w: Box<dyn Write + 'w>) -> io::Result<Compressor<'w>> {
        Ok(match self {
            Compression::Gzip => Compressor::Gzip(flate2::write::GzEncoder::new(
                w,
                flate2::Compression::default(),
            )),
            Compression::Zstd => Compressor::Zstd(zstd::stream::write::Encoder::new(w, 3)?),
            Compression::Xz => Compressor::Xz(xz2::write::XzEncoder::new(w, 6)),
        })
    }
}

/// A compressing writer whose end must be written with [`Compressor::finish`].
pub enum Compressor<'w> {
    Gzip(flate2::write::GzEncoder<Box<dyn Write + 'w>>),
    Zstd(zstd::stream::write::Encoder<'static, Box<dyn Write + 'w>>),
    Xz(xz2::write::XzEncoder<Box<dyn Write + 'w>>),
}

impl Compressor<'_> {
    /// Writes the compressed stream's end and flushes the writer beneath.
    pub fn finish(self) -> io::Result<()> {
        let mut inner = match self {
            Compressor::Gzip(e) => e.finish()?,
            Compressor::Zstd(e) => e.finish()?,
            Compressor::Xz(e) => e.finish()?,
        };
        inner.flush()
    }
}

impl Write for Compressor<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Compressor::Gzip(e) => e.write(buf),
            Compressor::Zstd(e) => e.write(buf),
            Compressor::Xz(e) => e.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Compressor::Gzip(e) => e.write_all(buf),
            Compressor::Zstd(e) => e.write_all(buf),
            Compressor::Xz(e) => e.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Compressor::Gzip(e) => e.flush(),
            Compressor::Zstd(e) => e.flush(),
            Compressor::Xz(e) => e.flush(),
        }
    }
}

/// What an output path turned out to name.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// This process's standard output.
    Stdout,
    /// This process's standard error (`/dev/stderr`).
    Stderr,
    /// Something that is written in place: a device, a FIFO, a socket, another descriptor.
    Direct(PathBuf),
    /// A regular file, existing or not, replaced atomically (symbolic links resolved).
    File(PathBuf),
}

/// Resolves what `path` names, following symbolic links (at most 40, as the kernel does).
pub fn resolve(path: &Path) -> Result<Target, CliError> {
    if path == Path::new("-") {
        return Ok(Target::Stdout);
    }
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        if let Some(t) = descriptor(&p) {
            return Ok(t);
        }
        let meta = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::File(p)),
            Err(e) => return Err(CliError::io(format!("cannot write {}", path.display()), e)),
        };
        let ft = meta.file_type();
        if ft.is_symlink() {
            let link = std::fs::read_link(&p)
                .map_err(|e| CliError::io(format!("cannot read link {}", p.display()), e))?;
            // `/proc/self/fd/N` points at names such as `pipe:[1234]` that are no path.
            if link.is_relative() && link.to_str().is_some_and(|s| s.contains(":[")) {
                return Ok(Target::Direct(p));
            }
            p = match p.parent() {
                Some(dir) if link.is_relative() => dir.join(link),
                _ => link,
            };
            continue;
        }
        if ft.is_dir() {
            return Err(CliError::failure(format!(
                "cannot write {}: it is a directory",
                path.display()
            )));
        }
        if ft.is_file() {
            return Ok(Target::File(p));
        }
        return Ok(Target::Direct(p));
    }
    Err(CliError::failure(format!(
        "cannot write {}: too many levels of symbolic links",
        path.display()
    )))
}

/// The names of this process's own descriptors.
fn descriptor(p: &Path) -> Option<Target> {
    let s = p.to_str()?;
    match s {
        "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1" => Some(Target::Stdout),
        "/dev/stderr" | "/dev/fd/2" | "/proc/self/fd/2" => Some(Target::Stderr),
        _ if s.starts_with("/dev/fd/") || s.starts_with("/proc/self/fd/") => {
            Some(Target::Direct(p.to_path_buf()))
        }
        _ => None,
    }
}

/// A file being written: either in place, or a temporary file that [`Output::commit`] renames
/// over its target.
pub struct Output {
    file: File,
    /// `(temporary, target)` for an atomic replacement.
    replace: Option<(PathBuf, PathBuf)>,
}

impl Output {
    /// Opens `target` (a [`Target::Direct`] or [`Target::File`]) for writing.
    pub fn open(target: &Target) -> Result<Output, CliError> {
        match target {
            Target::Direct(p) => {
                let file = OpenOptions::new()
                    .write(true)
                    .open(p)
                    .map_err(|e| CliError::io(format!("cannot open {}", p.display()), e))?;
                Ok(Output {
                    file,
                    replace: None,
                })
            }
            Target::File(p) => Self::temporary_beside(p),
            Target::Stdout | Target::Stderr => Err(CliError::failure(
                "internal error (please report): standard streams are not opened as files",
            )),
        }
    }

    fn temporary_beside(target: &Path) -> Result<Output, CliError> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let old = std::fs::metadata(target).ok();
        let mut attempt = 0u32;
        loop {
            let tmp = dir.join(format!(
                ".{name}.{}-{attempt}.binxml-partial",
                std::process::id()
            ));
            // Registered before it exists, so that a signal arriving during the open still
            // removes it.
            signals::register(&tmp);
            let mut opts = OpenOptions::new();
            opts.write(true).create_new(true);
            // A new file gets the mode a plain `>` would give (0666 less the umask); a
            // replaced one starts private and takes the old file's mode below.
            opts.mode(if old.is_some() { 0o600 } else { 0o666 });
            match opts.open(&tmp) {
                Ok(file) => {
                    if let Some(m) = &old {
                        // Keep the owner where allowed (as root), then the mode: chown clears
                        // set-user-ID bits, so the mode goes last.
                        let _ = std::os::unix::fs::fchown(&file, Some(m.uid()), Some(m.gid()));
                        file.set_permissions(std::fs::Permissions::from_mode(m.mode() & 0o7777))
                            .map_err(|e| {
                                signals::unregister_and_remove(&tmp);
                                CliError::io(format!("cannot set the mode of {}", tmp.display()), e)
                            })?;
                    }
                    return Ok(Output {
                        file,
                        replace: Some((tmp, target.to_path_buf())),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                    signals::unregister(&tmp);
                    attempt += 1;
                }
                Err(e) => {
                    signals::unregister(&tmp);
                    return Err(CliError::io(
                        format!("cannot write {}", target.display()),
                        e,
                    ));
                }
            }
        }
    }

    /// The file to write to.
    pub fn file(&mut self) -> &mut File {
        &mut self.file
    }

    /// Puts the written file in place (renames the temporary file over the target).
    pub fn commit(self) -> Result<(), CliError> {
        let Output { file, replace } = self;
        drop(file);
        if let Some((tmp, target)) = replace {
            let r = std::fs::rename(&tmp, &target);
            signals::unregister(&tmp);
            if let Err(e) = r {
                let _ = std::fs::remove_file(&tmp);
                return Err(CliError::io(
                    format!("cannot write {}", target.display()),
                    e,
                ));
            }
        }
        Ok(())
    }

    /// Gives up: the temporary file is removed, the target untouched.
    pub fn abandon(self) {
        let Output { file, replace } = self;
        drop(file);
        if let Some((tmp, _)) = replace {
            signals::unregister_and_remove(&tmp);
        }
    }
}

/// Writes to `path` (a `-o` argument or a batch output) through `f`, compressed with
/// `compression`, as the module's documentation describes. Nothing is left behind when `f` or
/// the writing fails.
pub fn write_to(
    path: &Path,
    compression: Option<Compression>,
    f: impl FnOnce(&mut dyn Write) -> Result<(), CliError>,
) -> Result<(), CliError> {
    match resolve(path)? {
        Target::Stdout => {
            let stdout = io::stdout();
            let lock = stdout.lock();
            finish_stream(Box::new(lock), compression, f).map_err(|e| e.writing("standard output"))
        }
        Target::Stderr => finish_stream(Box::new(io::stderr().lock()), compression, f)
            .map_err(|e| e.writing("standard error")),
        target => {
            let mut out = Output::open(&target)?;
            let shown = path.display().to_string();
            let r =
                finish_stream(Box::new(out.file()), compression, f).map_err(|e| e.writing(&shown));
            match r {
                Ok(()) => out.commit(),
                Err(e) => {
                    out.abandon();
                    Err(e)
                }
            }
        }
    }
}

/// Runs `f` over `w` (buffered, compressed if asked) and flushes everything.
fn finish_stream<'w>(
    w: Box<dyn Write + 'w>,
    compression: Option<Compression>,
    f: impl FnOnce(&mut dyn Write) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let buffered = io::BufWriter::with_capacity(1 << 16, w);
    match compression {
        None => {
            let mut b = buffered;
            f(&mut b)?;
            b.flush().map_err(CliError::from_write)
        }
        Some(c) => {
            let mut z = c.writer(Box::new(buffered)).map_err(CliError::from_write)?;
            f(&mut z)?;
            z.finish().map_err(CliError::from_write)
        }
    }
}
