//! `glossa check`: terminology QA of translations made elsewhere. Segments
//! are read as they stream, checked side by side in chunks, and written in
//! file order, so a file of any size runs in bounded memory.

use super::style;
use crate::cli::CheckArgs;
use anyhow::Context;
use glossa::dataset::{labels_by_post, Label};
use glossa::error::read_text;
use glossa::generate::check::Checker;
use glossa::generate::pipeline::Pipeline;
use glossa::generate::provider::{self, Settings};
use glossa::generate::retry::{Client, RetryPolicy};
use glossa::generate::simplify::Simplify;
use glossa::interchange::segments::{self, Segment};
use glossa::qa::{unmet, Checking, SegmentResult};
use glossa::report::check::{self as out, CheckReport, SHOWN_FAILURES};
use glossa::report::Format;
use glossa::retrieve::{self, Params};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::sync::Arc;

/// Segments read and checked side by side before they are written.
const CHUNK: usize = 2048;

pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let glossary = Arc::new(super::load_glossary(&args.glossary)?);
    let retriever = retrieve::build(&args.retriever, &glossary, &Params::from(&args.params))?;
    super::note_missing_data([args.retriever.as_str()]);
    let labels: Option<HashMap<String, (usize, Label)>> = match &args.labels {
        Some(path) => {
            let shown = path.display().to_string();
            Some(labels_by_post(
                &shown,
                &read_text(path)?,
                &glossary,
                |_, _| Ok(()),
            )?)
        }
        None => None,
    };
    let target_lang = args
        .target_lang
        .clone()
        .unwrap_or_else(|| glossary.target_lang.clone());
    let offline = provider::build("offline", &Settings::default())?;
    // Never called: the translations are given.
    let client = Arc::new(Client::new(vec![offline], RetryPolicy::default(), None));
    let labelled = args.labels.is_some();
    let pipeline = Pipeline {
        simplify: Simplify::None,
        check: Checker::new(args.check, &target_lang)?,
        repair: 0,
        // Filled in each trace; the segment report does not show them yet.
        invariants: args.invariants,
        ..Pipeline::new(
            Arc::clone(&glossary),
            &args.retriever,
            Arc::from(retriever),
            client,
            labelled,
        )?
    };
    let options = segments::Options {
        format: args.input_format,
        source_lang: args.source_lang.as_deref(),
        target_lang: args.target_lang.as_deref(),
        target_file: args.target_file.as_deref(),
    };
    let mut input = segments::open(&args.file, &options)?;

    let mut checking = Checking::new(pipeline);
    let mut failures: Vec<SegmentResult> = Vec::new();
    let mut labels_used = 0usize;
    let stdout = std::io::stdout();
    let mut sink = Sink::new(BufWriter::new(stdout.lock()), args.format);
    sink.open()?;
    let mut bad_input = None;
    loop {
        let mut chunk: Vec<Segment> = Vec::with_capacity(CHUNK);
        for item in input.by_ref() {
            match item {
                Ok(segment) => chunk.push(segment),
                Err(e) => {
                    bad_input = Some(e);
                    break;
                }
            }
            if chunk.len() == CHUNK {
                break;
            }
        }
        if chunk.is_empty() && bad_input.is_none() {
            break;
        }
        let label_of = |s: &Segment| labels.as_ref().and_then(|l| l.get(&s.id)).map(|(_, l)| l);
        let pipeline = checking.pipeline();
        let results: Vec<SegmentResult> = chunk
            .par_iter()
            .map(|s| Checking::judge(pipeline, &s.id, s.line, &s.source, &s.target, label_of(s)))
            .collect();
        for r in results {
            labels_used += usize::from(r.labelled);
            checking.count(&r);
            if !r.ok && failures.len() < SHOWN_FAILURES {
                failures.push(r.clone());
            }
            sink.segment(&r)?;
        }
        if bad_input.is_some() {
            break;
        }
    }
    let summary = checking.summary();
    sink.close(CheckReport {
        failures,
        summary: summary.clone(),
        input: args.file.display().to_string(),
    })?;

    if let Some(e) = bad_input {
        // What was checked before the bad segment is out; the error ends it.
        return Err(e.into());
    }
    if let Some(labels) = &labels {
        let unused = labels.len().saturating_sub(labels_used);
        if unused > 0 {
            eprintln!(
                "{}: {unused} of {} labels name no segment of {}",
                style::warning(),
                labels.len(),
                args.file.display()
            );
        }
    }
    if summary.segments == 0 {
        eprintln!(
            "{}: {} has no translated segment to check",
            style::warning(),
            args.file.display()
        );
    }
    let unmet = unmet(&args.fail_under, &summary);
    for bound in &unmet {
        eprintln!("{}: --fail-under not met: {bound}", style::error());
    }
    Ok(match summary.failed == 0 && unmet.is_empty() {
        true => ExitCode::SUCCESS,
        false => glossa::exit::Exit::Failed.into(),
    })
}

/// Where results go as they come: JSON and CSV a segment at a time, the
/// table formats once at the end.
struct Sink<W: Write> {
    out: W,
    format: Format,
    written: usize,
    /// Standard output was closed (`| head`): the check goes on quietly.
    closed: bool,
}

impl<W: Write> Sink<W> {
    fn new(out: W, format: Format) -> Sink<W> {
        Sink {
            out,
            format,
            written: 0,
            closed: false,
        }
    }

    fn write(&mut self, text: &str) -> anyhow::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.out.write_all(text.as_bytes()) {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other.context("cannot write to standard output"),
        }
    }

    fn open(&mut self) -> anyhow::Result<()> {
        match self.format {
            Format::Json => self.write(out::json_open()),
            Format::Csv => self.write(&out::csv_header()),
            _ => Ok(()),
        }
    }

    fn segment(&mut self, r: &SegmentResult) -> anyhow::Result<()> {
        let text = match self.format {
            Format::Json => out::json_segment(self.written == 0, r)?,
            Format::Csv => out::csv_segment(r),
            _ => return Ok(()),
        };
        self.written += 1;
        self.write(&text)
    }

    fn close(mut self, report: CheckReport) -> anyhow::Result<()> {
        match self.format {
            Format::Json => {
                let text = out::json_close(self.written > 0, &report.summary)?;
                self.write(&text)?;
            }
            Format::Csv => {}
            _ => {
                let mut text = Vec::new();
                let mut notes = Vec::new();
                glossa::report::render(&report, self.format, &mut text, &mut notes)?;
                self.write(&String::from_utf8_lossy(&text))?;
                eprint!("{}", String::from_utf8_lossy(&notes));
            }
        }
        if !self.closed {
            match self.out.flush() {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    return Err(e).context("cannot write to standard output")
                }
                _ => {}
            }
        }
        Ok(())
    }
}
