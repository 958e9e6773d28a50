//! Property tests of invariants that hold for every input (issue 13):
//! phrase keys, retrievers' matches, `exact ⊆ normalised`, and eval
//! metrics that add up. Each runs in well under a few seconds.

use glossa::batch::api::{custom_id, parse_custom_id};
use glossa::dataset::{Label, LabelledPost, Post, Split};
use glossa::eval::{self, PerPost, Sources};
use glossa::glossary::Glossary;
use glossa::phrase;
use glossa::retrieve::{self, best_per_entry, Params, PostView, RECOMMENDED, REGISTRY};
use proptest::prelude::*;
use serde_json::json;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Words that glossary terms and posts share, so that retrievers match:
/// inflections, a typo, a split word, a stop word, capitals, digits.
const VOCABULARY: &[&str] = &[
    "cold",
    "coffee",
    "coffees",
    "cofee",
    "date",
    "dates",
    "palm",
    "tea",
    "teas",
    "home",
    "made",
    "homemade",
    "the",
    "up",
    "to",
    "IT",
    "it",
    "MRI",
    "0.2",
    "version",
    "don't",
    "don’t",
    "ice",
    "Café",
    "CAFÉ",
    "İstanbul",
    "straße",
    "ΣΊΣΥΦΟΣ",
];

/// Separators between words: spaces, punctuation, line breaks.
const SEPARATORS: &[&str] = &[
    " ", " ", " ", "  ", "\t", "-", "/", ", ", ". ", "; ", "(", ") ", "\n", "\r\n", "\u{2028}",
    "…", "\"", "’", "'",
];

/// Text of 0..=max vocabulary words joined by random separators.
fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(VOCABULARY),
            prop::sample::select(SEPARATORS),
        ),
        0..=max,
    )
    .prop_map(|pieces| pieces.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
}

/// Any text at all: the vocabulary's, or arbitrary characters.
fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        text(12),
        any::<String>(),
        "[a-z \\n\\r.,\u{2028}\u{85}]{0,30}"
    ]
}

/// A glossary term: 1–3 vocabulary words (sometimes with punctuation).
fn term() -> impl Strategy<Value = String> {
    text(3).prop_filter("a term has a word", |t| !phrase::key(t).is_empty())
}

/// A valid glossary of 1–8 entries, some with aliases and contexts.
fn glossary() -> impl Strategy<Value = Arc<Glossary>> {
    prop::collection::vec((term(), prop::option::of(term()), any::<bool>()), 1..8).prop_map(
        |terms| {
            let entries: Vec<_> = terms
                .iter()
                .enumerate()
                .map(|(i, (source, alias, context))| {
                    let mut entry =
                        json!({ "id": format!("e{i}"), "source": source, "target": "t" });
                    if let Some(alias) = alias {
                        entry["aliases"] = json!([alias]);
                    }
                    if *context {
                        entry["context"] = json!({ "any": ["palm"], "not": ["up to date"] });
                    }
                    entry
                })
                .collect();
            let text = json!({ "entries": entries }).to_string();
            Arc::new(Glossary::parse("g.json", "g", &text).expect("generated glossaries are valid"))
        },
    )
}

/// Every registered retriever that builds with no file given (not
/// `lemmas`, which needs its table), and the recommended composition.
fn specs() -> Vec<&'static str> {
    let tea = r#"{"entries":[{"id":"tea","source":"tea","target":"te"}]}"#;
    let tea = Arc::new(Glossary::parse("g.json", "g", tea).unwrap());
    REGISTRY
        .iter()
        .map(|info| info.name)
        .filter(|name| retrieve::build(name, &tea, &Params::default()).is_ok())
        .chain([RECOMMENDED])
        .collect()
}

fn assert_well_formed_key(key: &str) -> Result<(), TestCaseError> {
    prop_assert!(!key.contains("  "), "double space in {key:?}");
    prop_assert!(!key.starts_with(' ') && !key.ends_with(' '), "{key:?}");
    Ok(())
}

/// The entries a retriever finds in a post.
fn entry_set(spec: &str, glossary: &Arc<Glossary>, view: &PostView) -> BTreeSet<usize> {
    let retriever = retrieve::build(spec, glossary, &Params::default()).expect("registered");
    retriever
        .retrieve(view)
        .unwrap()
        .iter()
        .map(|m| m.entry)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Phrase keys hold single spaces only and never cross a line break;
    /// so do glossary keys.
    #[test]
    fn phrase_keys_never_hold_double_spaces_or_cross_a_line(text in any_text()) {
        for p in phrase::phrases(&text) {
            assert_well_formed_key(&p.key)?;
            let span = &text[p.start..p.end];
            prop_assert!(
                !span.contains(['\n', '\r', '\u{0B}', '\u{0C}', '\u{85}', '\u{2028}', '\u{2029}']),
                "phrase {:?} crosses a line in {:?}", p.key, text
            );
        }
        assert_well_formed_key(&phrase::key(&text))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every retriever's matches name entries of the glossary, with a
    /// score in [0, 1] and a word range inside the post.
    #[test]
    fn every_retrievers_matches_are_entries_of_the_glossary(
        glossary in glossary(),
        post in text(16),
        needed in prop::collection::vec(0usize..8, 0..3),
    ) {
        let needed: Vec<usize> = needed.into_iter().filter(|&e| e < glossary.len()).collect();
        let view = PostView::new(&post, Some(&needed));
        for spec in specs() {
            let retriever = retrieve::build(spec, &glossary, &Params::default()).expect("registered");
            for m in retriever.retrieve(&view).unwrap() {
                prop_assert!(m.entry < glossary.len(), "{}: entry {} of {}", spec, m.entry, glossary.len());
                prop_assert!((0.0..=1.0).contains(&m.score), "{}: score {}", spec, m.score);
                if let Some((first, len)) = m.words {
                    prop_assert!(first + len <= view.words.len(), "{}: words {}+{}", spec, first, len);
                }
            }
        }
    }

    /// Stemming both sides never loses what matched as written.
    #[test]
    fn exact_is_a_subset_of_normalised(glossary in glossary(), post in text(16)) {
        let view = PostView::new(&post, None);
        let exact = entry_set("exact", &glossary, &view);
        let normalised = entry_set("normalised", &glossary, &view);
        prop_assert!(
            exact.is_subset(&normalised),
            "exact {:?} ⊄ normalised {:?} for {:?} over {:?}",
            exact, normalised, post,
            glossary.entries.iter().map(|e| &e.source).collect::<Vec<_>>()
        );
    }
}

/// A labelled set over `glossary`: each post with disjoint needed and
/// wrong-sense entries, tags and a split.
fn labelled_posts(entries: usize) -> impl Strategy<Value = Vec<LabelledPost>> {
    let post = (
        text(12),
        prop::collection::btree_set(0..entries, 0..=entries),
        prop::collection::btree_set(0..entries, 0..=entries),
        prop::collection::btree_set(prop::sample::select(&["typo", "phrase", "as-is"][..]), 0..3),
        any::<bool>(),
    );
    prop::collection::vec(post, 1..12).prop_map(|posts| {
        posts
            .into_iter()
            .enumerate()
            .map(|(i, (text, needed, wrong, tags, test))| LabelledPost {
                post: Post {
                    id: format!("p{i}"),
                    text,
                },
                label: Label {
                    wrong_sense: wrong.difference(&needed).copied().collect(),
                    needed: needed.into_iter().collect(),
                    tags: tags.into_iter().map(str::to_string).collect(),
                    split: if test { Split::Test } else { Split::Dev },
                },
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// found + missed = needed, found + extra = retrieved, wrong sense ⊆
    /// extra, complete ≤ posts, per post and in total; by split and by tag
    /// sum to what their posts hold.
    #[test]
    fn eval_metrics_add_up(
        (glossary, posts) in glossary().prop_flat_map(|g| {
            let n = g.len();
            (Just(g), labelled_posts(n))
        })
    ) {
        let specs: Vec<String> = specs().into_iter().map(str::to_string).collect();
        let sources = Sources { posts_file: "p.jsonl", labels_file: "l.jsonl", split: "all" };
        let result = eval::evaluate(&glossary, &posts, &specs, &Params::default(), &sources, PerPost::On)
            .expect("registered retrievers");
        let needed_total: usize = posts.iter().map(|p| p.label.needed.len()).sum();
        for r in &result.retrievers {
            let c = r.counts();
            prop_assert_eq!(c.posts, posts.len());
            prop_assert!(c.complete <= c.posts);
            prop_assert_eq!(c.needed, needed_total);
            prop_assert_eq!(c.found + c.extra, c.retrieved);
            prop_assert!(c.found <= c.needed && c.wrong_sense <= c.extra);
            let missed: usize = r.per_post.iter().map(|p| p.missed.len()).sum();
            prop_assert_eq!(c.found + missed, c.needed);
            for (p, labelled) in r.per_post.iter().zip(&posts) {
                prop_assert_eq!(&p.post, &labelled.post.id);
                prop_assert_eq!(p.found + p.missed.len(), labelled.label.needed.len());
                prop_assert_eq!(p.found + p.extra.len(), p.retrieved.len());
                prop_assert_eq!(p.complete, p.missed.is_empty() && p.wrong_sense.is_empty());
            }
            let by_split: usize = r.by_split.values().map(|f| f.0.posts).sum();
            prop_assert_eq!(by_split, c.posts);
            for (tag, figures) in &r.by_tag {
                let tagged = posts.iter().filter(|p| p.label.tags.contains(tag)).count();
                prop_assert_eq!(figures.0.posts, tagged);
            }
            // What eval reports is what the retriever retrieves.
            for (p, labelled) in r.per_post.iter().zip(&posts) {
                let view = PostView::new(&labelled.post.text, Some(&labelled.label.needed));
                let retriever = retrieve::build(&r.name, &glossary, &Params::default()).expect("registered");
                let entries = best_per_entry(retriever.retrieve(&view).unwrap());
                prop_assert_eq!(p.retrieved.len(), entries.len());
            }
        }
    }
}

proptest! {
    /// A Batch API `custom_id` that glossa writes reads back as the call it
    /// names, whatever the retriever spec and post id hold (`|`, `%`,
    /// control characters, any Unicode).
    #[test]
    fn batch_custom_ids_round_trip(
        retriever in "\\PC{1,12}|[|%\n\t]{1,4}",
        repeat in 1u32..,
        post in any::<String>().prop_filter("a post id", |p| !p.is_empty()),
    ) {
        let id = custom_id(&retriever, repeat, &post);
        prop_assert_eq!(parse_custom_id(&id), Ok((retriever, repeat, post)));
    }
}

/// Glossary entries as JSON (1–8, some with aliases), for tests that set
/// fields on them.
fn entries_json() -> impl Strategy<Value = Vec<serde_json::Value>> {
    prop::collection::vec((term(), prop::option::of(term())), 1..8).prop_map(|terms| {
        terms
            .iter()
            .enumerate()
            .map(|(i, (source, alias))| {
                let mut entry = json!({ "id": format!("e{i}"), "source": source, "target": "t" });
                if let Some(alias) = alias {
                    entry["aliases"] = json!([alias]);
                }
                entry
            })
            .collect()
    })
}

fn glossary_of(entries: &[serde_json::Value]) -> Arc<Glossary> {
    let text = json!({ "entries": entries }).to_string();
    Arc::new(Glossary::parse("g.json", "g", &text).expect("generated glossaries are valid"))
}

/// Every match of `spec` in `view`, as (entry, words, kind, phrase, score).
fn all_matches(spec: &str, glossary: &Arc<Glossary>, view: &PostView) -> Vec<String> {
    let retriever = retrieve::build(spec, glossary, &Params::default()).expect("registered");
    retriever
        .retrieve(view)
        .iter()
        .map(|m| format!("{m:?}"))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `case_sensitive` and `keep` written `false` are the flags left out:
    /// every retriever gives the very same matches, in the same order.
    #[test]
    fn flags_written_false_change_no_retriever(entries in entries_json(), post in text(16)) {
        let absent = glossary_of(&entries);
        let written: Vec<serde_json::Value> = entries
            .iter()
            .map(|e| {
                let mut e = e.clone();
                e["case_sensitive"] = json!(false);
                e["keep"] = json!(false);
                e
            })
            .collect();
        let written = glossary_of(&written);
        let view = PostView::new(&post, None);
        for spec in specs().into_iter().chain(["normalised+fuzzy", "exact|closest|sense|longest"]) {
            prop_assert_eq!(all_matches(spec, &absent, &view), all_matches(spec, &written, &view), "{}", spec);
        }
    }

    /// With some entries case-sensitive, a retriever without filters keeps
    /// a subset of those entries' matches, and every other entry's matches
    /// but those on the very words where a case-sensitive entry stands.
    #[test]
    fn case_sensitive_entries_only_take_matches_away(
        entries in entries_json(),
        flagged in prop::collection::vec(any::<bool>(), 8),
        post in text(16),
    ) {
        let plain = glossary_of(&entries);
        let sensitive: Vec<serde_json::Value> = entries
            .iter()
            .zip(&flagged)
            .map(|(e, &f)| {
                let mut e = e.clone();
                if f {
                    e["case_sensitive"] = json!(true);
                }
                e
            })
            .collect();
        let sensitive = glossary_of(&sensitive);
        let view = PostView::new(&post, None);
        let key = |m: &retrieve::Match| (m.entry, m.words, m.kind, m.phrase.clone());
        for spec in ["exact", "normalised", "fuzzy", "normalised+fuzzy", "edit", "split", "alias", "normalised+edit+split+alias"] {
            let build = |g: &Arc<Glossary>| retrieve::build(spec, g, &Params::default()).expect("registered");
            let before: Vec<_> = build(&plain).retrieve(&view).unwrap().iter().map(key).collect();
            let after: Vec<_> = build(&sensitive).retrieve(&view).unwrap().iter().map(key).collect();
            let flagged_words: BTreeSet<_> = after
                .iter()
                .filter(|m| flagged[m.0])
                .filter_map(|m| m.1)
                .collect();
            for m in &after {
                prop_assert!(before.contains(m), "{}: {:?} is new in {:?}", spec, m, post);
            }
            for m in &before {
                let kept = after.contains(m);
                let given_way = !flagged[m.0] && m.1.is_some_and(|w| flagged_words.contains(&w));
                prop_assert!(kept || flagged[m.0] || given_way, "{}: {:?} lost in {:?}", spec, m, post);
            }
        }
    }
}

/// A term of random text: Latin with accents, Khmer, Arabic, Han,
/// Cyrillic, XML's special characters, and spaces (also at the ends).
const TERM: &str = "[a-zé&<>'\"ក-ឳا-ي一-龥а-я ]{1,8}";

/// A glossary of random entries (ids that are and are not XML names,
/// sense, aliases, forms, forbidden terms, context, case and keep flags)
/// and glossary-wide forbidden words, as JSON.
fn tbx_glossary() -> impl Strategy<Value = serde_json::Value> {
    let id = prop_oneof![
        Just(None),
        "[a-z_][a-z0-9.-]{0,3}".prop_map(Some),
        // The ids export makes up for ids that are no XML names.
        "e[1-3]_?".prop_map(Some),
        TERM.prop_map(Some),
    ];
    let list = || proptest::collection::vec(TERM, 0..3);
    let entry = (
        (
            id,
            TERM,
            TERM,
            proptest::option::of("[a-z &<>\"\n\tក-ឳ]{0,12}"),
        ),
        (list(), list(), list()),
        (
            proptest::option::of((list(), list())),
            any::<bool>(),
            0..4u8,
        ),
    );
    let langs = prop_oneof![Just("de"), Just("km"), Just("ar"), Just("x-cafe")];
    (
        proptest::collection::vec(entry, 1..6),
        proptest::collection::vec(TERM, 0..3),
        TERM,
        langs,
    )
        .prop_map(|(entries, wide, name, target_lang)| {
            let entries: Vec<serde_json::Value> = entries
                .into_iter()
                .map(|((id, source, target, sense), (aliases, forms, forbidden), (context, case, keep))| {
                    let mut e = json!({"source": source, "aliases": aliases, "forms": forms, "forbidden": forbidden});
                    if let Some(id) = id {
                        e["id"] = json!(id);
                    }
                    // One in four is a name kept as written.
                    match keep {
                        0 => e["keep"] = json!(true),
                        _ => e["target"] = json!(target),
                    }
                    if let Some(sense) = sense {
                        e["sense"] = json!(sense);
                    }
                    if let Some((any, not)) = context {
                        e["context"] = json!({"any": any, "not": not});
                    }
                    e["case_sensitive"] = json!(case);
                    e
                })
                .collect();
            json!({"name": name, "source_lang": "en", "target_lang": target_lang,
                   "forbidden": wide, "entries": entries})
        })
}

/// An entry as `glossa import` reads a TBX file back (docs/formats.md, "TBX
/// mapping"): every text trimmed; an empty id the source, an empty sense none; aliases without the
/// source, forms without the target, forbidden terms without the target
/// and forms, each without empties and repeats; an empty context none.
fn as_tbx_import_reads(e: &glossa::glossary::Entry) -> glossa::glossary::Entry {
    let trim = |s: &String| s.trim().to_string();
    let others = |first: &[String], rest: &[String]| {
        let mut out: Vec<String> = Vec::new();
        for t in rest.iter().map(trim) {
            if !t.is_empty() && !first.contains(&t) && !out.contains(&t) {
                out.push(t);
            }
        }
        out
    };
    let (source, target) = (trim(&e.source), trim(&e.target));
    let forms = others(std::slice::from_ref(&target), &e.forms);
    let mut taken = forms.clone();
    taken.push(target.clone());
    let context = e.context.as_ref().map(|c| glossa::glossary::Context {
        any: c.any.iter().map(trim).collect(),
        not: c.not.iter().map(trim).collect(),
    });
    glossa::glossary::Entry {
        // An id of spaces is none: the source.
        id: Some(trim(&e.id))
            .filter(|id| !id.is_empty())
            .unwrap_or_else(|| source.clone()),
        aliases: others(std::slice::from_ref(&source), &e.aliases),
        forbidden: others(&taken, &e.forbidden),
        forms,
        sense: e
            .sense
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string),
        context: context.filter(|c| !c.any.is_empty() || !c.not.is_empty()),
        key: String::new(),
        alias_keys: Vec::new(),
        line: 0,
        source,
        target,
        ..e.clone()
    }
}

/// Whether `text` is well-formed XML by quick-xml (every tag closed in
/// order, attributes and references sound), with one root element.
fn well_formed(text: &str) -> Result<(), String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let (mut depth, mut roots) = (0usize, 0usize);
    loop {
        match reader
            .read_event()
            .map_err(|e| format!("at {}: {e}", reader.buffer_position()))?
        {
            Event::Start(start) => {
                roots += usize::from(depth == 0);
                depth += 1;
                for a in start.attributes() {
                    a.map_err(|e| e.to_string())?;
                }
            }
            Event::End(_) => depth -= 1,
            Event::GeneralRef(r) => {
                let known = r.resolve_char_ref().map_err(|e| e.to_string())?.is_some()
                    || quick_xml::escape::resolve_predefined_entity(&r).is_some();
                if !known {
                    return Err(format!("unknown entity &{};", r.into_inner()));
                }
            }
            Event::Eof if depth == 0 && roots == 1 => return Ok(()),
            Event::Eof => return Err(format!("{depth} elements open at the end, {roots} roots")),
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// `glossa export --to tbx` and `--to tbx3`, then `glossa import`,
    /// give the same glossary (issue 32): every field of every entry
    /// (ids, sources, targets, senses, aliases, forms, forbidden terms,
    /// context, case_sensitive, keep), the name, the languages and the
    /// glossary-wide forbidden words, as the import normalises them
    /// ([`as_tbx_import_reads`]); and the file is well-formed XML.
    #[test]
    fn a_tbx_export_imports_back_as_the_same_glossary(json in tbx_glossary()) {
        let Ok(g) = Glossary::parse("g.json", "g", &json.to_string()) else {
            // Random entries may break the glossary rules (two ids alike):
            // nothing to export.
            return Ok(());
        };
        let want: Vec<_> = g.entries.iter().map(as_tbx_import_reads).collect();
        let mut ids: Vec<&String> = want.iter().map(|e| &e.id).collect();
        ids.sort();
        ids.dedup();
        if ids.len() != want.len() {
            // Two ids one once trimmed: the glossary the import would read
            // breaks the rules.
            return Ok(());
        }
        let name = match g.name.trim() {
            "" => "file".to_string(),
            name => name.to_string(),
        };
        let wide: Vec<String> = g.forbidden.iter().map(|w| w.trim().to_string()).collect();
        for dialect in [glossa::interchange::TbxDialect::Basic, glossa::interchange::TbxDialect::V3] {
            let tbx = glossa::interchange::export_tbx(&g, dialect)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            well_formed(&tbx).map_err(|e| TestCaseError::fail(format!("{e}\n{tbx}")))?;
            let opts = glossa::interchange::ImportOptions { name: "file".into(), ..Default::default() };
            let back = glossa::interchange::import_tbx("g.tbx", &tbx, &opts)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{tbx}")))?
                .glossary;
            let got: Vec<_> = back
                .entries
                .iter()
                .map(|e| glossa::glossary::Entry { key: String::new(), alias_keys: Vec::new(), line: 0, ..e.clone() })
                .collect();
            prop_assert_eq!(&got, &want, "{:?}\n{}", dialect, tbx);
            prop_assert_eq!(&back.forbidden, &wide);
            prop_assert_eq!(&back.name, &name);
            prop_assert_eq!((&back.source_lang, &back.target_lang), (&g.source_lang, &g.target_lang));
        }
    }
}
