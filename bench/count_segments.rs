//! Counts the segments of a translation file as `glossa check` reads them
//! (src/interchange/segments), for bench/tmx_stream.sh: prints the count,
//! segments per second and the peak memory (VmHWM) on stderr.
//!
//!     cargo run --release --example count_segments -- FILE [TARGET_FILE] [--jsonl]
//!
//! `--jsonl` prints each segment as a JSON line on stdout instead.

use glossa::interchange::segments::{open, Options};
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let jsonl = args.iter().any(|a| a == "--jsonl");
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let Some(file) = files.first() else {
        eprintln!("usage: count_segments FILE [TARGET_FILE] [--jsonl]");
        std::process::exit(2);
    };
    let options = Options {
        target_file: files.get(1).map(|f| Path::new(f.as_str())),
        ..Options::default()
    };
    let start = Instant::now();
    let segments = match open(Path::new(file.as_str()), &options) {
        Ok(segments) => segments,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let (mut count, mut bytes) = (0usize, 0usize);
    for segment in segments {
        match segment {
            Ok(segment) => {
                count += 1;
                bytes += segment.source.len() + segment.target.len();
                if jsonl {
                    println!("{}", serde_json::to_string(&segment).unwrap());
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(|l| l["VmHWM:".len()..].trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string());
    eprintln!(
        "{count} segments ({bytes} bytes of text) in {secs:.2} s: {:.0} segments/s; peak RSS {peak}",
        count as f64 / secs.max(1e-9)
    );
}
