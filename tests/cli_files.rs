//! How `rewrite` treats the paths it writes to (`-o`, `--links`, `--map`, `--reject`) and the
//! files it reads: as a shell redirection would, never damaging what is at the path.

mod common;

use common::Dir;
use std::fs;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output};

const INPUT: &str =
    "<info:fedora/demo%3a1> <http://purl.org/dc/terms/relation> <hdl://10013/x> .\n";
const REWRITTEN: &str =
    "<info:fedora/demo:1> <http://purl.org/dc/terms/relation> <hdl:10013/x> .\n";

fn run(args: &[&str]) -> Output {
    common::run_pidcanon(args, b"")
}

/// Runs `script` in bash with `$0` the binary and `$1`… `args`.
fn bash(script: &str, args: &[&str]) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_pidcanon"))
        .args(args)
        .output()
        .expect("bash runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status,
        text(&out.stderr)
    );
}

#[test]
fn a_symlink_is_written_through_and_stays_a_link() {
    let dir = Dir::new("files-symlink");
    let input = dir.file("in.nt", INPUT);
    fs::create_dir(dir.path("data")).expect("mkdir");
    let real = dir.file("data/real.nt", "old\n");
    let link = dir.path("link.nt");
    std::os::unix::fs::symlink("data/real.nt", &link).expect("symlink");
    let out = run(&["rewrite", "-q", p(&input), "-o", p(&link)]);
    assert_ok(&out);
    assert!(
        fs::symlink_metadata(&link)
            .expect("exists")
            .file_type()
            .is_symlink(),
        "the link is still a link"
    );
    assert_eq!(fs::read_to_string(&real).expect("readable"), REWRITTEN);
    assert_eq!(
        fs::read_dir(dir.path("data")).expect("dir").count(),
        1,
        "no temporary file left beside the target"
    );
}

#[test]
fn a_dangling_symlink_gets_its_target_created() {
    let dir = Dir::new("files-dangling");
    let input = dir.file("in.nt", INPUT);
    let link = dir.path("map.tsv");
    std::os::unix::fs::symlink("made.tsv", &link).expect("symlink");
    let output = dir.path("out.nt");
    let out = run(&[
        "rewrite",
        "-q",
        p(&input),
        "-o",
        p(&output),
        "--map",
        p(&link),
    ]);
    assert_ok(&out);
    assert!(
        fs::symlink_metadata(&link)
            .expect("exists")
            .file_type()
            .is_symlink()
    );
    let map = fs::read_to_string(dir.path("made.tsv")).expect("created");
    assert!(
        map.starts_with("info:fedora/demo%3a1\tinfo:fedora/demo:1\t"),
        "{map}"
    );
}

#[test]
fn a_fifo_is_written_into_and_stays_a_fifo() {
    let dir = Dir::new("files-fifo");
    let input = dir.file("in.nt", INPUT);
    let fifo = dir.path("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(
        made.is_ok_and(|s| s.success()),
        "this test needs mkfifo (GNU coreutils)"
    );
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo))
    };
    let out = run(&["rewrite", "-q", p(&input), "-o", p(&fifo)]);
    // Checked before joining: a reader of a FIFO that was replaced would wait forever.
    assert!(fs::metadata(&fifo).expect("exists").file_type().is_fifo());
    // Opening it read-write never blocks, and releases a reader still waiting for a writer.
    drop(fs::File::options().read(true).write(true).open(&fifo));
    assert_ok(&out);
    assert_eq!(reader.join().expect("reader").expect("read"), REWRITTEN);
}

#[test]
fn dev_stdout_and_process_substitution_are_written_into() {
    let dir = Dir::new("files-devfd");
    let input = dir.file("in.nt", INPUT);
    let output = dir.path("out.nt");
    // `--map /dev/stdout`: the map goes to the command's stdout (a pipe here).
    let out = run(&[
        "rewrite",
        "-q",
        p(&input),
        "-o",
        p(&output),
        "--map",
        "/dev/stdout",
    ]);
    let still_a_link =
        fs::symlink_metadata("/dev/stdout").is_ok_and(|m| m.file_type().is_symlink());
    if !still_a_link {
        // A regression replaced the system's link (as root): put it back before failing.
        let _ = fs::remove_file("/dev/stdout");
        let _ = std::os::unix::fs::symlink("/proc/self/fd/1", "/dev/stdout");
    }
    assert!(still_a_link, "/dev/stdout is still the system's link");
    assert_ok(&out);
    assert!(
        text(&out.stdout).starts_with("info:fedora/demo%3a1\t"),
        "{}",
        text(&out.stdout)
    );
    // `--links >(cat)`: /dev/fd/63, a pipe.
    let out = bash(
        r#""$0" rewrite -q "$1" -o "$2" --links >(cat)"#,
        &[p(&input), p(&output)],
    );
    assert_ok(&out);
    assert!(
        text(&out.stdout).contains("<http://www.w3.org/2002/07/owl#sameAs>"),
        "{}",
        text(&out.stdout)
    );
    // `/dev/fd/3` onto a regular file opened by the shell: written into, not replaced.
    let map = dir.file("map.tsv", "");
    let out = bash(
        r#""$0" rewrite -q "$1" -o "$2" --map /dev/fd/3 3>"$3""#,
        &[p(&input), p(&output), p(&map)],
    );
    assert_ok(&out);
    assert!(
        fs::read_to_string(&map)
            .expect("readable")
            .starts_with("info:fedora/demo%3a1\t")
    );
    assert_eq!(dir.entries(), 3, "no temporary file left");
}

#[test]
fn dev_null_stays_a_device() {
    let dir = Dir::new("files-devnull");
    let input = dir.file("in.nt", INPUT);
    let before = fs::metadata("/dev/null").expect("/dev/null exists");
    let out = run(&[
        "rewrite",
        "-q",
        p(&input),
        "-o",
        "/dev/null",
        "--links",
        "/dev/null",
    ]);
    assert_still_char_device("/dev/null", &before);
    assert_ok(&out);
}

/// Asserts that `path` is still the character device it was. A regression that replaced it (as
/// root) is undone first, so that a failing test does not break the machine it runs on.
fn assert_still_char_device(path: &str, before: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let still = fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device());
    if !still {
        let rdev = before.rdev();
        let major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & !0xfff);
        let minor = (rdev & 0xff) | ((rdev >> 12) & !0xff);
        let _ = fs::remove_file(path);
        let _ = Command::new("mknod")
            .args([
                "-m",
                "666",
                path,
                "c",
                &major.to_string(),
                &minor.to_string(),
            ])
            .status();
    }
    assert!(still, "{path} is still a character device");
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).expect("exists").permissions().mode() & 0o7777
}

#[test]
fn new_files_follow_the_umask_and_replaced_files_keep_their_mode() {
    let dir = Dir::new("files-mode");
    let input = dir.file("in.nt", INPUT);
    for (umask, expected) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let output = dir.path(&format!("new-{umask}.nt"));
        let links = dir.path(&format!("links-{umask}.nt"));
        let out = bash(
            r#"umask "$1"; exec "$0" rewrite -q "$2" -o "$3" --links "$4""#,
            &[umask, p(&input), p(&output), p(&links)],
        );
        assert_ok(&out);
        assert_eq!(mode(&output), expected, "-o under umask {umask}");
        assert_eq!(mode(&links), expected, "--links under umask {umask}");
    }
    for existing in [0o644, 0o640, 0o600, 0o664] {
        let output = dir.file("existing.nt", "old\n");
        fs::set_permissions(&output, fs::Permissions::from_mode(existing)).expect("chmod");
        let out = bash(
            r#"umask 077; exec "$0" rewrite -q "$1" -o "$2""#,
            &[p(&input), p(&output)],
        );
        assert_ok(&out);
        assert_eq!(fs::read_to_string(&output).expect("readable"), REWRITTEN);
        assert_eq!(
            mode(&output),
            existing,
            "a replaced {existing:o} file keeps its mode"
        );
    }
}

#[test]
fn two_outputs_on_one_file_are_refused_before_reading() {
    let dir = Dir::new("files-shared");
    let input = dir.file("in.nt", INPUT);
    let existing = dir.file("x.nt", "keep\n");
    let hard = dir.path("hard.nt");
    fs::hard_link(&existing, &hard).expect("hard link");
    let soft = dir.path("soft.nt");
    std::os::unix::fs::symlink("x.nt", &soft).expect("symlink");
    let new = dir.path("new.nt");
    let new_again = format!("{}/./new.nt", p(&dir.0));
    for (a, b) in [
        (p(&existing), p(&existing)),
        (p(&existing), p(&hard)),
        (p(&soft), p(&existing)),
        (p(&new), new_again.as_str()),
    ] {
        // A missing input too: the refusal comes before any input is opened.
        let out = run(&["rewrite", "-q", "no-such-input.nt", "-o", a, "--links", b]);
        assert_eq!(out.status.code(), Some(2), "{a} {b}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("are the same file"), "{stderr}");
        assert!(!stderr.contains("no-such-input"), "{stderr}");
        assert_eq!(fs::read_to_string(&existing).expect("readable"), "keep\n");
        assert!(!new.exists());
    }
    // Devices may be shared.
    let before = fs::metadata("/dev/null").expect("/dev/null exists");
    let out = run(&[
        "rewrite",
        "-q",
        p(&input),
        "-o",
        "/dev/null",
        "--map",
        "/dev/null",
    ]);
    assert_still_char_device("/dev/null", &before);
    assert_ok(&out);
}

#[test]
fn a_closed_or_full_stdout_is_an_error() {
    let dir = Dir::new("files-stdout");
    let input = dir.file("in.nt", INPUT);
    let out = bash(r#""$0" rewrite "$1" >&-"#, &[p(&input)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("<stdout>: Bad file descriptor"), "{stderr}");
    assert!(!stderr.contains("written"), "no summary: {stderr}");

    let out = bash(r#""$0" rewrite -q "$1" >/dev/null"#, &[p(&input)]);
    assert_ok(&out);

    assert!(
        Path::new("/dev/full").exists(),
        "this test writes to /dev/full, which every Linux system has"
    );
    let out = bash(r#""$0" rewrite "$1" >/dev/full"#, &[p(&input)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("<stdout>: No space left on device"),
        "{stderr}"
    );
    assert!(!stderr.contains("written"), "no summary: {stderr}");
}

/// `data` compressed as `extension` says.
fn compress(data: &[u8], extension: &str) -> Vec<u8> {
    use std::io::Write;
    match extension {
        "gz" => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).expect("compressed");
            e.finish().expect("compressed")
        }
        "bz2" => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).expect("compressed");
            e.finish().expect("compressed")
        }
        "zst" => zstd::encode_all(data, 1).expect("compressed"),
        other => panic!("no compression {other}"),
    }
}

fn decompress(data: &[u8], extension: &str) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    match extension {
        "gz" => flate2::read::MultiGzDecoder::new(data).read_to_end(&mut out),
        "bz2" => bzip2::read::MultiBzDecoder::new(data).read_to_end(&mut out),
        "zst" => zstd::stream::read::Decoder::new(data)
            .expect("zstd")
            .read_to_end(&mut out),
        other => panic!("no compression {other}"),
    }
    .expect("decompressed");
    out
}

const COMPRESSIONS: [&str; 3] = ["gz", "bz2", "zst"];

#[test]
fn compressed_inputs_are_read_by_extension_and_by_magic_bytes() {
    let dir = Dir::new("files-compressed-in");
    let many: String = INPUT.repeat(50_000);
    let many_rewritten: String = REWRITTEN.repeat(50_000);
    for extension in COMPRESSIONS {
        // Two members (as pigz, pbzip2 and zstd -T0 write them) make one stream.
        let mut data = compress(many.as_bytes(), extension);
        data.extend(compress(INPUT.as_bytes(), extension));
        let expected = many_rewritten.clone() + REWRITTEN;
        let by_name = dir.path(&format!("in.nt.{extension}"));
        fs::write(&by_name, &data).expect("written");
        for threads in ["1", "2"] {
            let out = run(&["rewrite", "-q", "--threads", threads, p(&by_name)]);
            assert_ok(&out);
            assert!(
                text(&out.stdout) == expected,
                "{extension}, {threads} threads"
            );
        }
        // No compression extension: told by the first bytes, on stdin too.
        let unnamed = dir.path(&format!("{extension}-inside.nt"));
        fs::write(&unnamed, &data).expect("written");
        let out = run(&["rewrite", "-q", p(&unnamed)]);
        assert_ok(&out);
        assert!(text(&out.stdout) == expected, "{extension} by magic");
        let out = common::run_pidcanon(&["rewrite", "-q"], &data);
        assert_ok(&out);
        assert!(text(&out.stdout) == expected, "{extension} on stdin");
    }
    // The format is read through the compression extension.
    let ttl = dir.path("in.ttl.gz");
    fs::write(
        &ttl,
        compress(
            b"<info:fedora/demo%3a1> <http://p> <hdl://10013/x> .\n",
            "gz",
        ),
    )
    .expect("written");
    let out = run(&["rewrite", "-q", p(&ttl), "--to", "nt"]);
    assert_ok(&out);
    assert_eq!(
        text(&out.stdout),
        "<info:fedora/demo:1> <http://p> <hdl:10013/x> .\n"
    );
}

#[test]
fn a_corrupt_compressed_input_is_an_error_naming_it() {
    let dir = Dir::new("files-corrupt");
    for extension in COMPRESSIONS {
        let mut data = compress(INPUT.repeat(1000).as_bytes(), extension);
        data.truncate(data.len() / 2);
        let input = dir.path(&format!("cut.nt.{extension}"));
        fs::write(&input, &data).expect("written");
        let output = dir.path("out.nt");
        let out = run(&["rewrite", "-q", p(&input), "-o", p(&output)]);
        assert_eq!(out.status.code(), Some(2), "{extension}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&format!("cut.nt.{extension}: ")),
            "{stderr}"
        );
        assert!(!output.exists(), "no partial output");
    }
}

#[test]
fn outputs_are_compressed_by_their_extension() {
    let dir = Dir::new("files-compressed-out");
    let input = dir.file("in.nt", INPUT);
    for extension in COMPRESSIONS {
        let output = dir.path(&format!("out.nt.{extension}"));
        let map = dir.path(&format!("map.tsv.{extension}"));
        let out = run(&[
            "rewrite",
            "-q",
            p(&input),
            "-o",
            p(&output),
            "--map",
            p(&map),
        ]);
        assert_ok(&out);
        let written = fs::read(&output).expect("written");
        assert_eq!(
            text(&decompress(&written, extension)),
            REWRITTEN,
            "{extension}"
        );
        let map = text(&decompress(&fs::read(&map).expect("written"), extension));
        assert!(map.starts_with("info:fedora/demo%3a1\t"), "{map}");
    }
    // `out.ttl.gz` is Turtle, gzip-compressed.
    let two = dir.file(
        "two.nt",
        &format!("{INPUT}<info:fedora/demo:1> <http://p> <http://o> .\n"),
    );
    let output = dir.path("out.ttl.gz");
    let out = run(&["rewrite", "-q", p(&two), "-o", p(&output)]);
    assert_ok(&out);
    let turtle = text(&decompress(&fs::read(&output).expect("written"), "gz"));
    assert!(
        turtle.contains("<info:fedora/demo:1> <http://purl.org/dc/terms/relation>"),
        "{turtle}"
    );
    assert!(
        !turtle.contains("> .\n<"),
        "Turtle, not N-Triples: {turtle}"
    );
}

#[test]
fn relative_iris_resolve_against_the_file_and_stdin_gets_a_hint() {
    let dir = Dir::new("files base dir");
    let turtle = "<x> <http://p> <info:fedora/demo%3a1> .\n";
    let input = dir.file("in #1.ttl", turtle);
    let out = run(&["rewrite", "-q", p(&input), "--to", "nt"]);
    assert_ok(&out);
    // The path is percent-encoded as a URL: the space and the `#`.
    let dir_url = format!("file://{}", p(&dir.0).replace(' ', "%20"));
    assert_eq!(
        text(&out.stdout),
        format!("<{dir_url}/x> <http://p> <info:fedora/demo:1> .\n")
    );
    // Each of several files is its own base.
    std::fs::create_dir(dir.0.join("sub")).expect("mkdir");
    let other = dir.file("sub/two.ttl", turtle);
    let out = run(&["rewrite", "-q", p(&input), p(&other), "--to", "nt"]);
    assert_ok(&out);
    assert_eq!(
        text(&out.stdout),
        format!(
            "<{dir_url}/x> <http://p> <info:fedora/demo:1> .\n\
             <{dir_url}/sub/x> <http://p> <info:fedora/demo:1> .\n"
        )
    );
    // --base wins.
    let out = run(&[
        "rewrite",
        "-q",
        p(&input),
        "--to",
        "nt",
        "--base",
        "http://ex/",
    ]);
    assert_eq!(
        text(&out.stdout),
        "<http://ex/x> <http://p> <info:fedora/demo:1> .\n"
    );
    // Stdin has no URL: the error says what to do.
    let out = common::run_pidcanon(&["rewrite", "-q", "-i", "ttl"], turtle.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("<stdin>:1:"), "{stderr}");
    assert!(stderr.contains("--base"), "{stderr}");
}

#[test]
fn every_io_error_names_its_path() {
    let dir = Dir::new("files-io-errors");
    let input = dir.file("in.nt", INPUT);
    fs::create_dir(dir.path("dir.nt")).expect("mkdir");
    let out = run(&["rewrite", "-q", p(&dir.path("dir.nt"))]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    // A directory is read as a Fedora objectStore (see docs/fedora.md): an empty one is an
    // error naming it.
    assert!(
        stderr.contains("dir.nt: a directory is read as a Fedora objectStore"),
        "{stderr}"
    );

    let out = run(&["rewrite", "-q", p(&dir.path("missing.nt"))]);
    assert!(
        text(&out.stderr).contains("missing.nt: No such file"),
        "{}",
        text(&out.stderr)
    );

    let out = run(&[
        "rewrite",
        "-q",
        p(&input),
        "-o",
        p(&dir.path("no-dir/out.nt")),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no-dir/out.nt: No such file"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn named_graphs_to_a_triple_format_name_the_file() {
    let dir = Dir::new("files-graphs");
    let trig = dir.file(
        "g.trig",
        "<http://g/1> { <info:fedora/demo%3a1> <http://p> <http://o> . }\n",
    );
    let out = run(&["rewrite", "-q", p(&trig), "--to", "nt"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("{}: ", p(&trig))), "{stderr}");
    assert!(
        stderr.contains("pidcanon: hint: --to nq or --to trig writes the named graphs"),
        "{stderr}"
    );
}

#[test]
fn to_contradicting_the_output_extension_is_warned_about() {
    let dir = Dir::new("files-contradiction");
    let input = dir.file("in.nt", INPUT);
    let output = dir.path("x.ttl");
    let out = run(&["rewrite", "-q", p(&input), "--to", "nt", "-o", p(&output)]);
    assert_ok(&out);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("warning: writing N-Triples (--to) into"),
        "{stderr}"
    );
    assert!(
        stderr.contains("x.ttl, whose extension says Turtle"),
        "{stderr}"
    );
    let out = run(&["rewrite", "-q", p(&input), "--to", "ttl", "-o", p(&output)]);
    assert_ok(&out);
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}
