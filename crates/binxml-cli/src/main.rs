//! `binxml`: the command-line tool, a thin layer over the library.
//!
//! Exit status: 0 on success, 1 when an input could not be converted (one line
//! `binxml: error: FILE: FORMAT: what went wrong at byte N` per failure), 2 on a usage error.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use binxml::{DecodeOptions, EncodeOptions, Format, Limits};
use clap::{Args, Parser, Subcommand};
use rayon::prelude::*;

#[derive(Parser)]
#[command(
    name = "binxml",
    version,
    about = "Convert between XML, JSON and binary infoset encodings"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Args, Clone)]
struct LimitArgs {
    /// Maximum element nesting depth accepted from the input.
    #[arg(long, default_value_t = Limits::default().max_depth)]
    max_depth: usize,
    /// Maximum length in bytes of one string (name, value or text) in the input.
    #[arg(long, default_value_t = Limits::default().max_string_len)]
    max_string: usize,
    /// Maximum number of entries in one table (vocabulary, string table, cache).
    #[arg(long, default_value_t = Limits::default().max_table_entries)]
    max_table: usize,
    /// Maximum bytes produced by expanding XML entity references in one document.
    #[arg(long, default_value_t = Limits::default().max_entity_expansion)]
    max_entity_expansion: usize,
    /// Maximum nesting of XML entity references.
    #[arg(long, default_value_t = Limits::default().max_entity_depth)]
    max_entity_depth: usize,
    /// Maximum ratio of decoded bytes to input bytes (table and token references can repeat
    /// data); 0 turns the check off.
    #[arg(long, default_value_t = Limits::default().max_expansion_ratio)]
    max_expansion_ratio: usize,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        Limits {
            max_depth: self.max_depth,
            max_string_len: self.max_string,
            max_table_entries: self.max_table,
            max_entity_expansion: self.max_entity_expansion,
            max_entity_depth: self.max_entity_depth,
            max_expansion_ratio: self.max_expansion_ratio,
        }
    }
}

#[derive(Args, Clone)]
struct CodecArgs {
    /// Fast Infoset: write values and text in UTF-16 instead of UTF-8.
    #[arg(long)]
    fi_utf16: bool,
    /// Fast Infoset: index attribute values and text chunks shorter than this (0: none).
    #[arg(long, default_value_t = 32)]
    fi_index_below: usize,
    /// Fast Infoset: start with the `<?xml encoding='finf'?>` declaration.
    #[arg(long)]
    fi_xml_declaration: bool,
    /// Fast Infoset: numeric text with the numeric restricted alphabet.
    #[arg(long)]
    fi_numeric_alphabet: bool,
    /// ASN.1: no component-strings or common-names tables, no element-content-characters, no
    /// same-as-parent-element.
    #[arg(long)]
    asn1_plain: bool,
    /// ASN.1: write a string inline wherever that is smaller than a table reference.
    #[arg(long, conflicts_with = "asn1_plain")]
    asn1_compact: bool,
    /// ASN.1: compress the component-strings block (none, bzip2, deflate, zstd).
    #[arg(long, default_value = "none")]
    asn1_compression: String,
    /// Xebu: forget mode (no token state kept; each message decodes on its own).
    #[arg(long)]
    xebu_forget: bool,
    /// Fast Infoset external vocabulary `URI=FILE` (a file written by `binxml fi-vocabulary`):
    /// encoding references the first one given; decoding accepts every one given.
    #[arg(long = "fi-vocabulary", value_name = "URI=FILE")]
    fi_vocabulary: Vec<String>,
    /// TSF: write the paper's reference-converter dialect (UTF-16 lengths, sorted attributes).
    #[arg(long)]
    tsf_reference: bool,
    /// TSF input: lengths count UTF-16 code units (files of the paper's reference converter).
    #[arg(long)]
    tsf_utf16_lengths: bool,
}

/// Reads `URI=FILE` vocabulary arguments.
fn load_vocabularies(args: &[String]) -> Result<Vec<(String, binxml::fi::Vocabulary)>, String> {
    args.iter()
        .map(|a| {
            let (uri, file) = a
                .split_once('=')
                .ok_or_else(|| format!("--fi-vocabulary {a:?}: expected URI=FILE"))?;
            let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
            let v = binxml::fi::Vocabulary::from_text(&text).map_err(|e| format!("{file}: {e}"))?;
            Ok((uri.to_string(), v))
        })
        .collect()
}

fn decode_options(limits: &LimitArgs, vocab_args: &[String]) -> Result<DecodeOptions, String> {
    let vocabs = load_vocabularies(vocab_args)?;
    Ok(DecodeOptions {
        limits: limits.limits(),
        fi_vocabularies: (!vocabs.is_empty())
            .then(|| std::sync::Arc::new(vocabs.into_iter().collect())),
        ..Default::default()
    })
}

impl CodecArgs {
    fn options(&self, indent: Option<usize>, to: Format) -> Result<EncodeOptions, String> {
        let mut o = EncodeOptions {
            indent,
            ..Default::default()
        };
        o.fi.utf16 = self.fi_utf16;
        o.fi.max_indexed_attribute_value = self.fi_index_below;
        o.fi.max_indexed_chunk = self.fi_index_below;
        o.fi.xml_declaration = self.fi_xml_declaration;
        o.fi.numeric_alphabet = self.fi_numeric_alphabet;
        o.xebu.forget = self.xebu_forget;
        o.tsf.utf16_lengths = self.tsf_reference;
        o.tsf.sort_attributes = self.tsf_reference;
        if let Some((uri, v)) = load_vocabularies(&self.fi_vocabulary)?.into_iter().next() {
            o.fi.external_vocabulary = Some((uri, std::sync::Arc::new(v)));
        }
        let rule = match to {
            Format::Asn1Aper => binxml::asn1::Rule::Aper,
            Format::Asn1Ber => binxml::asn1::Rule::Ber,
            _ => binxml::asn1::Rule::Uper,
        };
        let mut a = if self.asn1_plain {
            binxml::asn1::Options::plain(rule)
        } else if self.asn1_compact {
            binxml::asn1::Options::compact(rule)
        } else {
            binxml::asn1::Options::new(rule)
        };
        a.compression = match self.asn1_compression.as_str() {
            "none" => binxml::asn1::Compression::None,
            "bzip2" => binxml::asn1::Compression::Bzip2,
            "deflate" => binxml::asn1::Compression::Deflate,
            "zstd" => binxml::asn1::Compression::Zstd,
            other => {
                return Err(format!(
                    "unknown ASN.1 compression {other:?} (none, bzip2, deflate, zstd)"
                ));
            }
        };
        if a.compression != binxml::asn1::Compression::None && !a.strings_table {
            return Err(
                "--asn1-compression needs the component-strings table (drop --asn1-plain)".into(),
            );
        }
        o.asn1 = Some(a);
        Ok(o)
    }
}

#[derive(Subcommand)]
enum Command {
    /// Convert documents. One INPUT (or `-` for stdin) writes to -o (default stdout); several
    /// inputs or a directory convert in parallel into --out-dir, with a progress bar.
    Convert {
        /// Input files or directories (`-` is standard input).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output format.
        #[arg(short = 't', long = "to")]
        to: Format,
        /// Input format (detected from the first bytes when absent).
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        /// Output file (`-` is standard output) for a single input.
        #[arg(short = 'o', long = "output")]
        output: Option<PathBuf>,
        /// Output directory for batch conversion; files keep their relative paths, with the new
        /// format's extension.
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Indent XML output by this many spaces.
        #[arg(long)]
        indent: Option<usize>,
        /// Worker threads for batch conversion (default: all cores).
        #[arg(short = 'j', long)]
        jobs: Option<usize>,
        #[command(flatten)]
        limits: LimitArgs,
        #[command(flatten)]
        codec: CodecArgs,
    },
    /// List the formats.
    Formats,
    /// Print one line per event with its byte offset in the input.
    Inspect {
        input: PathBuf,
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Fast Infoset external vocabulary `URI=FILE` the document may reference.
        #[arg(long = "fi-vocabulary", value_name = "URI=FILE")]
        fi_vocabulary: Vec<String>,
    },
    /// Print the detected format of each file.
    Detect { inputs: Vec<PathBuf> },
    /// Build a Fast Infoset external vocabulary from sample documents (any format): the names,
    /// namespaces and short repeated values they use. Reference it with
    /// `convert --fi-vocabulary URI=FILE` on both sides.
    FiVocabulary {
        /// Sample documents.
        #[arg(required = true)]
        samples: Vec<PathBuf>,
        /// Where to write the vocabulary.
        #[arg(short = 'o', long = "output")]
        output: PathBuf,
    },
}

/// An input held in memory: a memory map for files (so that documents larger than memory are
/// paged in by the OS rather than read), a buffer for standard input.
enum Input {
    Map(memmap2::Mmap),
    Buf(Vec<u8>),
}

impl std::ops::Deref for Input {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Input::Map(m) => m,
            Input::Buf(b) => b,
        }
    }
}

fn read_input(path: &Path) -> Result<Input, String> {
    if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(Input::Buf(buf));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    if len == 0 {
        return Ok(Input::Buf(Vec::new()));
    }
    // SAFETY: the map is read-only; a file truncated by another process while mapped would be a
    // user error that can at worst fault this process, which the CLI accepts as plain readers do.
    match unsafe { memmap2::Mmap::map(&file) } {
        Ok(m) => Ok(Input::Map(m)),
        Err(_) => std::fs::read(path)
            .map(Input::Buf)
            .map_err(|e| format!("cannot read: {e}")),
    }
}

fn display(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// Runs `f`, turning a panic into an error message (a bug, but never a crash of the tool).
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(format!("internal error (please report): {msg}"))
        }
    }
}

fn detect_or(from: Option<Format>, data: &[u8]) -> Result<Format, String> {
    match from {
        Some(f) => Ok(f),
        None => binxml::detect(data)
            .ok_or_else(|| "cannot detect the input format; name it with -f FORMAT".to_string()),
    }
}

/// Converts one in-memory input, writing to `out`. Returns (input bytes, output bytes).
fn convert_one(
    data: &[u8],
    from: Option<Format>,
    to: Format,
    out: &mut dyn Write,
    dopts: &DecodeOptions,
    eopts: &EncodeOptions,
) -> Result<(), String> {
    let from = detect_or(from, data)?;
    let prepared = binxml::prepare(from, data).map_err(|e| e.to_string())?;
    let mut counter = CountingWriter { inner: out, n: 0 };
    binxml::convert_to(from, &prepared, dopts, to, Box::new(&mut counter), eopts)
        .map_err(|e| e.to_string())?;
    Ok(())
}

struct CountingWriter<'w> {
    inner: &'w mut dyn Write,
    n: u64,
}

impl Write for CountingWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.n += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes through `f` into a temporary file beside `target`, renamed into place on success:
/// a failed conversion leaves no half-written output.
fn write_atomically(
    target: &Path,
    f: impl FnOnce(&mut dyn Write) -> Result<(), String>,
) -> Result<(), String> {
    let mut tmp = target.as_os_str().to_owned();
    tmp.push(".binxml-partial");
    let tmp = PathBuf::from(tmp);
    let file =
        std::fs::File::create(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let mut w = std::io::BufWriter::new(file);
    let res = f(&mut w).and_then(|_| w.flush().map_err(|e| e.to_string()));
    drop(w);
    match res {
        Ok(()) => std::fs::rename(&tmp, target)
            .map_err(|e| format!("cannot write {}: {e}", target.display())),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

fn is_binary(f: Format) -> bool {
    f.is_binary()
}

fn collect_files(inputs: &[PathBuf]) -> Result<Vec<(PathBuf, PathBuf)>, String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, PathBuf)>) -> Result<(), String> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(root, &p, out)?;
            } else {
                let rel = p.strip_prefix(root).unwrap_or(&p).to_path_buf();
                out.push((p, rel));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            walk(input, input, &mut out)?;
        } else {
            let name = input
                .file_name()
                .map(PathBuf::from)
                .unwrap_or_else(|| input.clone());
            out.push((input.clone(), name));
        }
    }
    Ok(out)
}

fn batch(
    files: Vec<(PathBuf, PathBuf)>,
    out_dir: &Path,
    from: Option<Format>,
    to: Format,
    dopts: &DecodeOptions,
    eopts: &EncodeOptions,
) -> i32 {
    let total_in = AtomicU64::new(0);
    let total_out = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    let started = Instant::now();
    let bar = indicatif::ProgressBar::new(files.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} files {per_sec} {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    files.par_iter().for_each(|(path, rel)| {
        let result = guarded(|| {
            let data = read_input(path)?;
            let mut target = out_dir.join(rel);
            target.set_extension(to.extension());
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            write_atomically(&target, |w| convert_one(&data, from, to, w, dopts, eopts))?;
            total_in.fetch_add(data.len() as u64, Ordering::Relaxed);
            total_out.fetch_add(
                std::fs::metadata(&target).map(|m| m.len()).unwrap_or(0),
                Ordering::Relaxed,
            );
            Ok(())
        });
        if let Err(e) = result {
            bar.suspend(|| eprintln!("binxml: error: {}: {e}", display(path)));
            failures.lock().unwrap().push(path.clone());
        }
        bar.inc(1);
    });
    bar.finish_and_clear();
    let failed = failures.lock().unwrap().len();
    let (i, o) = (
        total_in.load(Ordering::Relaxed),
        total_out.load(Ordering::Relaxed),
    );
    eprintln!(
        "binxml: converted {} of {} files to {to} in {:.2} s ({:.1} MB -> {:.1} MB, {:.1}%){}",
        files.len() - failed,
        files.len(),
        started.elapsed().as_secs_f64(),
        i as f64 / 1e6,
        o as f64 / 1e6,
        if i > 0 {
            100.0 * o as f64 / i as f64
        } else {
            0.0
        },
        if failed > 0 {
            format!("; {failed} failed")
        } else {
            String::new()
        }
    );
    if failed > 0 { 1 } else { 0 }
}

fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Formats => {
            for f in Format::ALL {
                println!("{:<10} .{:<6} {}", f.name(), f.extension(), f.description());
            }
            0
        }
        Command::FiVocabulary { samples, output } => {
            let r = guarded(|| {
                let mut b = binxml::fi::VocabularyBuilder::new();
                for p in &samples {
                    let data = read_input(p).map_err(|e| format!("{}: {e}", display(p)))?;
                    let f = detect_or(None, &data).map_err(|e| format!("{}: {e}", display(p)))?;
                    let prepared =
                        binxml::prepare(f, &data).map_err(|e| format!("{}: {e}", display(p)))?;
                    let opts = DecodeOptions::default();
                    let mut dec = binxml::decoder(f, &prepared, &opts)
                        .map_err(|e| format!("{}: {e}", display(p)))?;
                    while let Some(ev) = dec
                        .next_event()
                        .map_err(|e| format!("{}: {e}", display(p)))?
                    {
                        b.add_event(&ev);
                    }
                }
                std::fs::write(&output, b.build().to_text())
                    .map_err(|e| format!("{}: {e}", output.display()))
            });
            match r {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("binxml: error: {e}");
                    1
                }
            }
        }
        Command::Detect { inputs } => {
            let mut status = 0;
            for p in inputs {
                match read_input(&p) {
                    Ok(d) => match binxml::detect(&d) {
                        Some(f) => println!("{}: {f}", display(&p)),
                        None => {
                            println!("{}: unknown", display(&p));
                            status = 1;
                        }
                    },
                    Err(e) => {
                        eprintln!("binxml: error: {}: {e}", display(&p));
                        status = 1;
                    }
                }
            }
            status
        }
        Command::Inspect {
            input,
            from,
            limits,
            fi_vocabulary,
        } => {
            let dopts = match decode_options(&limits, &fi_vocabulary) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("binxml: error: {e}");
                    return 2;
                }
            };
            let r = guarded(|| {
                let data = read_input(&input)?;
                let from = detect_or(from, &data)?;
                let prepared = binxml::prepare(from, &data).map_err(|e| e.to_string())?;
                let mut dec =
                    binxml::decoder(from, &prepared, &dopts).map_err(|e| e.to_string())?;
                let stdout = std::io::stdout();
                let mut out = std::io::BufWriter::new(stdout.lock());
                let mut depth = 0usize;
                println!("# {} as {from}", display(&input));
                loop {
                    match dec.next_event() {
                        Ok(Some(ev)) => {
                            if matches!(ev, binxml::Event::EndElement) {
                                depth = depth.saturating_sub(1);
                            }
                            let _ = writeln!(
                                out,
                                "{:>10}  {}{}",
                                dec.offset(),
                                "  ".repeat(depth.min(40)),
                                ev
                            );
                            if matches!(ev, binxml::Event::StartElement(_)) {
                                depth += 1;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            let _ = out.flush();
                            return Err(e.to_string());
                        }
                    }
                }
                out.flush().map_err(|e| e.to_string())
            });
            match r {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("binxml: error: {}: {e}", display(&input));
                    1
                }
            }
        }
        Command::Convert {
            inputs,
            to,
            from,
            output,
            out_dir,
            indent,
            jobs,
            limits,
            codec,
        } => {
            let dopts = match decode_options(&limits, &codec.fi_vocabulary) {
                Ok(o) => DecodeOptions {
                    tsf_utf16_lengths: codec.tsf_utf16_lengths,
                    ..o
                },
                Err(e) => {
                    eprintln!("binxml: error: {e}");
                    return 2;
                }
            };
            let eopts = match codec.options(indent, to) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("binxml: error: {e}");
                    return 2;
                }
            };
            if let Some(j) = jobs {
                let _ = rayon::ThreadPoolBuilder::new()
                    .num_threads(j.max(1))
                    .build_global();
            }
            let single = inputs.len() == 1 && !inputs[0].is_dir();
            if let Some(dir) = out_dir {
                if output.is_some() {
                    eprintln!("binxml: error: use either -o or --out-dir");
                    return 2;
                }
                let files = match collect_files(&inputs) {
                    Ok(f) => f,
                    Err(e) => {
                        eprintln!("binxml: error: {e}");
                        return 1;
                    }
                };
                return batch(files, &dir, from, to, &dopts, &eopts);
            }
            if !single {
                eprintln!("binxml: error: several inputs or a directory need --out-dir DIR");
                return 2;
            }
            let input = &inputs[0];
            let to_stdout = output.as_deref().is_none_or(|o| o == Path::new("-"));
            if to_stdout && output.is_none() && is_binary(to) && std::io::stdout().is_terminal() {
                eprintln!(
                    "binxml: error: refusing to write {to} (binary) to a terminal; use -o FILE or -o -"
                );
                return 2;
            }
            let r = guarded(|| {
                let data = read_input(input)?;
                if to_stdout {
                    let stdout = std::io::stdout();
                    let mut w = std::io::BufWriter::new(stdout.lock());
                    convert_one(&data, from, to, &mut w, &dopts, &eopts)?;
                    w.flush().map_err(|e| e.to_string())
                } else {
                    let target = output.as_ref().unwrap();
                    write_atomically(target, |w| convert_one(&data, from, to, w, &dopts, &eopts))
                }
            });
            match r {
                Ok(()) => 0,
                // The reader of our standard output went away (`| head`): stop quietly, as
                // Unix tools do.
                Err(e) if to_stdout && e.contains("Broken pipe") => 0,
                Err(e) => {
                    eprintln!("binxml: error: {}: {e}", display(input));
                    1
                }
            }
        }
    }
}

fn main() {
    // Panics are caught and reported as one error line; keep the default hook quiet.
    std::panic::set_hook(Box::new(|_| {}));
    let cli = Cli::parse();
    let code = run(cli);
    std::process::exit(code);
}
