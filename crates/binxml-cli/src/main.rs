//! `binxml`: the command-line tool, a thin layer over the library.
//!
//! Exit status: 0 on success, 1 when an input could not be converted or an output not written
//! (one line `binxml: error: FILE: FORMAT: what went wrong at byte N` per failure), 2 on a usage
//! error. A closed output pipe ends the command at once and quietly, by SIGPIPE, as it ends
//! `cat`; SIGINT, SIGTERM and SIGHUP remove any temporary file before the command ends.

mod args;
mod batch;
mod convert;
mod error;
mod input;
mod output;
mod signals;
mod validate;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use binxml::{DecodeOptions, Decoder, Format};
use clap::{Parser, Subcommand};

use args::{CodecArgs, LimitArgs, OutputArgs};
use error::CliError;
use input::display;
use output::Compression;

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

#[derive(Subcommand)]
enum Command {
    /// Convert documents. One INPUT (or `-` for stdin) writes to -o (default stdout); several
    /// inputs or a directory convert in parallel into --out-dir, with a progress bar. Inputs
    /// compressed with gzip, zstd or xz are decompressed.
    Convert {
        /// Input files or directories (`-` is standard input).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Output format.
        #[arg(short = 't', long = "to")]
        to: Format,
        /// Input format (detected from the first bytes, then the file extension, when absent).
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        #[command(flatten)]
        output: OutputArgs,
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
    /// Validate documents (any format) against an XML Schema. Prints `FILE: valid`, or each
    /// error as `FILE:LINE:COLUMN: PATH: what is wrong` (a byte offset for binary inputs);
    /// exit status 1 when any document is invalid or unreadable.
    Validate {
        /// Input files (`-` is standard input).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The schema's root document (an .xsd file; what it includes and imports is read from
        /// local files only).
        #[arg(long, value_name = "XSD")]
        schema: PathBuf,
        /// Read a schemaLocation from a local file instead (`URL=FILE`; a URL ending in `/`
        /// maps a whole tree: `URL/=DIR`).
        #[arg(long = "schema-location", value_name = "URL=FILE")]
        schema_locations: Vec<String>,
        /// Input format (detected when absent).
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        #[command(flatten)]
        limits: LimitArgs,
        /// EXI input: the options of a stream whose header has none (as `convert --exi`).
        #[arg(long, value_name = "OPTIONS")]
        exi: Option<String>,
    },
    /// Print one line per event with its offset in the input: bytes, or bits (`bit N`) for the
    /// bit-packed formats.
    Inspect {
        input: PathBuf,
        #[arg(short = 'f', long = "from")]
        from: Option<Format>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Fast Infoset external vocabulary `URI=FILE` the document may reference.
        #[arg(long = "fi-vocabulary", value_name = "URI=FILE")]
        fi_vocabulary: Vec<String>,
        /// EXI: the options of a stream whose header has none (as `convert --exi`).
        #[arg(long, value_name = "OPTIONS")]
        exi: Option<String>,
    },
    /// Print the detected format of each file (from its bytes, then its extension).
    Detect {
        inputs: Vec<PathBuf>,
        /// Maximum size in bytes of a compressed input once decompressed.
        #[arg(long, default_value_t = 4 << 30)]
        max_decompressed: u64,
    },
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

/// Runs `f`, turning a panic into an error (a bug, but never a crash of the tool).
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, CliError>) -> Result<T, CliError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(CliError::failure(format!(
                "internal error (please report): {msg}"
            )))
        }
    }
}

/// Writes the lines `f` produces to standard output, buffered; a write error stops `f`.
fn to_stdout(f: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    f(&mut w)
        .and_then(|()| w.flush())
        .map_err(|e| CliError::from_write(e).writing("standard output"))
}

fn formats() -> Result<(), CliError> {
    to_stdout(|w| {
        for f in Format::ALL {
            writeln!(
                w,
                "{:<10} .{:<6} {}",
                f.name(),
                f.extension(),
                f.description()
            )?;
        }
        Ok(())
    })
}

fn detect(inputs: &[PathBuf], max_decompressed: u64) -> Result<i32, CliError> {
    let mut status = 0;
    let mut lines = Vec::new();
    for p in inputs {
        match input::read(p, max_decompressed) {
            Ok(src) => {
                let f = binxml::detect_named(&src.name, &src.data);
                let z = src
                    .compression
                    .map(|c| format!(" ({} compressed)", c.extension()))
                    .unwrap_or_default();
                let name = f.map(|f| f.name()).unwrap_or("unknown");
                if f.is_none() {
                    status = 1;
                }
                lines.push(format!("{}: {name}{z}", display(p)));
            }
            Err(e) => {
                // Lines so far go out first, so that the error follows them.
                flush_lines(&mut lines)?;
                if let Some(l) = e.about(&display(p)).line() {
                    eprintln_quiet(&l);
                }
                status = 1;
            }
        }
        if lines.len() >= 64 {
            flush_lines(&mut lines)?;
        }
    }
    flush_lines(&mut lines)?;
    Ok(status)
}

fn flush_lines(lines: &mut Vec<String>) -> Result<(), CliError> {
    let r = to_stdout(|w| {
        for l in lines.iter() {
            writeln!(w, "{l}")?;
        }
        Ok(())
    });
    lines.clear();
    r
}

/// Prints a line on standard error; a closed or full standard error is not worth dying for.
pub(crate) fn eprintln_quiet(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn inspect(
    input_path: &Path,
    from: Option<Format>,
    dopts: &DecodeOptions,
    max: u64,
) -> Result<(), CliError> {
    let shown = display(input_path);
    let src = input::read(input_path, max).map_err(|e| e.about(&shown))?;
    let from = input::format_of(from, &src).map_err(|e| e.about(&shown))?;
    let dec = binxml::AnyDecoder::new(from, &src.data, dopts)
        .map_err(|e| CliError::failure(e.to_string()).about(&shown))?;
    let mut lines = binxml::Inspector::new(dec);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let write_err = |e: std::io::Error| CliError::from_write(e).writing("standard output");
    writeln!(out, "# {shown} as {from}").map_err(write_err)?;
    loop {
        match lines.next_line() {
            Ok(Some(line)) => writeln!(out, "{line}").map_err(write_err)?,
            Ok(None) => break,
            Err(e) => {
                out.flush().map_err(write_err)?;
                return Err(CliError::failure(e.to_string()).about(&shown));
            }
        }
    }
    out.flush().map_err(write_err)
}

fn fi_vocabulary(samples: &[PathBuf], output: &Path) -> Result<(), CliError> {
    let mut b = binxml::fi::VocabularyBuilder::new();
    for p in samples {
        let shown = display(p);
        let src = input::read(p, 4 << 30).map_err(|e| e.about(&shown))?;
        let f = input::format_of(None, &src).map_err(|e| e.about(&shown))?;
        let fail = |e: binxml::Error| CliError::failure(e.to_string()).about(&shown);
        let mut dec =
            binxml::AnyDecoder::new(f, &src.data, &DecodeOptions::default()).map_err(fail)?;
        while let Some(ev) = dec.next_event().map_err(fail)? {
            b.add_event(&ev);
        }
    }
    let text = b.build().to_text();
    output::write_to(output, Compression::from_path(output), |w| {
        w.write_all(text.as_bytes()).map_err(CliError::from_write)
    })
}

fn convert(
    inputs: Vec<PathBuf>,
    to: Format,
    from: Option<Format>,
    out: OutputArgs,
    jobs: Option<usize>,
    limits: LimitArgs,
    codec: CodecArgs,
) -> Result<i32, CliError> {
    codec.check(from, to)?;
    let grammars = codec.exi_schema(&limits.limits())?;
    let dopts = args::decode_options(&limits, &codec.fi_vocabulary, codec.tsf_utf16_lengths)?
        .with_exi(args::exi_options(codec.exi.as_deref())?)
        .with_exi_schema(grammars.clone());
    let eopts = codec.encode_options(to)?.with_exi_schema(grammars);
    if let Some(j) = jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j.max(1))
            .build_global();
    }
    if let Some(dir) = &out.out_dir {
        if out.output.is_some() {
            return Err(CliError::usage("use either -o or --out-dir"));
        }
        let naming = batch::Naming {
            to,
            keep_extension: out.keep_extension,
            compression: out.compress,
        };
        let planned = batch::plan(&inputs, dir, &naming)?;
        return Ok(batch::run(
            &planned,
            &batch::Batch {
                from,
                to,
                dopts: &dopts,
                eopts: &eopts,
                compression: out.compress,
                max_decompressed: limits.max_decompressed,
            },
        ));
    }
    if inputs.len() != 1 || inputs[0].is_dir() {
        return Err(CliError::usage(
            "several inputs or a directory need --out-dir DIR",
        ));
    }
    let input_path = &inputs[0];
    let target = out.output.clone().unwrap_or_else(|| PathBuf::from("-"));
    let compression = out.compress.or_else(|| Compression::from_path(&target));
    let resolved = output::resolve(&target)?;
    if out.output.is_none()
        && resolved == output::Target::Stdout
        && (to.is_binary() || compression.is_some())
        && std::io::stdout().is_terminal()
    {
        return Err(CliError::usage(format!(
            "refusing to write {to} (binary) to a terminal; use -o FILE or -o -"
        )));
    }
    let shown = display(input_path);
    guarded(|| {
        let src = input::read(input_path, limits.max_decompressed)?;
        let from = input::format_of(from, &src)?;
        if codec.tsf_utf16_lengths && from != Format::Tsf {
            return Err(CliError::usage(format!(
                "--tsf-utf16-lengths applies to TSF input, not {from}"
            )));
        }
        output::write_to(&target, compression, |w| {
            convert::convert(&src.data, from, to, w, &dopts, &eopts)
        })
    })
    .map_err(|e| e.about(&shown))?;
    Ok(0)
}

fn run(cli: Cli) -> Result<i32, CliError> {
    match cli.command {
        Command::Formats => formats().map(|()| 0),
        Command::FiVocabulary { samples, output } => {
            guarded(|| fi_vocabulary(&samples, &output)).map(|()| 0)
        }
        Command::Detect {
            inputs,
            max_decompressed,
        } => guarded(|| detect(&inputs, max_decompressed)),
        Command::Inspect {
            input,
            from,
            limits,
            fi_vocabulary,
            exi,
        } => {
            let dopts = args::decode_options(&limits, &fi_vocabulary, false)?
                .with_positions(true)
                .with_exi(args::exi_options(exi.as_deref())?);
            guarded(|| inspect(&input, from, &dopts, limits.max_decompressed)).map(|()| 0)
        }
        Command::Validate {
            inputs,
            schema,
            schema_locations,
            from,
            limits,
            exi,
        } => {
            let dopts = args::decode_options(&limits, &[], false)?
                .with_positions(true)
                .with_exi(args::exi_options(exi.as_deref())?);
            guarded(|| {
                validate::run(
                    &inputs,
                    &schema,
                    &schema_locations,
                    from,
                    &dopts,
                    limits.max_decompressed,
                )
            })
        }
        Command::Convert {
            inputs,
            to,
            from,
            output,
            jobs,
            limits,
            codec,
        } => convert(inputs, to, from, output, jobs, limits, codec),
    }
}

fn main() {
    // Panics are caught and reported as one error line; keep the default hook quiet.
    std::panic::set_hook(Box::new(|_| {}));
    signals::install();
    let cli = Cli::parse();
    let code = match guarded(|| run(cli)) {
        Ok(code) => code,
        Err(e) if e.is_closed_pipe() => signals::die_of_closed_pipe(),
        Err(e) => {
            if let Some(line) = e.line() {
                eprintln_quiet(&line);
            }
            e.status()
        }
    };
    std::process::exit(code);
}
