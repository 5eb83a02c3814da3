//! The command never destroys a file it was not asked to write, writes through to what `-o`
//! names, refuses batch runs that would lose a file, and handles a full disk, a closed pipe and
//! SIGTERM on every subcommand, as root and as another user.

use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_binxml"))
}

fn scratch(name: &str) -> PathBuf {
    binxml_testkit::scratch_dir(&format!("cli-safety-{name}"))
}

fn example() -> PathBuf {
    binxml_testkit::workspace_root().join("examples/invoice.xml")
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

fn run(args: &[&str], dir: &Path) -> Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A document of about `mb` MB, big enough for a conversion to take a while.
fn big_document(dir: &Path, mb: usize) -> PathBuf {
    let p = dir.join("big.xml");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
    f.write_all(b"<r>").unwrap();
    let mut n = 0;
    while n < mb << 20 {
        let line = format!(
            "<item n=\"{n}\" kind=\"k{}\">text {n} &amp; more</item>\n",
            n % 7
        );
        f.write_all(line.as_bytes()).unwrap();
        n += line.len();
    }
    f.write_all(b"</r>").unwrap();
    p
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("binxml-partial"))
        .collect()
}

#[test]
fn output_to_a_device_writes_through_and_keeps_the_node() {
    let dir = scratch("device");
    let ex = example();
    let ex = ex.to_str().unwrap();
    for dev in ["/dev/null", "/dev/full"] {
        let before = std::fs::metadata(dev).unwrap();
        let out = run(&["convert", ex, "-t", "fi", "-o", dev], &dir);
        let after = std::fs::symlink_metadata(dev).unwrap();
        assert!(
            after.file_type().is_char_device(),
            "{dev} is still a device"
        );
        assert_eq!(before.rdev(), after.rdev(), "{dev}");
        if dev == "/dev/null" {
            assert!(out.status.success(), "{}", stderr(&out));
        } else {
            assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
            let err = stderr(&out);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains("No space left on device"), "{err}");
        }
    }
    assert!(leftovers(Path::new("/dev")).is_empty());
}

#[test]
fn output_to_dev_stdout_is_our_standard_output() {
    let dir = scratch("stdout");
    let ex = example();
    // A pipe.
    let out = run(
        &[
            "convert",
            ex.to_str().unwrap(),
            "-t",
            "xml",
            "-o",
            "/dev/stdout",
        ],
        &dir,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("<Invoice"));
    // A file opened for appending: what was there stays.
    let log = dir.join("log.txt");
    std::fs::write(&log, b"first line\n").unwrap();
    let f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let st = bin()
        .args([
            "convert",
            ex.to_str().unwrap(),
            "-t",
            "xml",
            "-o",
            "/dev/stdout",
        ])
        .stdout(f)
        .status()
        .unwrap();
    assert!(st.success());
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("first line\n<?xml"), "{text}");
}

#[test]
fn a_symlink_is_written_through_and_a_files_mode_is_kept() {
    let dir = scratch("link");
    let ex = example();
    let ex = ex.to_str().unwrap();
    std::os::unix::fs::symlink("real.fi", dir.join("link.fi")).unwrap();
    let out = run(&["convert", ex, "-t", "fi", "-o", "link.fi"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(dir.join("link.fi"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        &std::fs::read(dir.join("real.fi")).unwrap()[..4],
        &[0xE0, 0, 0, 1]
    );
    // Replaced again through the link: still a link.
    let out = run(&["convert", ex, "-t", "xebu", "-o", "link.fi"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(dir.join("link.fi"))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    let private = dir.join("private.fi");
    std::fs::write(&private, b"old").unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = run(&["convert", ex, "-t", "fi", "-o", "private.fi"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let m = std::fs::metadata(&private).unwrap();
    assert_eq!(m.permissions().mode() & 0o7777, 0o600);
    assert_ne!(std::fs::read(&private).unwrap(), b"old");
    assert!(leftovers(&dir).is_empty());
}

#[test]
fn a_fifo_is_written_directly() {
    let dir = scratch("fifo");
    let fifo = dir.join("pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_end(&mut buf)
                .unwrap();
            buf
        })
    };
    let ex = example();
    let out = run(
        &["convert", ex.to_str().unwrap(), "-t", "fi", "-o", "pipe"],
        &dir,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let got = reader.join().unwrap();
    assert_eq!(&got[..4], &[0xE0, 0, 0, 1]);
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(leftovers(&dir).is_empty());
}

#[test]
fn batch_refuses_collisions_before_writing_anything() {
    let dir = scratch("collide");
    let ex = std::fs::read(example()).unwrap();
    for d in ["c", "x", "y"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    std::fs::write(dir.join("c/d.xml"), &ex).unwrap();
    std::fs::write(dir.join("c/d.json"), br#"{"a": 1}"#).unwrap();
    std::fs::write(dir.join("x/d.xml"), &ex).unwrap();
    std::fs::write(dir.join("y/d.xml"), b"<other/>").unwrap();

    // Two inputs of one directory that map to one output.
    let out = run(&["convert", "c", "-t", "fi", "--out-dir", "o"], &dir);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("c/d.json") && err.contains("c/d.xml") && err.contains("o/d.fi"),
        "{err}"
    );
    assert!(!dir.join("o").exists(), "nothing written");

    // The same name in two directories.
    let out = run(
        &[
            "convert",
            "x/d.xml",
            "y/d.xml",
            "-t",
            "fi",
            "--out-dir",
            "o",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("o").exists());

    // An output that is an input.
    let out = run(&["convert", "x", "-t", "xml", "--out-dir", "x"], &dir);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("would be overwritten"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(dir.join("x/d.xml")).unwrap(), ex);

    // Asked for explicitly: the source extension stays in the output name.
    let out = run(
        &[
            "convert",
            "c",
            "-t",
            "fi",
            "--out-dir",
            "o",
            "--keep-extension",
        ],
        &dir,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("converted 2 of 2"),
        "{}",
        stderr(&out)
    );
    assert!(dir.join("o/d.xml.fi").is_file() && dir.join("o/d.json.fi").is_file());

    // A file given twice is converted once.
    let out = run(
        &[
            "convert",
            "x/d.xml",
            "x/d.xml",
            "-t",
            "fi",
            "--out-dir",
            "o2",
        ],
        &dir,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("converted 1 of 1"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn batch_summary_counts_only_outputs_put_in_place() {
    let dir = scratch("summary");
    std::fs::create_dir_all(dir.join("in")).unwrap();
    std::fs::write(dir.join("in/a.xml"), b"<a/>").unwrap();
    std::fs::write(dir.join("in/b.xml"), b"<b/>").unwrap();
    // The output for b is a directory: it cannot be written.
    std::fs::create_dir_all(dir.join("out/b.fi")).unwrap();
    let out = run(&["convert", "in", "-t", "fi", "--out-dir", "out"], &dir);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("converted 1 of 2") && err.contains("1 failed"),
        "{err}"
    );
    assert!(leftovers(&dir.join("out")).is_empty());
}

/// Every subcommand that writes to standard output, over a document big enough to fill a
/// pipe's buffer.
fn stdout_commands(big: &str) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        s(&["formats"]),
        s(&["detect", big, big, big]),
        s(&["inspect", big]),
        s(&["convert", big, "-t", "xml"]),
        s(&["convert", big, "-t", "fi", "-o", "-"]),
    ]
}

#[test]
fn every_subcommand_reports_a_full_disk_in_one_line() {
    let dir = scratch("full");
    let big = big_document(&dir, 2);
    for args in stdout_commands(big.to_str().unwrap()) {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = bin().args(&args).stdout(full).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
    }
}

#[test]
fn every_subcommand_stops_at_once_on_a_closed_pipe() {
    let dir = scratch("pipe");
    let big = big_document(&dir, 24);
    for args in stdout_commands(big.to_str().unwrap()) {
        let mut child = bin()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let started = Instant::now();
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert!(err.is_empty(), "{args:?} said: {err}");
        assert!(
            out.status.success() || out.status.signal() == Some(13),
            "{args:?}: {:?}",
            out.status
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{args:?} took {:?}",
            started.elapsed()
        );
    }
    // `inspect | head -1` stops long before the end of the document.
    let whole = Instant::now();
    let st = bin()
        .arg("inspect")
        .arg(&big)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    let whole = whole.elapsed();
    let head = Instant::now();
    let mut child = bin()
        .arg("inspect")
        .arg(&big)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let st = child.wait().unwrap();
    assert_eq!(st.signal(), Some(13), "ended by SIGPIPE, as cat is");
    assert!(
        head.elapsed() < whole / 2,
        "{:?} against {whole:?}",
        head.elapsed()
    );
}

#[test]
fn sigterm_leaves_the_old_file_and_nothing_else() {
    let dir = scratch("sigterm");
    let big = big_document(&dir, 48);
    let target = dir.join("out.ber");
    std::fs::write(&target, b"the old content").unwrap();
    for sig in ["TERM", "INT", "HUP"] {
        let child = bin()
            .arg("convert")
            .arg(&big)
            .args(["-t", "asn1-ber", "-o"])
            .arg(&target)
            .spawn()
            .unwrap();
        // Wait for the temporary file, so that the signal lands mid-conversion.
        let started = Instant::now();
        while leftovers(&dir).is_empty() && started.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let pid = child.id().to_string();
        assert!(
            Command::new("kill")
                .args([&format!("-{sig}"), &pid])
                .status()
                .unwrap()
                .success()
        );
        let out = child.wait_with_output().unwrap();
        assert!(!out.status.success(), "{sig}");
        assert!(leftovers(&dir).is_empty(), "{sig}: {:?}", leftovers(&dir));
        assert_eq!(std::fs::read(&target).unwrap(), b"the old content", "{sig}");
    }
}

#[test]
fn compressed_inputs_and_outputs_and_detection_by_extension() {
    let dir = scratch("compress");
    let ex = example();
    let ex = ex.to_str().unwrap();
    for (name, magic) in [
        ("inv.fi.gz", &[0x1F, 0x8B][..]),
        ("inv.fi.zst", &[0x28, 0xB5, 0x2F, 0xFD][..]),
        ("inv.fi.xz", &[0xFD, b'7', b'z', b'X', b'Z'][..]),
    ] {
        let out = run(&["convert", ex, "-t", "fi", "-o", name], &dir);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(
            std::fs::read(dir.join(name)).unwrap().starts_with(magic),
            "{name}"
        );
        let out = run(&["detect", name], &dir);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(": fi"),
            "{name}"
        );
        let out = run(&["convert", name, "-t", "xml"], &dir);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(String::from_utf8_lossy(&out.stdout).contains("Installation &amp; commissioning"));
    }
    // PER has no signature: the extension tells, also under compression.
    let out = run(&["convert", ex, "-t", "asn1-uper", "-o", "inv.uper"], &dir);
    assert!(out.status.success());
    let out = run(
        &["convert", ex, "-t", "asn1-aper", "-o", "inv.aper.gz"],
        &dir,
    );
    assert!(out.status.success());
    let out = run(&["detect", "inv.uper", "inv.aper.gz"], &dir);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("inv.uper: asn1-uper") && text.contains("inv.aper.gz: asn1-aper"),
        "{text}"
    );
    let out = run(&["convert", "inv.aper.gz", "-t", "xml"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));

    // A decompression bomb stops at the limit.
    let zeros = vec![b' '; 4 << 20];
    let mut z = flate_gzip(&zeros);
    z.truncate(z.len());
    std::fs::write(dir.join("bomb.xml.gz"), &z).unwrap();
    let out = run(
        &[
            "convert",
            "bomb.xml.gz",
            "-t",
            "fi",
            "-o",
            "-",
            "--max-decompressed",
            "1000000",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("exceeds 1000000 bytes"),
        "{}",
        stderr(&out)
    );
}

fn flate_gzip(data: &[u8]) -> Vec<u8> {
    let mut child = Command::new("gzip")
        .arg("-c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = data.to_vec();
    let t = std::thread::spawn(move || stdin.write_all(&data).unwrap());
    let out = child.wait_with_output().unwrap();
    t.join().unwrap();
    out.stdout
}

#[test]
fn inspect_shows_bit_offsets_for_per() {
    let dir = scratch("bits");
    let ex = example();
    let out = run(
        &[
            "convert",
            ex.to_str().unwrap(),
            "-t",
            "asn1-uper",
            "-o",
            "i.uper",
        ],
        &dir,
    );
    assert!(out.status.success());
    let out = run(&["inspect", "i.uper"], &dir);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let bits: Vec<u64> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("bit "))
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert!(bits.len() > 40, "{text}");
    assert!(bits.windows(2).all(|w| w[0] <= w[1]), "{text}");
    let size = std::fs::metadata(dir.join("i.uper")).unwrap().len() * 8;
    assert!(*bits.last().unwrap() < size);
    assert!(
        bits.iter().any(|b| b % 8 != 0),
        "offsets inside octets: {text}"
    );
}

#[test]
fn options_that_do_not_apply_are_refused() {
    let dir = scratch("options");
    let ex = example();
    let ex = ex.to_str().unwrap();
    for args in [
        vec!["--indent", "2", "-t", "fi"],
        vec!["--fi-utf16", "-t", "xml"],
        vec!["--asn1-plain", "-t", "fi"],
        vec!["--xebu-forget", "-t", "tsf"],
        vec!["--tsf-reference", "-t", "xebu"],
        vec!["--tsf-utf16-lengths", "-t", "fi"],
    ] {
        let mut all = vec!["convert", ex, "-o", "x.out"];
        all.extend(&args);
        let out = run(&all, &dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("does not apply") || stderr(&out).contains("applies to"));
        assert!(!dir.join("x.out").exists(), "{args:?}");
    }
    assert!(
        run(
            &["convert", ex, "-t", "json", "--indent", "2", "-o", "x.json"],
            &dir
        )
        .status
        .success()
    );
}

#[test]
fn contradictory_options_are_refused() {
    let dir = scratch("contradictory");
    let ex = example();
    let ex = ex.to_str().unwrap();
    let out = run(
        &[
            "convert",
            ex,
            "-t",
            "asn1-uper",
            "--asn1-plain",
            "--asn1-compression",
            "deflate",
            "-o",
            "x.uper",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--asn1-compression needs the component-strings table"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.join("x.uper").exists());
}

/// The same checks as another user than root (devices, standard output, permissions), where
/// the tests run as root and `setpriv` can drop to `nobody`.
#[test]
fn as_another_user() {
    if !is_root() || Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: needs root and setpriv to run as another user");
        return;
    }
    let dir = scratch("nobody");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let ex = dir.join("in.xml");
    std::fs::copy(example(), &ex).unwrap();
    std::fs::set_permissions(&ex, std::fs::Permissions::from_mode(0o644)).unwrap();
    let as_nobody = |exe: &Path, args: &[&str], stdout: Stdio| {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(exe)
            .args(args)
            .current_dir(&dir)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .output()
            .unwrap()
    };
    // The built binary, if `nobody` may run it where it is; else a copy in the scratch
    // directory. (A copy may be refused for a moment with "Text file busy" while another test
    // thread forks with its descriptor open: hence the retries.)
    let built = PathBuf::from(env!("CARGO_BIN_EXE_binxml"));
    let exe = if as_nobody(&built, &["formats"], Stdio::null())
        .status
        .success()
    {
        built
    } else {
        let exe = dir.join("binxml");
        std::fs::copy(&built, &exe).unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        exe
    };
    let nobody = |args: &[&str], stdout: &dyn Fn() -> Stdio| {
        let mut out = as_nobody(&exe, args, stdout());
        for _ in 0..100 {
            if !stderr(&out).contains("Text file busy") {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            out = as_nobody(&exe, args, stdout());
        }
        out
    };
    let out = nobody(
        &["convert", "in.xml", "-t", "xml", "-o", "/dev/stdout"],
        &Stdio::piped,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("<Invoice"));
    let out = nobody(
        &["convert", "in.xml", "-t", "fi", "-o", "/dev/null"],
        &Stdio::piped,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = nobody(
        &["convert", "in.xml", "-t", "fi", "-o", "/dev/full"],
        &Stdio::piped,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let full = || {
        Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
    };
    let out = nobody(&["formats"], &full);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = nobody(
        &["convert", "in.xml", "-t", "fi", "-o", "/root/x.fi"],
        &Stdio::piped,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("Permission denied"),
        "{}",
        stderr(&out)
    );
    // A file of the user's, mode 640, replaced: still 640.
    let out = nobody(
        &["convert", "in.xml", "-t", "fi", "-o", "mine.fi"],
        &Stdio::piped,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::set_permissions(dir.join("mine.fi"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = nobody(
        &["convert", "in.xml", "-t", "xebu", "-o", "mine.fi"],
        &Stdio::piped,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let m = std::fs::metadata(dir.join("mine.fi")).unwrap();
    assert_eq!((m.permissions().mode() & 0o777, m.uid()), (0o640, 65534));
    assert!(leftovers(&dir).is_empty());
}
