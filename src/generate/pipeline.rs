//! One post through every stage: simplify → phrases → retrieve → prompt →
//! generate → check. Each stage's output and duration is recorded in the
//! [`Trace`], which is what `glossa translate --format json` prints and
//! what a batch call line is made from.

use super::ambiguity::{self, Unconfirmed};
use super::check::{forbidden_in, Checker, Forbidden, Forbids, Target, Verdict};
use super::echo::{fixed_text, Echo, EchoCheck, EchoLine};
use super::prompt::{glossary_block, GlossaryLine, PromptId, Template};
use super::provider::{ProviderError, Reply, ReplyMeta, Request, Substitution};
use super::retry::Client;
use super::simplify::{sentences, sentences_from_reply, Simplify, SourceMap};
use crate::dataset::Label;
use crate::glossary::Glossary;
use crate::invariants::{self, Issue};
use crate::retrieve::{
    best_per_entry, targets_agree, Longer, Match, MatchKind, PostView, RetrieveError, Retriever,
};
use crate::score::PostScore;
use crate::target_match::Haystack;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Serialize;
use std::ops::Range;
use std::sync::Arc;
use std::time::Instant;

mod repair;
pub use repair::{Turn, DEFAULT_REPAIR_RUN, DEFAULT_REPAIR_TRANSLATE};

/// The provider name of a translation made elsewhere (`glossa check`): no
/// prompt was sent, so its output is never an echo.
pub(crate) const EXISTING: &str = "existing";

/// Everything fixed for a batch: glossary, retriever, templates, provider.
pub struct Pipeline {
    pub glossary: Arc<Glossary>,
    pub retriever_name: String,
    pub retriever: Arc<dyn Retriever>,
    pub template: Template,
    pub simplify: Simplify,
    pub simplify_template: Template,
    pub client: Arc<Client>,
    /// The output check (how nested and shared targets count).
    pub check: Checker,
    /// Follow-up turns at most when the check finds a problem (`--repair`).
    pub repair: u32,
    /// Whether the output's numbers, handles, placeholders... are checked
    /// against the post, and whether one missing fails the post
    /// (`--invariants`).
    pub invariants: invariants::Mode,
}

impl Pipeline {
    /// The one way a pipeline is assembled (translate, run, check, the
    /// page): the built-in translate prompt, rule-based simplification, the
    /// default check, [`DEFAULT_REPAIR_TRANSLATE`] repair turns and
    /// invariants warned about; callers change what their flags say with
    /// struct update syntax. A retriever that needs labels is refused
    /// unless the posts have them.
    pub fn new(
        glossary: Arc<Glossary>,
        spec: &str,
        retriever: Arc<dyn Retriever>,
        client: Arc<Client>,
        labelled: bool,
    ) -> Result<Pipeline, crate::retrieve::NeedsLabels> {
        if !labelled {
            crate::retrieve::refuse_without_labels(retriever.as_ref(), spec)?;
        }
        Ok(Pipeline {
            glossary,
            retriever_name: spec.to_string(),
            retriever,
            template: Template::builtin("translate.v1"),
            simplify: Simplify::Rules,
            simplify_template: Template::builtin("simplify.v1"),
            client,
            check: Checker::default(),
            repair: DEFAULT_REPAIR_TRANSLATE,
            invariants: invariants::Mode::default(),
        })
    }
}

/// A stage's output and how long it took.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stage<T> {
    pub(crate) ms: f64,
    pub output: T,
}

fn timed<T>(started: Instant, output: T) -> Stage<T> {
    Stage {
        ms: started.elapsed().as_secs_f64() * 1000.0,
        output,
    }
}

/// A retrieved entry as given to the model.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct UsedEntry {
    pub(crate) entry: String,
    pub(crate) source: String,
    pub(crate) target: String,
    pub(crate) kind: MatchKind,
    /// The matched words as written in the simplified text.
    pub(crate) phrase: String,
    pub(crate) score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) sense: Option<String>,
    /// The entry's `case_sensitive` and `keep` (docs/formats.md, "Case and
    /// keep"); absent when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) case_sensitive: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) keep: bool,
    /// The entry's other accepted spellings of `target`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) forms: Vec<String>,
    /// Terms the output must not hold (the entry's `forbidden`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) forbidden: Vec<String>,
    /// Byte ranges of the simplified text of every place where retrieval
    /// kept a match of the entry (after its filters), in text order; empty
    /// for a match from no phrase (the oracle).
    #[serde(skip)]
    pub(crate) places: Vec<Range<usize>>,
}

/// Every entry's target and forms, each with the index of its entry: what
/// the check and the highlighting look for in the output in one pass.
pub(crate) fn spellings(used: &[UsedEntry]) -> Vec<(usize, &str)> {
    used.iter()
        .enumerate()
        .flat_map(|(i, u)| {
            std::iter::once(u.target.as_str())
                .chain(u.forms.iter().map(String::as_str))
                .map(move |s| (i, s))
        })
        .collect()
}

/// The prompt stage's output.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PromptOut {
    pub(crate) template: PromptId,
    pub(crate) text: String,
}

/// The generate stage's output.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Generation {
    pub(crate) provider: String,
    pub(crate) model: String,
    pub(crate) text: Option<String>,
    /// The text of a failed call's reply (cut off by the token limit,
    /// say): what came back, never a translation, never checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) partial_output: Option<String>,
    pub(crate) attempts: u32,
    pub(crate) cached: bool,
    pub error: Option<String>,
    /// The reply's finish reason (also for a reply refused for it), served
    /// model, usage (none for a cached reply) and whether a `<think>` block
    /// was stripped before the check.
    #[serde(flatten)]
    pub(crate) meta: ReplyMeta,
    /// The error should stop a batch (quota spent for the day, key refused).
    #[serde(skip)]
    pub stops_run: bool,
    /// The error is one every call will get (400, 404): a batch stops after
    /// a few of them in a row.
    #[serde(skip)]
    pub same_for_every_call: bool,
}

impl From<Reply> for Generation {
    /// A call that was answered.
    fn from(reply: Reply) -> Generation {
        Generation {
            provider: reply.provider,
            model: reply.model,
            text: Some(reply.text),
            partial_output: None,
            attempts: reply.attempts,
            cached: reply.cached,
            error: None,
            meta: reply.meta,
            stops_run: false,
            same_for_every_call: false,
        }
    }
}

/// Whether a retrieved target made it into the output.
#[derive(Debug, Clone, Serialize)]
pub struct TargetUse {
    pub(crate) entry: String,
    pub(crate) target: String,
    pub(crate) in_output: bool,
    /// The entry whose longer match holds this one's words ("cream" in
    /// "ice cream"): a target missing there is the longer term's choice,
    /// not a miss.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) inside: Option<String>,
}

/// What a user should look at, labels or not.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Review {
    /// Content words no entry covered: candidates for the glossary.
    pub(crate) uncovered: Vec<String>,
    /// Entries that matched other than as written (through a stem, a typo,
    /// ...; a declared alias or a term without its article as written is
    /// as written): worth a second look.
    pub(crate) not_exact: Vec<String>,
    /// For each retrieved entry, whether its target is in the output.
    pub(crate) targets: Vec<TargetUse>,
    /// Ambiguous entries used where no `context` confirms their sense:
    /// the sense may be wrong there.
    pub(crate) unconfirmed: Vec<Unconfirmed>,
    /// The output copied the prompt instead of translating (never for
    /// the offline provider, whose output is substitution by design).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub echo: Option<Echo>,
    /// Forbidden terms of the retrieved entries, and glossary-wide ones,
    /// standing in the output ([`super::check::forbidden_in`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forbidden: Vec<Forbidden>,
}

impl Review {
    /// For a target missing from the output, the longer entry it matched
    /// only inside, when that entry's target is in the output: the longer
    /// term chose the words ("cream" in "ice cream" → "Eis"), so the check
    /// does not count it as missing.
    /// The retrieved targets missing from the output: neither there nor
    /// the choice of a longer term ([`Review::inside_used`]).
    pub fn missing(&self) -> impl Iterator<Item = &TargetUse> {
        self.targets
            .iter()
            .filter(|t| !t.in_output && self.inside_used(t).is_none())
    }

    pub(crate) fn inside_used<'r>(&'r self, t: &'r TargetUse) -> Option<&'r str> {
        let longer = t.inside.as_deref().filter(|_| !t.in_output)?;
        self.targets
            .iter()
            .any(|o| o.entry == longer && o.in_output)
            .then_some(longer)
    }
}

/// Where a labelled post's retrieval left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Group {
    /// Every needed entry retrieved, no wrong sense.
    Complete,
    /// A needed entry was not retrieved.
    Missed,
    /// Nothing missed, but a wrong-sense entry was retrieved.
    WrongSense,
}

/// The labelled side of a trace.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Labelled {
    pub(crate) group: Group,
    pub(crate) check: Verdict,
    /// Wrong-sense entries that were retrieved, and those whose target the
    /// output then used.
    pub(crate) wrong_sense_retrieved: Vec<String>,
    pub(crate) wrong_sense_used: Vec<String>,
    /// `--invariants fail` and an invariant of the post is missing or
    /// changed in the output: the post fails, whatever its terms.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) invariants_failed: bool,
}

/// One post through the pipeline.
#[derive(Debug, Clone, Serialize)]
pub struct Trace {
    pub(crate) retriever: String,
    pub(crate) repeat: u32,
    pub(crate) input: String,
    pub(crate) simplify: Stage<Vec<String>>,
    pub(crate) phrases: Stage<Vec<String>>,
    pub(crate) retrieve: Stage<Vec<UsedEntry>>,
    /// Why the retriever found nothing for this post, when it failed
    /// ([`RetrieveError`]); the generate stage then holds the same error
    /// and no call was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) retrieve_error: Option<String>,
    pub(crate) prompt: Stage<PromptOut>,
    pub generate: Stage<Generation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) labelled: Option<Labelled>,
    pub review: Review,
    /// Every turn when the check asked for a repair (`--repair`): the
    /// first pass, then each repair; the generate stage holds the last
    /// answered one. Empty when the first pass was kept as it was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) turns: Vec<Turn>,
    /// The post's numbers, amounts, times, dates, URLs, e-mails, handles,
    /// hashtags, emoji and placeholders missing or changed in the output
    /// (docs/formats.md, "Invariants"); empty with `--invariants off`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<Issue>,
}

/// The half of one post's trip before the model call: simplify → phrases
/// → retrieve → prompt. [`Pipeline::finish`] checks an output against it,
/// whether the output came from a live call ([`Pipeline::run`]) or from a
/// provider's batch results file.
pub struct Prepared {
    /// The trace so far: its generate stage, labelled side and review are
    /// filled in by [`Pipeline::finish`].
    pub(crate) trace: Trace,
    /// The simplified text, as retrieval and the prompt saw it.
    pub(crate) text: String,
    matches: Vec<Match>,
    /// Per match, the entry whose longer match holds every place where it
    /// matched ([`inside_other`]).
    inside: Vec<Option<String>>,
    /// Per match, whether it is a source or alias as written
    /// ([`Match::is_written`]).
    written: Vec<bool>,
    uncovered: Vec<String>,
    unconfirmed: Vec<Unconfirmed>,
    /// A failed `--simplify llm` call: the post then gets no generate call.
    simplify_error: Option<ProviderError>,
    /// A failed retrieval: no generate call either.
    retrieve_error: Option<RetrieveError>,
}

impl Prepared {
    /// Milliseconds spent before the model call.
    pub fn ms(&self) -> f64 {
        let t = &self.trace;
        t.simplify.ms + t.phrases.ms + t.retrieve.ms + t.prompt.ms
    }
}

impl Pipeline {
    /// Run one post. A failed model call is recorded in the trace, not
    /// returned as an error, so a batch goes on.
    pub async fn run(&self, text: &str, label: Option<&Label>, repeat: u32) -> Trace {
        let prepared = self.prepare(text, label, repeat).await;
        let generate = self.generate(&prepared).await;
        let (generate, turns) = self.repaired(&prepared, label, generate).await;
        self.finish_turns(prepared, label, generate, turns)
    }

    /// Everything before the model call. With `--simplify llm` this makes
    /// the simplify call.
    pub(crate) async fn prepare(&self, text: &str, label: Option<&Label>, repeat: u32) -> Prepared {
        // Composed where the post enters, so every offset below is into
        // the same text (posts read from files already are).
        let text = &*crate::phrase::nfc(text);
        let started = Instant::now();
        let (simplified, simplify_error) = self.simplify(text, repeat).await;
        let simplify = timed(started, simplified);
        self.prepare_simplified(text, label, repeat, simplify, simplify_error)
    }

    /// Everything before the model call, without any model call: `None`
    /// when the pipeline simplifies with a model (`--simplify llm`).
    pub(crate) fn prepare_local(
        &self,
        text: &str,
        label: Option<&Label>,
        repeat: u32,
    ) -> Option<Prepared> {
        let text = &*crate::phrase::nfc(text);
        let started = Instant::now();
        let simplified = match self.simplify {
            Simplify::None => vec![text.trim().to_string()],
            Simplify::Rules => sentences(text),
            Simplify::Llm => return None,
        };
        let simplify = timed(started, simplified);
        Some(self.prepare_simplified(text, label, repeat, simplify, None))
    }

    fn prepare_simplified(
        &self,
        text: &str,
        label: Option<&Label>,
        repeat: u32,
        simplify: Stage<Vec<String>>,
        simplify_error: Option<ProviderError>,
    ) -> Prepared {
        let joined = simplify.output.join("\n");

        let started = Instant::now();
        let view = PostView::new(&joined, label.map(|l| l.needed.as_slice()));
        let keys = view.lookup_phrases().map(|p| p.key.clone()).collect();
        let phrases = timed(started, keys);

        let started = Instant::now();
        // A failed retrieval leaves the post without entries and without a
        // model call; the error is the post's generate error.
        let (all, retrieve_error) = match self.retriever.retrieve(&view) {
            Ok(all) => (all, None),
            Err(err) => (Vec::new(), Some(err)),
        };
        let matches = best_per_entry(all.clone());
        // Each entry's matches, and who holds whom, found once: a long post
        // has thousands of matches and entries.
        let mut of_entry: HashMap<usize, Vec<&Match>> = HashMap::default();
        for m in &all {
            of_entry.entry(m.entry).or_default().push(m);
        }
        let of_entry = |entry: usize| of_entry.get(&entry).map_or(&[][..], Vec::as_slice);
        let longer = Longer::of(&all);
        let inside_entry: Vec<Option<usize>> = matches
            .iter()
            .map(|m| inside_other(&all, &longer, of_entry(m.entry)))
            .collect();
        let entries = &self.glossary.entries;
        let inside = inside_entry
            .iter()
            .map(|e| e.map(|e| entries[e].id.clone()))
            .collect();
        let written: Vec<bool> = matches
            .iter()
            // A match from no phrase (oracle, random) was not found in the text,
            // so it is no approximate match to look at again.
            .map(|m| m.words.is_none() || m.is_written(&self.glossary))
            .collect();
        // A term written only inside a longer one whose target conflicts
        // with its own is shown as part of it (docs/formats.md, `longest`).
        let part_of: Vec<Option<String>> = matches
            .iter()
            .zip(&inside_entry)
            .zip(&written)
            .map(|((m, outer), &written)| {
                let outer = &entries[(*outer)?];
                (written && !targets_agree(outer, &entries[m.entry])).then(|| outer.source.clone())
            })
            .collect();
        let used = matches
            .iter()
            .map(|m| self.used_entry(m, of_entry(m.entry), &view, &joined));
        let retrieve = timed(started, used.collect::<Vec<_>>());

        let started = Instant::now();
        let prompt = timed(started, self.prompt(&joined, &retrieve.output, &part_of));

        // Every match covers its words, not only each entry's best one.
        let uncovered = uncovered(&view, &all, &self.glossary);
        let unconfirmed = ambiguity::unconfirmed(&self.glossary, &view, &all);
        Prepared {
            trace: Trace {
                retriever: self.retriever_name.clone(),
                repeat,
                input: text.to_string(),
                simplify,
                phrases,
                retrieve,
                retrieve_error: retrieve_error.as_ref().map(ToString::to_string),
                prompt,
                generate: Stage::default(),
                labelled: None,
                review: Review::default(),
                turns: Vec::new(),
                invariants: Vec::new(),
            },
            text: joined,
            matches,
            inside,
            written,
            uncovered,
            unconfirmed,
            simplify_error,
            retrieve_error,
        }
    }

    /// A match as given to the model: the entry, the words it matched as
    /// written in `text`, and every place of it that retrieval kept.
    /// `mine` holds every match of `m`'s entry.
    fn used_entry(&self, m: &Match, mine: &[&Match], view: &PostView, text: &str) -> UsedEntry {
        let e = &self.glossary.entries[m.entry];
        let phrase = match m.words {
            Some((first, len)) => {
                text[view.words[first].start..view.words[first + len - 1].end].to_string()
            }
            None => e.source.clone(),
        };
        UsedEntry {
            entry: e.id.clone(),
            source: e.source.clone(),
            target: e.target.clone(),
            kind: m.kind,
            phrase,
            score: m.score,
            sense: e.sense.clone(),
            case_sensitive: e.case_sensitive,
            keep: e.keep,
            forms: e.forms.clone(),
            forbidden: e.forbidden.clone(),
            places: places(mine, view),
        }
    }

    /// The translate prompt for `text` with the entries retrieved;
    /// `part_of[i]` is the longer term `used[i]` is shown as part of.
    fn prompt(&self, text: &str, used: &[UsedEntry], part_of: &[Option<String>]) -> PromptOut {
        let g = &self.glossary;
        let lines: Vec<GlossaryLine> = used
            .iter()
            .zip(part_of)
            .map(|(u, part_of)| GlossaryLine {
                source: u.source.clone(),
                target: u.target.clone(),
                sense: u.sense.clone(),
                case_sensitive: u.case_sensitive,
                keep: u.keep,
                forbidden: u.forbidden.clone(),
                part_of: part_of.clone(),
            })
            .collect();
        let block = glossary_block(&lines, &g.forbidden);
        PromptOut {
            template: self.template.id(),
            text: self
                .template
                .render(text, &block, &g.source_lang, &g.target_lang),
        }
    }

    /// The model request for a prepared post. The offline provider's text
    /// is the post as given when the simplified text maps back into it
    /// (so its line breaks and spacing are kept), the simplified text
    /// otherwise (`--simplify llm`).
    pub(crate) fn request(&self, prepared: &Prepared) -> Request {
        let trace = &prepared.trace;
        let map = SourceMap::new(&trace.input, &trace.simplify.output);
        let (text, shift) = match &map {
            Some(map) => (trace.input[map.span()].to_string(), map.span().start),
            None => (prepared.text.clone(), 0),
        };
        let place = |r: &Range<usize>| {
            let r = map.as_ref().map_or(r.clone(), |map| map.range(r));
            r.start.saturating_sub(shift)..r.end.saturating_sub(shift)
        };
        Request {
            prompt: trace.prompt.output.text.clone(),
            text,
            substitutions: trace
                .retrieve
                .output
                .iter()
                .map(|u| Substitution {
                    phrase: u.phrase.clone(),
                    target: u.target.clone(),
                    places: (!u.places.is_empty()).then(|| u.places.iter().map(place).collect()),
                    case_sensitive: u.case_sensitive,
                    keep: u.keep,
                })
                .collect(),
            repeat: trace.repeat,
        }
    }

    /// The model call (none when simplification already failed).
    pub(crate) async fn generate(&self, prepared: &Prepared) -> Stage<Generation> {
        match (&prepared.simplify_error, &prepared.retrieve_error) {
            (Some(err), _) => timed(Instant::now(), self.failed(err, 0)),
            (None, Some(err)) => timed(Instant::now(), self.not_retrieved(err)),
            (None, None) => self.call(&self.request(prepared)).await,
        }
    }

    /// One model call (the first pass or a repair turn).
    async fn call(&self, request: &Request) -> Stage<Generation> {
        let started = Instant::now();
        let generation = match self.client.generate_counted(request).await {
            (Ok(reply), _) => Generation::from(reply),
            (Err(err), attempts) => self.failed(&err, attempts),
        };
        timed(started, generation)
    }

    /// Check the output of a prepared post (from [`Pipeline::generate`],
    /// or read from a batch results file) and assemble the trace.
    pub(crate) fn finish(
        &self,
        prepared: Prepared,
        label: Option<&Label>,
        generate: Stage<Generation>,
    ) -> Trace {
        self.finish_turns(prepared, label, generate, Vec::new())
    }

    /// [`Pipeline::finish`] for the last answered turn; `turns` is every
    /// turn when there were repairs.
    fn finish_turns(
        &self,
        prepared: Prepared,
        label: Option<&Label>,
        generate: Stage<Generation>,
        turns: Vec<Turn>,
    ) -> Trace {
        let output = generate.output.text.as_deref();
        // The last answered turn is a repair unless every repair failed.
        let repaired = turns
            .iter()
            .rev()
            .find(|t| t.output.is_some())
            .is_some_and(|t| t.template.is_some());
        let echo = self.echo(&prepared, &generate.output, repaired);
        let invariants = match (self.invariants, output) {
            (invariants::Mode::Off, _) | (_, None) => Vec::new(),
            (_, Some(out)) => {
                invariants::check(&prepared.trace.input, out, &self.glossary.target_lang)
            }
        };
        let labelled = label.map(|label| {
            let mut labelled = self.labelled(&prepared.matches, label, output);
            labelled.check = labelled.check.with_echo(echo.is_some());
            labelled.invariants_failed =
                self.invariants == invariants::Mode::Fail && !invariants.is_empty();
            labelled
        });
        let mut review = review(
            prepared.uncovered,
            prepared.unconfirmed,
            &prepared.inside,
            &prepared.written,
            &prepared.trace.retrieve.output,
            output,
        );
        review.echo = echo;
        if let Some(output) = output {
            let retrieved: Vec<usize> = prepared.matches.iter().map(|m| m.entry).collect();
            review.forbidden = self.forbidden(output, &retrieved);
        }
        Trace {
            generate,
            labelled,
            review,
            turns,
            invariants,
            ..prepared.trace
        }
    }

    /// What the output copied from the prompt. The offline provider is
    /// exempt: its output is the post with targets put in, by design. A
    /// repaired output must not copy the repair prompt either.
    fn echo(&self, prepared: &Prepared, generation: &Generation, repaired: bool) -> Option<Echo> {
        let output = generation.text.as_deref()?;
        if super::provider::is_offline(&generation.provider) || generation.provider == EXISTING {
            return None;
        }
        let g = &self.glossary;
        let mut fixed = fixed_text(&self.template.body, &g.source_lang, &g.target_lang);
        if repaired {
            fixed.extend(repair::fixed_text(&g.source_lang, &g.target_lang));
        }
        let fixed: Vec<&str> = fixed.iter().map(String::as_str).collect();
        let lines: Vec<EchoLine> = prepared
            .trace
            .retrieve
            .output
            .iter()
            .map(|u| EchoLine {
                source: &u.source,
                phrase: &u.phrase,
                target: &u.target,
                sense: u.sense.as_deref(),
            })
            .collect();
        EchoCheck::new(&fixed, &lines, &prepared.text).find(output)
    }

    /// The labelled side: the retrieval group, the output check, and the
    /// wrong-sense entries retrieved and used.
    fn labelled(&self, matches: &[Match], label: &Label, output: Option<&str>) -> Labelled {
        let g = &self.glossary;
        let score = PostScore::new(matches.iter().map(|m| m.entry).collect(), label);
        let group = if !score.missed.is_empty() {
            Group::Missed
        } else if !score.wrong_sense.is_empty() {
            Group::WrongSense
        } else {
            Group::Complete
        };
        let target = |&e: &usize| Target {
            id: &g.entries[e].id,
            text: &g.entries[e].target,
            forms: &g.entries[e].forms,
            exact_case: g.entries[e].case_sensitive,
        };
        let needed: Vec<Target> = label.needed.iter().map(target).collect();
        let wrong: Vec<Target> = label.wrong_sense.iter().map(target).collect();
        let verdict = match output {
            Some(out) => {
                // The entries that apply to the post: retrieved or needed,
                // not a wrong sense.
                // (A set: a long post matches thousands of entries.)
                let wrong_sense: HashSet<usize> = label.wrong_sense.iter().copied().collect();
                let mut seen: HashSet<usize> = HashSet::default();
                let applying: Vec<usize> = matches
                    .iter()
                    .map(|m| m.entry)
                    .chain(label.needed.iter().copied())
                    .filter(|e| !wrong_sense.contains(e) && seen.insert(*e))
                    .collect();
                let forbidden = self.forbidden(out, &applying);
                self.check
                    .check(out, &needed, &wrong)
                    .with_forbidden(forbidden)
            }
            // No output: everything needed is missing.
            None => Verdict {
                missing: needed.iter().map(|t| t.id.to_string()).collect(),
                ..Verdict::default()
            },
        };
        let wrong_sense_retrieved: Vec<String> = score
            .wrong_sense
            .iter()
            .map(|&e| g.entries[e].id.clone())
            .collect();
        let wrong_sense_used = score
            .wrong_sense
            .iter()
            .filter(|&&e| output.is_some_and(|o| self.check.stands(o, &target(&e))))
            .map(|&e| g.entries[e].id.clone())
            .collect();
        Labelled {
            group,
            check: verdict,
            wrong_sense_retrieved,
            wrong_sense_used,
            invariants_failed: false,
        }
    }

    /// The forbidden terms of `entries` (indexes) and the glossary-wide
    /// ones standing in `output`, outside the places of those entries'
    /// targets and forms.
    fn forbidden(&self, output: &str, entries: &[usize]) -> Vec<Forbidden> {
        let g = &self.glossary;
        let mut forbids: Vec<Forbids> = entries
            .iter()
            .map(|&e| &g.entries[e])
            .filter(|e| !e.forbidden.is_empty())
            .map(|e| Forbids {
                entry: Some(&e.id),
                terms: &e.forbidden,
            })
            .collect();
        if !g.forbidden.is_empty() {
            forbids.push(Forbids {
                entry: None,
                terms: &g.forbidden,
            });
        }
        if forbids.is_empty() {
            return Vec::new();
        }
        let asked: Vec<Target> = entries
            .iter()
            .map(|&e| Target {
                id: &g.entries[e].id,
                text: &g.entries[e].target,
                forms: &g.entries[e].forms,
                exact_case: g.entries[e].case_sensitive,
            })
            .collect();
        forbidden_in(&Haystack::new(output), &forbids, &asked)
    }

    async fn simplify(&self, text: &str, repeat: u32) -> (Vec<String>, Option<ProviderError>) {
        match self.simplify {
            Simplify::None => (vec![text.trim().to_string()], None),
            Simplify::Rules => (sentences(text), None),
            Simplify::Llm => {
                let request = Request {
                    prompt: self.simplify_template.render(
                        text,
                        "",
                        &self.glossary.source_lang,
                        &self.glossary.target_lang,
                    ),
                    text: text.to_string(),
                    substitutions: Vec::new(),
                    repeat,
                };
                match self.client.generate(&request).await {
                    Ok(reply) => (sentences_from_reply(&reply.text), None),
                    // Fall back to the rules so the trace still shows something.
                    Err(err) => (sentences(text), Some(err)),
                }
            }
        }
    }

    /// The generate stage of a post whose retrieval failed: no call made,
    /// the retriever's error as the call's.
    fn not_retrieved(&self, err: &RetrieveError) -> Generation {
        let first = self.client.providers().first();
        Generation {
            provider: first.map(|p| p.name().to_string()).unwrap_or_default(),
            model: first.map(|p| p.model().to_string()).unwrap_or_default(),
            text: None,
            partial_output: None,
            attempts: 0,
            cached: false,
            stops_run: false,
            same_for_every_call: false,
            error: Some(err.to_string()),
            meta: ReplyMeta::default(),
        }
    }

    fn failed(&self, err: &ProviderError, attempts: u32) -> Generation {
        let first = self.client.providers().first();
        let reply = err.reply();
        Generation {
            provider: first.map(|p| p.name().to_string()).unwrap_or_default(),
            model: first.map(|p| p.model().to_string()).unwrap_or_default(),
            text: None,
            partial_output: reply.and_then(|r| partial(&r.text)),
            attempts,
            cached: false,
            stops_run: err.stops_run(),
            same_for_every_call: err.same_for_every_call(),
            error: Some(err.to_string()),
            meta: reply
                .map(|r| ReplyMeta {
                    think: false,
                    ..r.meta.clone()
                })
                .unwrap_or_default(),
        }
    }
}

/// The text of a refused reply, kept when there is any.
pub(crate) fn partial(text: &str) -> Option<String> {
    (!text.trim().is_empty()).then(|| text.to_string())
}

/// Byte ranges of every place where `entry` matched, in text order.
fn places(mine: &[&Match], view: &PostView) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = mine
        .iter()
        .filter_map(|m| m.words)
        .map(|(first, len)| view.words[first].start..view.words[first + len - 1].end)
        .collect();
    out.sort_by_key(|r| (r.start, r.end));
    out.dedup();
    out
}

/// Content words no match covered, each once, in order; a word that is an
/// entry's key is not one (a filter dropped it here: "save the date").
fn uncovered(view: &PostView, matches: &[Match], glossary: &Glossary) -> Vec<String> {
    let mut covered = vec![false; view.words.len()];
    for m in matches {
        if let Some((first, len)) = m.words {
            covered[first..first + len]
                .iter_mut()
                .for_each(|c| *c = true);
        }
    }
    let mut uncovered: Vec<String> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::default();
    for (i, w) in view.words.iter().enumerate() {
        if !covered[i]
            && crate::phrase::is_lookup_word(&w.text)
            && !seen.contains(w.text.as_str())
            && !glossary.has_key(&w.text)
        {
            seen.insert(&w.text);
            uncovered.push(w.text.to_string());
        }
    }
    uncovered
}

/// For an entry, another entry whose longer match holds every place where
/// this one matched ("cream" only inside "ice cream"), the longest such:
/// where its target is missing from a translation, the longer term chose
/// the words. An entry that also matched elsewhere gets `None`.
fn inside_other(all: &[Match], longer: &Longer, mine: &[&Match]) -> Option<usize> {
    let mut covering: Option<(usize, usize)> = None; // (entry, words)
    for m in mine {
        m.words?;
        // The longest other entry's match holding this one, the last in
        // `all` among equally long ones.
        let (other, words) = longer
            .holding(m)
            .filter(|&o| all[o].entry != m.entry)
            .filter_map(|o| Some((o, all[o].words?.1)))
            .max_by_key(|&(o, l)| (l, o))
            .map(|(o, l)| (all[o].entry, l))?;
        if covering.is_none_or(|(_, l)| words > l) {
            covering = Some((other, words));
        }
    }
    covering.map(|(e, _)| e)
}

/// `inside[i]` is [`inside_other`] for `used[i]`, `written[i]` whether it
/// matched as written.
fn review(
    uncovered: Vec<String>,
    unconfirmed: Vec<Unconfirmed>,
    inside: &[Option<String>],
    written: &[bool],
    used: &[UsedEntry],
    output: Option<&str>,
) -> Review {
    // One pass over the output for every target and form, not one each.
    let spellings = spellings(used);
    let mut in_output = vec![false; used.len()];
    if let Some(output) = output {
        let needles: Vec<&str> = spellings.iter().map(|&(_, s)| s).collect();
        let cased: Vec<bool> = spellings
            .iter()
            .map(|&(i, _)| used[i].case_sensitive)
            .collect();
        let stands = Haystack::new(output).standing_cased(&needles, &cased);
        for (&(i, _), stands) in spellings.iter().zip(stands) {
            in_output[i] |= stands;
        }
    }
    Review {
        uncovered,
        not_exact: used
            .iter()
            .zip(written)
            .filter(|(_, &written)| !written)
            .map(|(u, _)| u.entry.clone())
            .collect(),
        targets: used
            .iter()
            .enumerate()
            .map(|(i, u)| TargetUse {
                entry: u.entry.clone(),
                target: u.target.clone(),
                in_output: in_output[i],
                inside: inside.get(i).cloned().flatten(),
            })
            .collect(),
        unconfirmed,
        echo: None,
        forbidden: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::provider::{self, Settings};
    use crate::generate::retry::RetryPolicy;
    use crate::retrieve::{build, Params};

    fn cafe_offline(simplify: Simplify) -> Pipeline {
        let glossary =
            Arc::new(Glossary::load(std::path::Path::new("glossaries/cafe.json")).unwrap());
        let retriever = build(crate::retrieve::RECOMMENDED, &glossary, &Params::default()).unwrap();
        let offline = provider::build("offline", &Settings::default()).unwrap();
        Pipeline {
            glossary,
            retriever_name: crate::retrieve::RECOMMENDED.into(),
            retriever: Arc::from(retriever),
            template: Template::builtin("translate.v1"),
            simplify,
            simplify_template: Template::builtin("simplify.v1"),
            client: Arc::new(Client::new(vec![offline], RetryPolicy::default(), None)),
            check: Checker::default(),
            repair: 0,
            invariants: Default::default(),
        }
    }

    /// What the offline provider is asked: its text, and per target the
    /// words at its places.
    fn asked(request: &Request) -> (String, Vec<(String, Vec<String>)>) {
        let places = request
            .substitutions
            .iter()
            .map(|s| {
                let at = s.places.as_ref().unwrap();
                let words = at.iter().map(|r| request.text[r.clone()].to_string());
                (s.target.clone(), words.collect())
            })
            .collect();
        (request.text.clone(), places)
    }

    #[test]
    fn the_offline_request_is_the_post_with_the_places_retrieval_kept() {
        let p = cafe_offline(Simplify::Rules);
        let post = "  Save the date!\n\nSticky date loaf, date night.  Cookies! \n";
        let prepared = p.prepare_local(post, None, 1).unwrap();
        assert_eq!(
            prepared.text,
            "Save the date!\nSticky date loaf, date night.\nCookies!"
        );
        let (text, places) = asked(&p.request(&prepared));
        assert_eq!(text, post.trim());
        assert_eq!(
            places,
            [
                ("dorpa".to_string(), vec!["Cookies".to_string()]),
                ("zimbo".to_string(), vec!["date".to_string()])
            ]
        );
        let loaf = text.find("date loaf").unwrap();
        let date = &p.request(&prepared).substitutions[1];
        let kept: Vec<Range<usize>> = std::iter::once(loaf..loaf + 4).collect();
        assert_eq!(date.places, Some(kept));
    }

    /// The demo's prompts are byte for byte what they were before
    /// forbidden terms existed (so are their cache keys): a glossary
    /// without any adds nothing to the block.
    #[test]
    fn the_demo_prompt_is_unchanged_by_forbidden_terms() {
        let p = cafe_offline(Simplify::Rules);
        let prepared = p
            .prepare_local("Sticky date loaf and cold coffee.", None, 1)
            .unwrap();
        let want = "Translate the English text below into x-cafe.\n\n\
            Glossary: use each glossary word exactly as it is given here, for the meaning given, \
            and do not translate it in any other way. If a glossary word does not fit the text, \
            leave it out.\n\n\
            - cold coffee → frosk mavi\n\
            - coffee → mavi\n\
            - date → zimbo (meaning: the sweet brown fruit of the date palm)\n\n\
            English text:\nSticky date loaf and cold coffee.\n\n\
            Reply with the translation only, one sentence per line, with no notes or explanations.\n";
        assert_eq!(prepared.trace.prompt.output.text, want);

        // With forbidden terms, the entry's line and a last line say so.
        let mut g = (*p.glossary).clone();
        g.entries[3].forbidden = vec!["datum".into(), "dadel".into()];
        g.forbidden = vec!["kofi".into()];
        let p = Pipeline {
            glossary: Arc::new(g),
            ..p
        };
        let prepared = p
            .prepare_local("Sticky date loaf and cold coffee.", None, 1)
            .unwrap();
        let text = &prepared.trace.prompt.output.text;
        assert!(
            text.contains(
                "- date → zimbo (meaning: the sweet brown fruit of the date palm) (never: datum, dadel)\n\
                 - never write: kofi\n\nEnglish text:"
            ),
            "{text}"
        );
    }

    /// A retriever that asks a service which does not answer.
    struct Unanswered;

    impl Retriever for Unanswered {
        fn retrieve(&self, _: &PostView) -> Result<Vec<Match>, RetrieveError> {
            Err(RetrieveError {
                retriever: "unanswered".into(),
                message: "the lemmatizer at 127.0.0.1:9 refused the connection".into(),
            })
        }
    }

    /// A failed retrieval is the post's error, with no model call and no
    /// entries: the trace keeps what was done (the simplified text, the
    /// phrases) and says which retriever failed and why.
    #[test]
    fn a_failed_retrieval_is_recorded_as_the_posts_error() {
        let p = Pipeline {
            retriever: Arc::new(Unanswered),
            retriever_name: "unanswered".into(),
            ..cafe_offline(Simplify::Rules)
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let trace = runtime.block_on(p.run("Fresh cookies today.", None, 1));
        let generation = &trace.generate.output;
        assert_eq!(generation.text, None);
        assert_eq!(generation.attempts, 0, "no model call");
        assert_eq!(
            generation.error.as_deref(),
            Some(
                "retriever `unanswered` failed: the lemmatizer at 127.0.0.1:9 refused the connection"
            )
        );
        assert!(trace.retrieve.output.is_empty());
        assert_eq!(trace.retrieve_error, generation.error);
        assert_eq!(trace.simplify.output, ["Fresh cookies today."]);
        assert!(trace.phrases.output.contains(&"cookies".to_string()));
    }

    /// The offline provider writes each entry's target where its words
    /// were, never one of its forbidden terms: a loanword the glossary
    /// forbids ("cookie" for "dorpa") is gone from its output; one left
    /// untranslated where no entry matched is reported.
    #[test]
    fn the_offline_provider_writes_targets_not_forbidden_terms() {
        let p = cafe_offline(Simplify::Rules);
        let mut g = (*p.glossary).clone();
        let cookie = g.index_of("cookie").unwrap();
        g.entries[cookie].forbidden = vec!["cookie".into(), "cookies".into(), "Keks".into()];
        g.forbidden = vec!["latte".into()];
        let p = Pipeline {
            glossary: Arc::new(g),
            ..p
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let trace = runtime.block_on(p.run("Fresh cookies! Cookie of the day.", None, 1));
        let output = trace.generate.output.text.as_deref().unwrap();
        assert_eq!(output, "Fresh dorpa! Dorpa of the day.");
        assert!(
            trace.review.forbidden.is_empty(),
            "{:?}",
            trace.review.forbidden
        );
        let trace = runtime.block_on(p.run("Cookies and a latte.", None, 1));
        assert_eq!(
            trace.generate.output.text.as_deref(),
            Some("Dorpa and a latte.")
        );
        let found: Vec<(Option<&str>, &str, Range<usize>)> = trace
            .review
            .forbidden
            .iter()
            .map(|f| (f.entry.as_deref(), f.term.as_str(), f.at.clone()))
            .collect();
        assert_eq!(found, [(None, "latte", 12..17)]);
    }

    #[test]
    fn a_rewritten_text_is_substituted_as_simplified() {
        // A model's simplification is no slice of the post: the offline
        // provider then writes into the simplified text.
        let p = cafe_offline(Simplify::Llm);
        let post = "Our sticky date loaf is back";
        let simplified = Stage {
            ms: 0.0,
            output: vec!["The sticky date loaf is back.".to_string()],
        };
        let prepared = p.prepare_simplified(post, None, 1, simplified, None);
        let (text, places) = asked(&p.request(&prepared));
        assert_eq!(text, "The sticky date loaf is back.");
        assert_eq!(places, [("zimbo".to_string(), vec!["date".to_string()])]);
    }
}
