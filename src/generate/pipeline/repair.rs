//! Check-and-repair (docs/formats.md, "Repair turns"): when the output
//! check finds a problem, one follow-up turn (`prompts/repair.v1.md`)
//! shows the model its prompt, its reply and the exact problems, and the
//! new reply is checked again; up to `--repair N` turns.
//!
//! The problems are what glossa knows without labels, the same in `run`
//! as in `translate`: a retrieved target missing from the output, a target
//! used where the glossary's own `context.not` says its sense does not
//! fit, a forbidden term, an echo. Labels never reach a repair prompt, so a needed entry
//! that retrieval missed stays missed and retrievers stay comparable after
//! repair.

use super::{review, Generation, Pipeline, Prepared, Stage};
use crate::dataset::Label;
use crate::generate::check::Verdict;
use crate::generate::echo;
use crate::generate::prompt::{PromptId, Template};
use crate::generate::provider::{is_offline, Request};
use crate::generate::reply::ReplyMeta;
use crate::target_match::{within, Haystack};
use serde::{Deserialize, Serialize};

/// `glossa run` makes no repair unless told: the study's figures stay a
/// first-pass measurement.
pub const DEFAULT_REPAIR_RUN: u32 = 0;
/// `glossa translate` and the page repair once.
pub const DEFAULT_REPAIR_TRANSLATE: u32 = 1;

/// The built-in repair prompt.
const TEMPLATE: &str = "repair.v1";

/// One turn of a post with repairs: the first pass, or a repair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The repair prompt's template; absent for the first pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) template: Option<PromptId>,
    /// The repair prompt as sent (in a trace; run records leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) prompt: Option<String>,
    /// The reply; `null` when the call failed.
    pub(crate) output: Option<String>,
    /// Why the call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
    /// What the check found wrong with the reply, as the next turn names
    /// it; empty when nothing was.
    pub(crate) problems: Vec<String>,
    /// The labelled check of the reply (labelled posts only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) check: Option<Verdict>,
    pub(crate) cached: bool,
    pub(crate) ms: f64,
    /// Finish reason, served model, usage of this turn's call.
    #[serde(flatten)]
    pub(crate) meta: ReplyMeta,
}

/// The repair template's text outside the prompt, reply and problems, with
/// the languages filled in: what a repaired reply must not copy.
pub(super) fn fixed_text(source_lang: &str, target_lang: &str) -> Vec<String> {
    let body = Template::builtin(TEMPLATE).body;
    let mut parts = vec![body];
    for placeholder in ["{{prompt}}", "{{output}}", "{{problems}}"] {
        parts = parts
            .iter()
            .flat_map(|p| p.split(placeholder).map(str::to_string).collect::<Vec<_>>())
            .collect();
    }
    parts
        .iter()
        .flat_map(|p| echo::fixed_text(p, source_lang, target_lang))
        .collect()
}

/// `body` with each `{{name}}` replaced by its value in one pass, so a
/// value that holds a placeholder (a reply quoting `{{text}}`) stays as it is.
fn render(body: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let value = after.find("}}").and_then(|end| {
            let name = after[..end].trim();
            let (_, value) = values.iter().find(|(n, _)| *n == name)?;
            Some((value, end))
        });
        match value {
            Some((value, end)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

impl Pipeline {
    /// Up to `self.repair` repair turns after `first`: the last answered
    /// generation (its `ms` the time of every turn) and every turn, or no
    /// turns when the first pass had no problem (or came from the offline
    /// provider, which takes no instructions, or failed).
    pub(super) async fn repaired(
        &self,
        prepared: &Prepared,
        label: Option<&Label>,
        first: Stage<Generation>,
    ) -> (Stage<Generation>, Vec<Turn>) {
        if self.repair == 0 || is_offline(&first.output.provider) {
            return (first, Vec::new());
        }
        let mut current = first;
        let mut turns: Vec<Turn> = Vec::new();
        let mut sent: Option<String> = None;
        let mut total_ms = current.ms;
        for _ in 0..self.repair {
            let Some(output) = current.output.text.clone() else {
                break;
            };
            let problems = self.problems(prepared, &current.output, sent.is_some());
            if problems.is_empty() {
                break;
            }
            let request = self.repair_request(prepared, &output, &problems);
            turns.push(self.turn(prepared, label, &current, sent.take(), problems));
            let next = self.call(&request).await;
            total_ms += next.ms;
            if next.output.text.is_none() {
                // A failed repair keeps the last reply; the turn says why.
                turns.push(self.turn(prepared, label, &next, Some(request.prompt), Vec::new()));
                current.ms = total_ms;
                return (current, turns);
            }
            current = next;
            sent = Some(request.prompt);
        }
        if !turns.is_empty() {
            let problems = self.problems(prepared, &current.output, true);
            turns.push(self.turn(prepared, label, &current, sent, problems));
        }
        current.ms = total_ms;
        (current, turns)
    }

    /// A turn's record; `prompt` is the repair prompt that asked for it.
    fn turn(
        &self,
        prepared: &Prepared,
        label: Option<&Label>,
        generation: &Stage<Generation>,
        prompt: Option<String>,
        problems: Vec<String>,
    ) -> Turn {
        let g = &generation.output;
        let repaired = prompt.is_some();
        let check = label.map(|label| {
            let output = g.text.as_deref();
            let echo = self.echo(prepared, g, repaired).is_some();
            let labelled = self.labelled(&prepared.matches, label, output);
            labelled.check.with_echo(echo)
        });
        Turn {
            template: repaired.then(|| Template::builtin(TEMPLATE).id()),
            prompt,
            output: g.text.clone(),
            error: g.error.clone(),
            problems,
            check,
            cached: g.cached,
            ms: generation.ms,
            meta: g.meta.clone(),
        }
    }

    /// The repair request: the first request with the repair prompt.
    fn repair_request(&self, prepared: &Prepared, output: &str, problems: &[String]) -> Request {
        let g = &self.glossary;
        let listed: Vec<String> = problems.iter().map(|p| format!("- {p}")).collect();
        let (source_lang, target_lang) =
            crate::language::prompt_names(&g.source_lang, &g.target_lang);
        let prompt = render(
            &Template::builtin(TEMPLATE).body,
            &[
                ("prompt", &prepared.trace.prompt.output.text),
                ("output", output.trim()),
                ("problems", &listed.join("\n")),
                ("target_lang", &target_lang),
                ("source_lang", &source_lang),
            ],
        );
        Request {
            prompt,
            ..self.request(prepared)
        }
    }

    /// What the check finds wrong with a reply without labels, each as
    /// the repair prompt names it; empty when nothing is.
    pub(super) fn problems(
        &self,
        prepared: &Prepared,
        generation: &Generation,
        repaired: bool,
    ) -> Vec<String> {
        let Some(output) = generation.text.as_deref() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(echo) = self.echo(prepared, generation, repaired) {
            out.push(format!(
                "your reply copied {} (\"{}\") instead of translating; reply with the translation only",
                echo.what(),
                echo.copied()
            ));
        }
        let used = &prepared.trace.retrieve.output;
        let review = review(
            Vec::new(),
            Vec::new(),
            &prepared.inside,
            &prepared.written,
            used,
            Some(output),
        );
        let post = Haystack::new(&prepared.text);
        for (u, t) in used.iter().zip(&review.targets) {
            match self.excluded_by(&post, &u.entry, &u.phrase) {
                Some(not) if t.in_output => out.push(match &u.sense {
                    Some(sense) => {
                        format!("'{}' is {sense} and does not fit '{not}' here", u.target)
                    }
                    None => format!("'{}' does not fit '{not}' here", u.target),
                }),
                Some(_) => {}
                None if !t.in_output && review.inside_used(t).is_none() && u.keep => {
                    out.push(format!(
                        "the glossary says to keep '{}' as written, untranslated{}",
                        u.target,
                        if u.case_sensitive {
                            ", with its capitals"
                        } else {
                            ""
                        }
                    ))
                }
                None if !t.in_output && review.inside_used(t).is_none() && u.case_sensitive => out
                    .push(format!(
                        "the glossary requires '{}', written with exactly these capitals, for '{}'",
                        u.target, u.phrase
                    )),
                None if !t.in_output && review.inside_used(t).is_none() => {
                    out.push(match &u.sense {
                        Some(sense) => format!(
                            "the glossary requires '{}' for '{}' where it means {sense}",
                            u.target, u.phrase
                        ),
                        None => format!("the glossary requires '{}' for '{}'", u.target, u.phrase),
                    })
                }
                None => {}
            }
        }
        let retrieved: Vec<usize> = prepared.matches.iter().map(|m| m.entry).collect();
        let mut named: Vec<(Option<&str>, &str)> = Vec::new();
        let forbidden = self.forbidden(output, &retrieved);
        for f in &forbidden {
            let key = (f.entry.as_deref(), f.term.as_str());
            if named.contains(&key) {
                continue;
            }
            named.push(key);
            let asked = f
                .entry
                .as_deref()
                .and_then(|id| used.iter().find(|u| u.entry == id));
            out.push(match asked {
                Some(u) => format!(
                    "the glossary forbids '{}'; write '{}' for '{}'",
                    f.term, u.target, u.phrase
                ),
                None => format!("the glossary forbids '{}' in any translation", f.term),
            });
        }
        out
    }

    /// The `context.not` phrase of entry `id` that holds every place where
    /// `phrase` stands in the post: the glossary itself says the entry's
    /// sense does not fit there.
    fn excluded_by(&self, post: &Haystack, id: &str, phrase: &str) -> Option<String> {
        let entry = self.glossary.entries.iter().find(|e| e.id == id)?;
        let nots = &entry.context.as_ref()?.not;
        let places = post.find(phrase);
        if places.is_empty() {
            return None;
        }
        let holders: Vec<(&String, Vec<std::ops::Range<usize>>)> =
            nots.iter().map(|n| (n, post.find(n))).collect();
        let held = |p: &std::ops::Range<usize>| {
            holders
                .iter()
                .find(|(_, hs)| hs.iter().any(|h| within(p, h)))
                .map(|(n, _)| (*n).clone())
        };
        let first = held(&places[0])?;
        places.iter().all(|p| held(p).is_some()).then_some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_fills_each_placeholder_once() {
        let out = render(
            "{{prompt}}|{{output}}|{{nope}}",
            &[("prompt", "P {{output}}"), ("output", "O")],
        );
        assert_eq!(out, "P {{output}}|O|{{nope}}");
    }

    #[test]
    fn the_repair_template_leaves_out_what_it_quotes() {
        let fixed = fixed_text("en", "de").join("|");
        assert!(fixed.contains("Your reply was:"), "{fixed}");
        assert!(fixed.contains("translation into German only"), "{fixed}");
        assert!(!fixed.contains("{{"), "{fixed}");
    }
}
