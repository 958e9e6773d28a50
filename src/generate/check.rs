//! The generation check (docs/formats.md, "Generation check"): every needed
//! entry's target (or one of its forms) must stand in the output, and no
//! wrong-sense entry's target or form may. Where a target "stands" is
//! [`crate::target_match`]'s rule (case-insensitive; word boundaries only for ends
//! in scripts written with spaces).
//!
//! By default ([`CheckMode::Shared`]) a needed target counts wherever it
//! stands, also inside another needed target's place, and one place serves
//! every needed entry with that target: "länger erkrankte" inside "zwei
//! bereits länger erkrankte erwachsene Patienten" counts for both entries.
//! [`CheckMode::Strict`] asks each needed entry for a place of its own.
//! [`CheckMode::Stem`] counts like `Shared` and also accepts a run of words
//! that stem like a spelling's words ([`super::target_stem`]); entries found only
//! that way are listed in the verdict's `by_stem`.
//!
//! In both modes a wrong-sense target standing only inside a needed
//! target's place does not leak: "mavi" inside a needed "frosk mavi" is
//! part of that term, not a wrong-sense "mavi".
//!
//! Forbidden terms ([`forbidden_in`]): an entry's `forbidden` terms, and
//! the glossary's top-level `forbidden` words, must not stand in the
//! output, by the same rule; one standing only inside the place of a
//! target or form the glossary asked for (the entry's own or another's)
//! is part of that term and does not count.

use super::target_stem::{NoStemmer, StemmedWords, TargetStemmer};
use crate::target_match::{Claimed, Haystack};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Range;

/// Which targets were missing and which leaked, by entry id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub(crate) missing: Vec<String>,
    pub(crate) leaked: Vec<String>,
    /// Every needed target was there and nothing leaked.
    pub(crate) ok: bool,
    /// Needed entries found only through stems (`--check stem`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) by_stem: Vec<String>,
    /// The reply copied the prompt instead of translating
    /// ([`super::echo`]): never ok. Absent (false) in records written
    /// before echoes were checked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) echo: bool,
    /// How each needed entry that stands was written: the words at its
    /// first place, folded as targets are compared (lower case, NFC). The
    /// term figures count needed terms and consistency from it
    /// (docs/formats.md, "Term figures"). Absent in records written before.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) rendered: BTreeMap<String, String>,
    /// Forbidden terms standing in the output ([`forbidden_in`]): never
    /// ok. Absent (empty) in records written before they were checked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) forbidden: Vec<Forbidden>,
}

impl Verdict {
    /// The verdict with the forbidden terms found: any makes it not ok.
    pub(crate) fn with_forbidden(mut self, forbidden: Vec<Forbidden>) -> Verdict {
        self.ok &= forbidden.is_empty();
        self.forbidden = forbidden;
        self
    }

    /// The verdict with the echo check's result: an echo is never ok.
    pub(crate) fn with_echo(mut self, echo: bool) -> Verdict {
        self.echo = echo;
        self.ok &= !echo;
        self
    }
}

/// How needed targets that share or nest places are counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckMode {
    /// A target counts wherever it stands; one place serves every entry.
    #[default]
    Shared,
    /// Each needed entry needs a place no other needed entry took (longest
    /// targets choose first).
    Strict,
    /// As `Shared`, and a run of words stemming like the target's counts.
    Stem,
}

impl CheckMode {
    const ALL: [CheckMode; 3] = [CheckMode::Shared, CheckMode::Strict, CheckMode::Stem];

    /// The name `--check` takes.
    pub(crate) fn name(self) -> &'static str {
        match self {
            CheckMode::Shared => "shared",
            CheckMode::Strict => "strict",
            CheckMode::Stem => "stem",
        }
    }

    pub(crate) fn is_default(&self) -> bool {
        *self == CheckMode::default()
    }
}

impl std::str::FromStr for CheckMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let names = || CheckMode::ALL.map(CheckMode::name).join(", ");
        CheckMode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| format!("unknown check `{s}`; checks: {}", names()))
    }
}

/// One glossary entry's accepted spellings.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub(crate) id: &'a str,
    pub(crate) text: &'a str,
    /// Other accepted spellings and inflections (the entry's `forms`).
    pub(crate) forms: &'a [String],
    /// A case-sensitive entry's spellings count only with their case.
    pub(crate) exact_case: bool,
}

impl Target<'_> {
    fn spellings(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.text).chain(self.forms.iter().map(String::as_str))
    }

    /// Every place any spelling stands, in text order.
    fn places(&self, text: &Haystack) -> Vec<Range<usize>> {
        let mut out: Vec<Range<usize>> = self
            .spellings()
            .flat_map(|s| text.find_cased(s, self.exact_case))
            .collect();
        out.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
        out
    }

    /// Places where a spelling's words stand stemmed.
    fn stemmed_places(&self, stemmer: &TargetStemmer, words: &StemmedWords) -> Vec<Range<usize>> {
        self.spellings()
            .flat_map(|s| stemmer.places(words, s))
            .collect()
    }

    /// Length of the longest spelling, in characters.
    fn longest(&self) -> usize {
        self.spellings()
            .map(|s| s.trim().chars().count())
            .max()
            .unwrap_or(0)
    }
}

/// The output check with its settings.
#[derive(Default)]
pub struct Checker {
    mode: CheckMode,
    /// For [`CheckMode::Stem`]: the target language's stemmer.
    stemmer: Option<TargetStemmer>,
}

impl Checker {
    /// A checker for outputs in `target_lang` (only `stem` needs it).
    pub fn new(mode: CheckMode, target_lang: &str) -> Result<Checker, NoStemmer> {
        let stemmer = match mode {
            CheckMode::Stem => Some(TargetStemmer::for_language(target_lang)?),
            _ => None,
        };
        Ok(Checker { mode, stemmer })
    }

    /// Check `output` against the needed and wrong-sense targets.
    pub(crate) fn check(&self, output: &str, needed: &[Target], wrong_sense: &[Target]) -> Verdict {
        let text = Haystack::new(output);
        let words = self.stemmer.as_ref().map(|s| s.words(output));
        let places = |t: &Target| self.places(t, &text, words.as_ref());
        let (found, stemmed): (Vec<Vec<Range<usize>>>, Vec<bool>) =
            needed.iter().map(places).unzip();
        let missing: Vec<String> = match self.mode {
            CheckMode::Shared | CheckMode::Stem => needed
                .iter()
                .zip(&found)
                .filter(|(_, places)| places.is_empty())
                .map(|(t, _)| t.id.to_string())
                .collect(),
            CheckMode::Strict => missing_strictly(needed, &found),
        };
        let needed_places = Holding::of(found.iter().flatten());
        let leaked: Vec<String> = wrong_sense
            .iter()
            .filter(|t| places(t).0.iter().any(|p| !needed_places.holds(p)))
            .map(|t| t.id.to_string())
            .collect();
        let by_stem = needed
            .iter()
            .zip(stemmed)
            .filter(|(_, stemmed)| *stemmed)
            .map(|(t, _)| t.id.to_string())
            .collect();
        let rendered = needed
            .iter()
            .zip(&found)
            .filter(|(t, _)| !missing.iter().any(|m| m == t.id))
            .filter_map(|(t, places)| {
                let first = places
                    .iter()
                    .min_by_key(|p| (p.start, std::cmp::Reverse(p.end)))?;
                Some((
                    t.id.to_string(),
                    crate::target_match::fold(&output[first.clone()]),
                ))
            })
            .collect();
        let ok = missing.is_empty() && leaked.is_empty();
        Verdict {
            missing,
            leaked,
            ok,
            by_stem,
            echo: false,
            rendered,
            forbidden: Vec::new(),
        }
    }

    /// Whether `t` stands anywhere in `output` (stems included in `stem`
    /// mode).
    pub(crate) fn stands(&self, output: &str, t: &Target) -> bool {
        let words = self.stemmer.as_ref().map(|s| s.words(output));
        !self
            .places(t, &Haystack::new(output), words.as_ref())
            .0
            .is_empty()
    }

    /// Where `t` stands in the output, and whether only through stems
    /// (tried only when no spelling stands as written).
    fn places(
        &self,
        t: &Target,
        text: &Haystack,
        words: Option<&StemmedWords>,
    ) -> (Vec<Range<usize>>, bool) {
        let written = t.places(text);
        match (&self.stemmer, words) {
            // Stems have no case: a case-sensitive target counts as written.
            (Some(stemmer), Some(words)) if written.is_empty() && !t.exact_case => {
                let stemmed = t.stemmed_places(stemmer, words);
                let by_stem = !stemmed.is_empty();
                (stemmed, by_stem)
            }
            _ => (written, false),
        }
    }
}

/// Check `output` against the needed and wrong-sense targets (the default
/// [`CheckMode::Shared`]).
pub fn check(output: &str, needed: &[Target], wrong_sense: &[Target]) -> Verdict {
    Checker::default().check(output, needed, wrong_sense)
}

/// Ids of needed entries left without a place of their own: the longest
/// targets choose first, each the first place no chosen one overlaps.
fn missing_strictly(needed: &[Target], found: &[Vec<Range<usize>>]) -> Vec<String> {
    let mut order: Vec<usize> = (0..needed.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(needed[i].longest()));
    let mut claimed = Claimed::default();
    let mut missing = vec![false; needed.len()];
    for i in order {
        match found[i].iter().find(|p| !claimed.overlaps(p)) {
            Some(p) => {
                claimed.claim(p);
            }
            None => missing[i] = true,
        }
    }
    // The caller's order, for stable output.
    needed
        .iter()
        .zip(missing)
        .filter(|(_, m)| *m)
        .map(|(t, _)| t.id.to_string())
        .collect()
}

/// Places of a text, to ask whether one of them holds a given range
/// ([`crate::target_match::within`]) without a pass over all of them.
struct Holding {
    /// Starts in order; `reach[i]` is the furthest end among the first
    /// `i + 1` places.
    starts: Vec<usize>,
    reach: Vec<usize>,
}

impl Holding {
    fn of<'r>(places: impl Iterator<Item = &'r Range<usize>>) -> Holding {
        let mut places: Vec<&Range<usize>> = places.collect();
        places.sort_by_key(|r| r.start);
        let starts = places.iter().map(|r| r.start).collect();
        let reach = places
            .iter()
            .scan(0, |far, r| {
                *far = r.end.max(*far);
                Some(*far)
            })
            .collect();
        Holding { starts, reach }
    }

    /// Whether `inner` lies within one of the places.
    fn holds(&self, inner: &Range<usize>) -> bool {
        let before = self.starts.partition_point(|&s| s <= inner.start);
        before > 0 && self.reach[before - 1] >= inner.end
    }
}

/// A forbidden term standing in an output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forbidden {
    /// The entry that forbids it; `null` for the glossary-wide list.
    pub(crate) entry: Option<String>,
    /// The term as the glossary writes it.
    pub(crate) term: String,
    /// Its place in the output: byte offsets `[start, end]` (UTF-8).
    #[serde(with = "byte_range")]
    pub(crate) at: Range<usize>,
}

impl std::fmt::Display for Forbidden {
    /// "forbidden term 'Kunde' (entry customer) at 12".
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "forbidden term '{}' ", self.term)?;
        match &self.entry {
            Some(entry) => write!(f, "(entry {entry})")?,
            None => write!(f, "(glossary-wide)")?,
        }
        write!(f, " at {}", self.at.start)
    }
}

/// A byte range as the pair `[start, end]`.
mod byte_range {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use std::ops::Range;

    pub(crate) fn serialize<S: Serializer>(r: &Range<usize>, s: S) -> Result<S::Ok, S::Error> {
        [r.start, r.end].serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Range<usize>, D::Error> {
        let [start, end] = <[usize; 2]>::deserialize(d)?;
        Ok(start..end)
    }
}

/// The terms one entry forbids; `entry` is `None` for the glossary-wide
/// list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Forbids<'a> {
    pub(crate) entry: Option<&'a str>,
    pub(crate) terms: &'a [String],
}

/// Every place of `output` where a forbidden term stands, in text order
/// (then in the order given), except inside a place of one of `asked`'s
/// targets or forms: what the glossary asks for is never forbidden there
/// ("Kunde" inside an asked "Kunde Service", a term forbidden by one entry
/// that is another retrieved entry's target).
pub(crate) fn forbidden_in(
    output: &Haystack,
    forbids: &[Forbids],
    asked: &[Target],
) -> Vec<Forbidden> {
    let terms: Vec<(usize, &str)> = forbids
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.terms.iter().map(move |t| (i, t.as_str())))
        .collect();
    if terms.is_empty() {
        return Vec::new();
    }
    // One pass tells which terms stand at all; only those are placed.
    let needles: Vec<&str> = terms.iter().map(|&(_, t)| t).collect();
    let standing = output.standing(&needles);
    if !standing.contains(&true) {
        return Vec::new();
    }
    // Only a spelling that holds a standing term can hold its place: the
    // others are never searched (a long output has thousands of targets).
    let standing_folded: Vec<String> = terms
        .iter()
        .zip(&standing)
        .filter(|(_, &s)| s)
        .map(|(&(_, t), _)| crate::target_match::fold(t.trim()))
        .collect();
    let asked_places: Vec<Range<usize>> = asked
        .iter()
        .flat_map(|t| t.spellings())
        .filter(|s| {
            let folded = crate::target_match::fold(s.trim());
            standing_folded.iter().any(|t| folded.contains(t.as_str()))
        })
        .flat_map(|s| output.find(s))
        .collect();
    let held = Holding::of(asked_places.iter());
    let mut out: Vec<(usize, Forbidden)> = Vec::new();
    let mut seen: std::collections::HashSet<(usize, &str)> = Default::default();
    for (&(i, term), _) in terms.iter().zip(&standing).filter(|(_, &s)| s) {
        // A term given twice by one entry is reported once.
        if !seen.insert((i, term)) {
            continue;
        }
        for at in output.find(term) {
            if !held.holds(&at) {
                out.push((
                    i,
                    Forbidden {
                        entry: forbids[i].entry.map(str::to_string),
                        term: term.to_string(),
                        at,
                    },
                ));
            }
        }
    }
    out.sort_by_key(|(i, f)| (f.at.start, *i));
    out.into_iter().map(|(_, f)| f).collect()
}

/// Whether `target` or one of its `forms` stands in `output`.
pub fn contains_target(output: &str, target: &str, forms: &[String]) -> bool {
    contains_target_in(&Haystack::new(output), target, forms)
}

/// [`contains_target`] in a text folded once for all its targets.
pub fn contains_target_in(text: &Haystack, target: &str, forms: &[String]) -> bool {
    std::iter::once(target)
        .chain(forms.iter().map(String::as_str))
        .any(|s| text.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t<'a>(id: &'a str, text: &'a str) -> Target<'a> {
        Target {
            id,
            text,
            forms: &[],
            exact_case: false,
        }
    }

    fn with_forms<'a>(id: &'a str, text: &'a str, forms: &'a [String]) -> Target<'a> {
        Target {
            id,
            text,
            forms,
            exact_case: false,
        }
    }

    fn strict(output: &str, needed: &[Target], wrong_sense: &[Target]) -> Verdict {
        let checker = Checker::new(CheckMode::Strict, "x").unwrap();
        checker.check(output, needed, wrong_sense)
    }

    fn strings(forms: &[&str]) -> Vec<String> {
        forms.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn target_in_other_case_counts() {
        let v = check("FROSK MAVI tan!", &[t("cold-coffee", "frosk mavi")], &[]);
        assert!(v.ok, "{v:?}");
    }

    #[test]
    fn a_case_sensitive_target_counts_only_with_its_case() {
        let us = Target {
            exact_case: true,
            ..t("US", "EE. UU.")
        };
        assert!(check("Hecho en EE. UU.", &[us], &[]).ok);
        assert_eq!(check("hecho en ee. uu.", &[us], &[]).missing, ["US"]);
        // A leak too needs the case.
        assert!(check("hecho en ee. uu.", &[], &[us]).ok);
        assert_eq!(check("EE. UU.", &[], &[us]).leaked, ["US"]);
        // Stems have no case: the stem check does not loosen it.
        let checker = Checker::new(CheckMode::Stem, "es").unwrap();
        assert!(!checker.stands("hecho en ee. uu.", &us));
        assert!(checker.stands("hecho en EE. UU.", &us));
    }

    #[test]
    fn target_inside_another_word_does_not_count() {
        let v = check(
            "dorpas and mavit",
            &[t("cookie", "dorpa"), t("coffee", "mavi")],
            &[],
        );
        assert_eq!(v.missing, ["cookie", "coffee"]);
        assert!(!v.ok);
        assert!(check("ütdorpa", &[t("cookie", "dorpa")], &[]).missing == ["cookie"]);
    }

    #[test]
    fn chinese_japanese_and_thai_targets_count_inside_running_text() {
        let zh = [t("model", "模型"), t("output", "输出")];
        assert!(check("郝仁低头看向模型的输出。", &zh, &[]).ok);
        assert_eq!(
            check("郝仁低头看向模的输。", &zh, &[]).missing,
            ["model", "output"]
        );
        let ja = [t("server", "サーバー"), t("data", "データ")];
        assert!(check("新しいサーバーでデータを処理する。", &ja, &[]).ok);
        let th = [t("iced-coffee", "กาแฟเย็น")];
        assert!(check("ฉันชอบกาแฟเย็นมาก", &th, &[]).ok);
        // A leak is found inside running text too.
        let v = check("ฉันชอบกาแฟเย็นมาก", &[], &[t("tea", "ชอบ")]);
        assert_eq!(v.leaked, ["tea"]);
    }

    #[test]
    fn mixed_script_targets_follow_the_script_at_each_end() {
        let needed = [t("xlmr", "模型 XLM-R")];
        assert!(check("我们用模型 XLM-R。", &needed, &[]).ok);
        assert!(!check("我们用模型 XLM-Rx。", &needed, &[]).ok);
    }

    #[test]
    fn german_compounds_and_inflections_count_through_forms() {
        let forms = strings(&["Spinalkanals", "Spinalkanälen"]);
        let needed = [with_forms("canal", "Spinalkanal", &forms)];
        assert!(check("Die Enge des Spinalkanals nimmt zu.", &needed, &[]).ok);
        assert!(check("in den SPINALKANÄLEN", &needed, &[]).ok);
        // Inside a compound it is not the term.
        assert!(!check("Die Spinalkanalstenose", &needed, &[]).ok);
        // Forms leak like targets.
        let v = check("des Spinalkanals", &[], &needed);
        assert_eq!(v.leaked, ["canal"]);
    }

    #[test]
    fn nested_targets_count_inside_other_needed_targets() {
        let needed = [
            t(
                "adult-patients",
                "zwei bereits länger erkrankte erwachsene Patienten",
            ),
            t("longstanding", "länger erkrankte"),
        ];
        let out = "Wir untersuchten zwei bereits länger erkrankte erwachsene Patienten.";
        assert!(check(out, &needed, &[]).ok);
        let v = strict(out, &needed, &[]);
        assert_eq!(v.missing, ["longstanding"]);
        let needed = [t("coffee", "mavi"), t("cold-coffee", "frosk mavi")];
        assert!(check("frosk mavi", &needed, &[]).ok);
        assert_eq!(strict("frosk mavi", &needed, &[]).missing, ["coffee"]);
        assert!(strict("mavi; frosk mavi", &needed, &[]).ok);
    }

    #[test]
    fn one_place_serves_every_entry_with_that_target() {
        let needed = [
            t("spinal-canal", "Spinalkanals"),
            t("canal", "Spinalkanals"),
        ];
        assert!(check("Enge des Spinalkanals", &needed, &[]).ok);
        let v = strict("Enge des Spinalkanals", &needed, &[]);
        assert_eq!(v.missing, ["canal"]);
    }

    #[test]
    fn wrong_sense_leaks_are_reported() {
        let v = check(
            "zimbo tan brunka",
            &[t("brunch", "brunka")],
            &[t("date", "zimbo")],
        );
        assert_eq!(v.leaked, ["date"]);
        assert!(v.missing.is_empty());
        assert!(!v.ok);
        // A wrong-sense target that only stands inside a needed one does not leak.
        let v = check(
            "frosk mavi",
            &[t("cold-coffee", "frosk mavi")],
            &[t("coffee", "mavi")],
        );
        assert!(v.ok, "{v:?}");
        // ... but one standing apart does.
        let v = check(
            "frosk mavi, mavi",
            &[t("cold-coffee", "frosk mavi")],
            &[t("coffee", "mavi")],
        );
        assert_eq!(v.leaked, ["coffee"]);
    }

    #[test]
    fn stem_mode_accepts_inflections_and_says_so() {
        let checker = Checker::new(CheckMode::Stem, "de").unwrap();
        let needed = [t("canal", "Spinalkanal"), t("patients", "Patienten")];
        let v = checker.check("Die Enge des Spinalkanals bei Patienten", &needed, &[]);
        assert!(v.ok, "{v:?}");
        assert_eq!(v.by_stem, ["canal"]);
        // Without stems the inflection is missing; the default mode never stems.
        assert_eq!(
            check("des Spinalkanals", &needed[..1], &[]).missing,
            ["canal"]
        );
        // Stemmed wrong-sense targets leak too.
        let v = checker.check("des Spinalkanals", &[], &needed[..1]);
        assert_eq!(
            (v.leaked.as_slice(), v.by_stem.len()),
            (["canal".to_string()].as_slice(), 0)
        );
        assert!(checker.stands("des Spinalkanals", &needed[0]));
        assert!(!Checker::default().stands("des Spinalkanals", &needed[0]));
        assert!(Checker::new(CheckMode::Stem, "x-cafe").is_err());
        assert!(Checker::new(CheckMode::Strict, "x-cafe").is_ok());
    }

    #[test]
    fn an_echo_is_never_ok_and_old_verdicts_read_without_it() {
        let v = check("dorpa", &[t("cookie", "dorpa")], &[]);
        assert!(v.ok && !v.echo);
        assert!(!serde_json::to_string(&v).unwrap().contains("echo"));
        let echoed = v.with_echo(true);
        assert!(!echoed.ok && echoed.echo);
        assert!(serde_json::to_string(&echoed)
            .unwrap()
            .contains("\"echo\":true"));
        let old: Verdict = serde_json::from_str(r#"{"missing":[],"leaked":[],"ok":true}"#).unwrap();
        assert!(old.ok && !old.echo);
    }

    #[test]
    fn contains_target_accepts_forms() {
        assert!(contains_target("«Zimbo»!", "zimbo", &[]));
        assert!(!contains_target("zimboé", "zimbo", &[]));
        assert!(contains_target(
            "experimentu",
            "experiment",
            &strings(&["experimentu"])
        ));
    }

    fn forbids<'a>(entry: Option<&'a str>, terms: &'a [String]) -> Forbids<'a> {
        Forbids { entry, terms }
    }

    /// (entry, term, the text at the place) of each forbidden term found.
    fn found(
        output: &str,
        fs: &[Forbids],
        asked: &[Target],
    ) -> Vec<(Option<String>, String, String)> {
        forbidden_in(&Haystack::new(output), fs, asked)
            .into_iter()
            .map(|f| (f.entry, f.term, output[f.at].to_string()))
            .collect()
    }

    #[test]
    fn a_forbidden_term_stands_by_the_target_rule_and_is_named_with_its_place() {
        let email = strings(&["Email"]);
        let fs = [forbids(Some("email"), &email)];
        let out = "Schicken Sie uns eine EMAIL oder eine E-Mail.";
        let got = forbidden_in(&Haystack::new(out), &fs, &[]);
        assert_eq!(
            got,
            [Forbidden {
                entry: Some("email".into()),
                term: "Email".into(),
                at: 22..27
            }]
        );
        // Not inside another word, nor across a hyphen that makes another.
        assert!(found("Emaille, E-Mail, Emails", &fs, &[]).is_empty());
        // Scripts without spaces: inside running text.
        let zh = strings(&["電郵"]);
        let got = found("請發電郵給我們", &[forbids(Some("email"), &zh)], &[]);
        assert_eq!(got, [(Some("email".into()), "電郵".into(), "電郵".into())]);
        // Accents composed or not alike.
        let cafe = strings(&["cafe\u{301}"]);
        assert_eq!(found("Un café.", &[forbids(None, &cafe)], &[]).len(), 1);
    }

    #[test]
    fn a_forbidden_term_inside_an_asked_target_does_not_count() {
        // "Kunde" is forbidden, "Kunde Service" asked for: its words are
        // the term, not the forbidden one; standing alone it counts.
        let kunde = strings(&["Kunde"]);
        let fs = [forbids(Some("customer"), &kunde)];
        let asked = [t("service", "Kunde Service")];
        assert!(found("Ihr Kunde Service hilft.", &fs, &asked).is_empty());
        let got = found("Der Kunde und der Kunde Service.", &fs, &asked);
        assert_eq!(got.len(), 1);
        // Compounds are other words: "Kunde" is not in "Kundendienst".
        assert!(found("Der Kundendienst", &fs, &[]).is_empty());
        // Without spaces a forbidden word may stand inside a longer one:
        // inside the asked target "客户服务" it is that term.
        let kehu = strings(&["客户"]);
        let fs_zh = [forbids(Some("client"), &kehu)];
        let service = [t("customer-service", "客户服务")];
        assert!(found("请联系客户服务。", &fs_zh, &service).is_empty());
        assert_eq!(found("请联系客户。", &fs_zh, &service).len(), 1);
        // A term one entry forbids that another asked entry's target is:
        // the glossary asked for it here.
        let ufer = strings(&["Ufer"]);
        let fs = [forbids(Some("bank"), &ufer)];
        assert!(found("Am Ufer", &fs, &[t("shore", "Ufer")]).is_empty());
        assert_eq!(found("Am Ufer", &fs, &[t("bank", "Bank")]).len(), 1);
    }

    #[test]
    fn forbidden_terms_come_in_text_order_once_per_entry_and_place() {
        let a = strings(&["mavi", "tan", "mavi"]);
        let wide = strings(&["tan"]);
        let fs = [forbids(Some("a"), &a), forbids(None, &wide)];
        let got = found("tan mavi tan", &fs, &[]);
        let shown: Vec<(Option<&str>, &str)> = got
            .iter()
            .map(|(e, t, _)| (e.as_deref(), t.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (Some("a"), "tan"),
                (None, "tan"),
                (Some("a"), "mavi"),
                (Some("a"), "tan"),
                (None, "tan")
            ]
        );
        assert!(found("nothing here", &fs, &[]).is_empty());
        assert!(found("tan", &[], &[]).is_empty());
    }

    #[test]
    fn a_verdict_with_a_forbidden_term_is_not_ok_and_writes_the_place_as_a_pair() {
        let v = check("E-Mail", &[t("email", "E-Mail")], &[]);
        assert!(v.ok);
        let f = Forbidden {
            entry: None,
            term: "billig".into(),
            at: 3..9,
        };
        let v = v.with_forbidden(vec![f.clone()]);
        assert!(!v.ok);
        let json = serde_json::to_string(&v).unwrap();
        assert!(
            json.contains(r#""forbidden":[{"entry":null,"term":"billig","at":[3,9]}]"#),
            "{json}"
        );
        let back: Verdict = serde_json::from_str(&json).unwrap();
        assert_eq!(back.forbidden, std::slice::from_ref(&f));
        assert_eq!(
            f.to_string(),
            "forbidden term 'billig' (glossary-wide) at 3"
        );
        let named = Forbidden {
            entry: Some("cheap".into()),
            ..f
        };
        assert_eq!(
            named.to_string(),
            "forbidden term 'billig' (entry cheap) at 3"
        );
        // Verdicts without it (every record before) still read, and an
        // empty list is not written.
        let v = check("E-Mail", &[t("email", "E-Mail")], &[]).with_forbidden(Vec::new());
        assert!(v.ok && !serde_json::to_string(&v).unwrap().contains("forbidden"));
    }

    proptest::proptest! {
        /// Searching only the asked spellings that hold a standing term
        /// finds what searching every asked spelling finds.
        #[test]
        fn forbidden_places_are_those_outside_every_asked_place(
            words in proptest::collection::vec(
                proptest::sample::select(vec!["Kunde", "kunde", "Service", "Kundendienst", "客户", "服务", "E-Mail", "Email", "-", " ", ", "]),
                0..12,
            ),
            forbid in proptest::collection::vec(
                proptest::sample::select(vec!["Kunde", "Email", "客户", "Service", "Kunde Service"]),
                0..3,
            ),
            ask in proptest::collection::vec(
                proptest::sample::select(vec!["Kunde Service", "E-Mail", "客户服务", "Kundendienst", "Service"]),
                0..3,
            ),
        ) {
            let output: String = words.concat();
            let text = Haystack::new(&output);
            let terms = strings(&forbid);
            let fs = [forbids(Some("e"), &terms)];
            let asked: Vec<Target> = ask.iter().map(|a| t("a", a)).collect();
            let got: Vec<Range<usize>> = forbidden_in(&text, &fs, &asked).into_iter().map(|f| f.at).collect();
            let every: Vec<Range<usize>> = asked.iter().flat_map(|a| text.find(a.text)).collect();
            let mut want: Vec<Range<usize>> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            for term in &terms {
                if !seen.insert(term.clone()) {
                    continue;
                }
                for at in text.find(term) {
                    if !every.iter().any(|p| crate::target_match::within(&at, p)) {
                        want.push(at);
                    }
                }
            }
            want.sort_by_key(|r| r.start);
            let mut got_sorted = got.clone();
            got_sorted.sort_by_key(|r| (r.start, r.end));
            want.sort_by_key(|r| (r.start, r.end));
            proptest::prop_assert_eq!(got_sorted, want);
        }

        #[test]
        fn holding_is_lying_within_one_of_the_places(
            places in proptest::collection::vec((0..40usize, 0..8usize), 0..30),
            inner in (0..45usize, 0..5usize),
        ) {
            let places: Vec<Range<usize>> = places.into_iter().map(|(s, l)| s..s + l).collect();
            let inner = inner.0..inner.0 + inner.1;
            let want = places
                .iter()
                .any(|p| crate::target_match::within(&inner, p));
            proptest::prop_assert_eq!(Holding::of(places.iter()).holds(&inner), want);
        }
    }

    #[test]
    fn each_needed_entry_that_stands_is_rendered_as_at_its_first_place() {
        let forms = ["Tees".to_string()];
        let tea = Target {
            id: "tea",
            text: "Tee",
            forms: &forms,
            exact_case: false,
        };
        let cake = t("cake", "Kuchen");
        let v = check("Zwei Tees, dann noch ein Tee.", &[tea, cake], &[]);
        assert_eq!(v.missing, ["cake"]);
        assert_eq!(v.rendered.len(), 1);
        assert_eq!(v.rendered["tea"], "tees");
        // A missing entry is not rendered, in strict mode too.
        let v = Checker::new(CheckMode::Strict, "de").unwrap().check(
            "Tee",
            &[tea, t("t2", "Tee")],
            &[],
        );
        assert_eq!(v.missing.len(), 1);
        assert_eq!(v.rendered.len(), 1);
    }
}
