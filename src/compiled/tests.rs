//! The compiled path gives the in-memory path's matches: for random
//! glossaries and posts, the default and each of its parts find the same
//! entries, kinds, phrases, scores and word spans, in the same order,
//! on the candidates' sub-glossary as on the whole glossary.

use super::*;
use crate::retrieve::{self, PostView};
use proptest::prelude::*;

/// The specs compared: the default, each of its parts alone, and `exact`.
pub(crate) const SPECS: &[&str] = &[
    "glossa",
    "normalised",
    "irregular",
    "edit",
    "split",
    "alias",
    "exact",
    "normalised+edit|closest",
    "normalised+irregular+edit+split+alias|closest|sense|longest",
];

/// One post's matches by entry id, every field, in order.
pub(crate) type Seen = Vec<(
    String,
    retrieve::MatchKind,
    String,
    u64,
    Option<(usize, usize)>,
)>;

pub(crate) fn matches(spec: &str, g: &Arc<Glossary>, params: &Params, text: &str) -> Seen {
    let r = retrieve::build(spec, g, params).unwrap();
    r.retrieve(&PostView::new(text, None))
        .unwrap()
        .into_iter()
        .map(|m| {
            (
                g.entries[m.entry].id.clone(),
                m.kind,
                m.phrase,
                m.score.to_bits(),
                m.words,
            )
        })
        .collect()
}

use crate::retrieve::Params;

/// Compile `json` and compare every spec on every post; the candidate
/// counts, summed.
pub(crate) fn same_matches(json: &str, posts: &[String], params: &Params) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let gpath = dir.path().join("g.json");
    std::fs::write(&gpath, json).unwrap();
    let full = Arc::new(Glossary::load(&gpath).unwrap());
    let out = dir.path().join("g.glossa-index");
    build(&gpath, &out).unwrap();
    let compiled = Arc::new(Compiled::open(&out, "g.json").unwrap());
    let mut total = 0;
    for post in posts {
        let ids = compiled.candidates([post.as_str()], params).unwrap();
        total += ids.len();
        let part = Arc::new(compiled.part(&ids).unwrap());
        for spec in SPECS {
            let want = matches(spec, &full, params, post);
            let got = matches(spec, &part, params, post);
            assert_eq!(got, want, "spec {spec}, post {post:?}, glossary {json}");
        }
    }
    total
}

const WORDS: &[&str] = &[
    "cake",
    "cakes",
    "coffee",
    "cofee",
    "cofees",
    "ice",
    "cream",
    "icecream",
    "home",
    "made",
    "homemade",
    "loaf",
    "loaves",
    "mouse",
    "mice",
    "child",
    "children",
    "the",
    "a",
    "of",
    "pain",
    "au",
    "chocolat",
    "chocolate",
    "date",
    "dates",
    "tea",
    "teas",
    "sour",
    "dough",
    "sourdough",
    "rounti",
    "rountis",
    "focaccia",
    "focacias",
    "annotation",
    "annotate",
    "superstition",
    "superset",
    "Zork",
    "cork",
    "fork",
    "pork",
    "work",
    "ISDN",
    "CoIP",
    "café",
    "cafe",
    "straße",
    "kilobits",
    "kilobytes",
    "TCP/IP",
    "C++",
    "±",
    "good",
    "to",
    "go",
    "food",
    "e-mail",
    "email",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(WORDS).prop_map(str::to_string),
        1 => "[a-e]{3,9}",
        // A word of the list with one letter swapped, dropped or doubled.
        2 => (proptest::sample::select(WORDS), 0usize..8, 0u8..3).prop_map(|(w, at, how)| {
            let mut c: Vec<char> = w.chars().collect();
            let at = at % c.len().max(1);
            match how {
                0 if at + 1 < c.len() => c.swap(at, at + 1),
                1 if c.len() > 1 => {
                    c.remove(at);
                }
                _ => {
                    let x = c[at];
                    c.insert(at, x);
                }
            }
            c.into_iter().collect()
        }),
    ]
}

fn term() -> impl Strategy<Value = String> {
    proptest::collection::vec(word(), 1..=3).prop_map(|w| w.join(" "))
}

fn glossary_json() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        (
            term(),
            proptest::collection::vec(term(), 0..=2),
            any::<bool>(),
            proptest::option::of(term()),
        ),
        1..24,
    )
    .prop_map(|entries| {
        let entries: Vec<serde_json::Value> = entries
            .into_iter()
            .enumerate()
            .map(|(i, (source, aliases, case, context))| {
                let mut e = serde_json::json!({
                    "id": format!("e{i}"), "source": source, "target": format!("t{i}"),
                    "aliases": aliases,
                });
                if case && i % 3 == 0 {
                    e["case_sensitive"] = true.into();
                }
                if let Some(c) = context.filter(|_| i % 4 == 1) {
                    e["context"] = serde_json::json!({"not": [c]});
                }
                e
            })
            .collect();
        serde_json::json!({"entries": entries}).to_string()
    })
}

fn post() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        (
            word(),
            proptest::sample::select(&[" ", " ", " ", ", ", ". ", "-", "\n"][..]),
        ),
        1..14,
    )
    .prop_map(|ws| ws.into_iter().map(|(w, sep)| format!("{w}{sep}")).collect())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn compiled_candidates_give_the_same_matches(g in glossary_json(), posts in proptest::collection::vec(post(), 1..4)) {
        same_matches(&g, &posts, &Params::default());
    }

    #[test]
    fn and_with_other_bounds_and_thresholds(g in glossary_json(), posts in proptest::collection::vec(post(), 1..3), one in 2usize..6, two in 4usize..9, threshold in 0.3f64..0.95) {
        let params = Params { edit_one_from: one, edit_two_from: two, threshold, ..Params::default() };
        same_matches(&g, &posts, &params);
    }
}

#[test]
fn the_known_cases_match_alike() {
    let g = r#"{"entries":[
        {"id":"loaf","source":"loaf","target":"x"},
        {"id":"pain","source":"pain au chocolat","target":"y"},
        {"id":"cookie","source":"cookie","target":"z","aliases":["biscuit"]},
        {"id":"sour","source":"sourdough","target":"w"},
        {"id":"coffee","source":"cold coffee","target":"v"},
        {"id":"sym","source":"±","target":"pm"}]}"#;
    let posts: Vec<String> = [
        "40 loaves of rye",
        "pain au chocolate",
        "biscuts and cookies",
        "sour dough bread",
        "cold cofees ± 2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let candidates = same_matches(g, &posts, &Params::default());
    assert!(candidates < 6 * posts.len(), "{candidates}");
}

#[test]
fn a_damaged_or_cut_file_is_refused_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let gpath = dir.path().join("g.json");
    std::fs::write(
        &gpath,
        r#"{"entries":[{"source":"cold coffee","target":"x"},{"source":"tea","target":"y","aliases":["chai"]}]}"#,
    )
    .unwrap();
    let out = dir.path().join("g.glossa-index");
    build(&gpath, &out).unwrap();
    let good = std::fs::read(&out).unwrap();
    assert!(Compiled::open(&out, "g.json").is_ok());
    // Every byte flipped in turn, and every length cut: an error naming
    // the file, or (a byte in the entries' padding) the same entries.
    let want: Vec<String> = {
        let c = Arc::new(Compiled::open(&out, "g.json").unwrap());
        c.part(&[0, 1])
            .unwrap()
            .entries
            .iter()
            .map(|e| e.id.clone())
            .collect()
    };
    for at in 0..good.len() {
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        std::fs::write(&out, &bad).unwrap();
        match Compiled::open(&out, "g.json") {
            Err(e) => assert!(e.to_string().contains("g.glossa-index"), "{e}"),
            Ok(c) => {
                let c = Arc::new(c);
                let read = c
                    .candidates(["cold cofee and chai tea"], &Params::default())
                    .and_then(|ids| c.part(&ids));
                if let Ok(g) = read {
                    let ids: Vec<String> = g.entries.iter().map(|e| e.id.clone()).collect();
                    assert_eq!(ids, want, "byte {at} flipped");
                }
            }
        }
    }
    for len in 0..good.len() {
        std::fs::write(&out, &good[..len]).unwrap();
        let err = Compiled::open(&out, "g.json").unwrap_err();
        assert!(err.to_string().contains("g.glossa-index"), "{err}");
    }
}

#[test]
fn a_stale_file_is_rebuilt_and_a_fresh_one_reused() {
    let dir = tempfile::tempdir().unwrap();
    let gpath = dir.path().join("g.json");
    std::fs::write(&gpath, r#"{"entries":[{"source":"tea","target":"y"}]}"#).unwrap();
    let out = cache_path(dir.path(), &gpath);
    let (_, how) = open_fresh(&gpath, &out).unwrap();
    assert_eq!(how, Freshness::Built);
    let (c, how) = open_fresh(&gpath, &out).unwrap();
    assert_eq!((how, c.len()), (Freshness::Fresh, 1));
    std::fs::write(
        &gpath,
        r#"{"entries":[{"source":"tea","target":"y"},{"source":"cake","target":"z"}]}"#,
    )
    .unwrap();
    let (c, how) = open_fresh(&gpath, &out).unwrap();
    assert_eq!((how, c.len()), (Freshness::Built, 2));
    std::fs::write(&out, b"GLOSSAIX\x09\x00\x00\x00\x00\x00\x00\x00").unwrap();
    let (c, how) = open_fresh(&gpath, &out).unwrap();
    assert!(
        matches!(&how, Freshness::Rebuilt(why) if why.contains("file format 9")),
        "{how:?}"
    );
    assert_eq!(c.len(), 2);
}

/// The file records the SHA-256 of the glossary file's bytes, the
/// byte-order mark included (the text is hashed while it is parsed, after
/// the mark is dropped): a file with one is not rebuilt on every run.
#[test]
fn the_recorded_hash_is_the_files_with_or_without_a_byte_order_mark() {
    let dir = tempfile::tempdir().unwrap();
    for bom in ["", "\u{feff}"] {
        let gpath = dir.path().join("g.json");
        let json = format!(r#"{bom}{{"entries":[{{"source":"tea","target":"y"}}]}}"#);
        std::fs::write(&gpath, json).unwrap();
        let out = dir.path().join("g.glossa-index");
        build(&gpath, &out).unwrap();
        let c = Compiled::open(&out, "g.json").unwrap();
        let want = crate::fsutil::sha256_file(&gpath).unwrap();
        assert_eq!(c.header.sha256, want, "bom {bom:?}");
    }
}

/// The posting list of `key` in `map`, or none.
fn listed(c: &Compiled, found: Option<u64>) -> Vec<u32> {
    let mut out = Vec::new();
    if let Some(at) = found {
        c.posting(at, usize::MAX, &mut out).unwrap();
    }
    out
}

/// The file is built in chunks of entries side by side, each distinct
/// word stemmed once: every map must still list, for each of its keys,
/// exactly the entries whose keys give it (as defined entry by entry
/// here), across chunk boundaries, and every entry must read back as it
/// was loaded.
#[test]
fn each_map_lists_the_entries_of_its_keys_across_chunks() {
    let n = 2 * CHUNK + CHUNK / 2;
    let w = |i: usize| WORDS[i % WORDS.len()];
    let entries: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            let mut e = serde_json::json!({
                "id": format!("e{i}"),
                "source": format!("{} {}", w(i), w(i / WORDS.len() + 3)),
                "target": format!("t{i}"),
            });
            if i % 3 == 0 {
                // Two aliases of the same key: one trigram set.
                e["aliases"] = serde_json::json!([w(i * 7), w(i * 7).to_uppercase(), w(i + 1)]);
            }
            e
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let gpath = dir.path().join("g.json");
    std::fs::write(
        &gpath,
        serde_json::to_string_pretty(&serde_json::json!({ "entries": entries })).unwrap(),
    )
    .unwrap();
    let full = Glossary::load(&gpath).unwrap();
    let out = dir.path().join("g.glossa-index");
    build(&gpath, &out).unwrap();
    let c = Arc::new(Compiled::open(&out, "g.json").unwrap());

    type Lists = std::collections::BTreeMap<Vec<u8>, std::collections::BTreeSet<u32>>;
    let (mut words, mut stems, mut joined, mut grams) =
        (Lists::new(), Lists::new(), Lists::new(), Lists::new());
    let mut keys = std::collections::BTreeSet::new();
    let mut alias_keys: Vec<(u32, u32)> = Vec::new();
    for (i, e) in full.entries.iter().enumerate() {
        let i = i as u32;
        for key in keys_of(e) {
            keys.insert(key.to_string());
            let mut whole = String::new();
            for word in phrase::key_words(key) {
                words.entry(word.into()).or_default().insert(i);
                stems.entry(stem_word(word).into()).or_default().insert(i);
                whole.push_str(word);
            }
            joined
                .entry(stem_word(&whole).into())
                .or_default()
                .insert(i);
            joined.entry(whole.into()).or_default().insert(i);
        }
        let mut sets: Vec<Vec<u64>> = e.alias_keys.iter().map(|k| trigrams(k)).collect();
        sets.sort_unstable();
        sets.dedup();
        for set in sets {
            let id = alias_keys.len() as u32;
            alias_keys.push((i, set.len() as u32));
            for g in set {
                grams
                    .entry(g.to_be_bytes().to_vec())
                    .or_default()
                    .insert(id);
            }
        }
    }
    assert!(words.len() > 50 && alias_keys.len() > n / 3, "a poor test");
    type Get<'a> = Box<dyn Fn(&[u8]) -> Option<u64> + 'a>;
    for (name, len, get, want) in [
        (
            "words",
            c.words.len(),
            Box::new(|k: &[u8]| c.words.get(k)) as Get<'_>,
            &words,
        ),
        (
            "stems",
            c.stems.len(),
            Box::new(|k: &[u8]| c.stems.get(k)),
            &stems,
        ),
        (
            "joined",
            c.joined.len(),
            Box::new(|k: &[u8]| c.joined.get(k)),
            &joined,
        ),
        (
            "grams",
            c.grams.len(),
            Box::new(|k: &[u8]| c.grams.get(k)),
            &grams,
        ),
    ] {
        assert_eq!(len, want.len(), "{name}: number of keys");
        for (key, ids) in want {
            let got = listed(&c, get(key));
            assert_eq!(
                got,
                ids.iter().copied().collect::<Vec<_>>(),
                "{name}: {key:?}"
            );
        }
    }
    assert_eq!(c.keys.len(), keys.len());
    assert!(keys.iter().all(|k| c.has_key(k)));
    assert_eq!(c.alias_key_count(), alias_keys.len());
    for (id, want) in alias_keys.iter().enumerate() {
        assert_eq!(c.alias_key(id as u32), Some(*want), "alias key {id}");
    }
    let all: Vec<u32> = (0..n as u32).collect();
    let read = c.part(&all).unwrap();
    assert_eq!(read.entries, full.entries);
}
