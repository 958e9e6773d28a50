//! The invariants check (src/invariants.rs) on the issue's example through
//! the binary, and on real human translations: Django's gettext catalogues
//! (bench/invariants_real.sh unpacks them outside the repo). A correct
//! translation should not be flagged; a corrupted one (a digit changed, a
//! placeholder or a handle dropped) should be.

use glossa::invariants::{check, Issue, Kind, Problem};
use std::path::{Path, PathBuf};

/// The catalogues' folder, or `None` (skip) when they are not unpacked;
/// under CI=true they must be.
fn catalogues() -> Option<PathBuf> {
    let dir = match std::env::var_os("GLOSSA_DJANGO_PO") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let cache = std::env::var_os("GLOSSA_CACHE")
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                        .join(".cache/glossa-ci")
                });
            cache.join("django-5.2.19")
        }
    };
    if dir.join(".complete").exists() || dir.join("django").is_dir() {
        return Some(dir);
    }
    let message = format!(
        "Django's catalogues are not in {} (bash bench/invariants_real.sh)",
        dir.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("the invariants real-data test is required under CI=true: {message}");
    }
    eprintln!("note: {message}; skipping");
    None
}

/// A PO string's text: the quoted pieces joined, escapes undone.
fn unquote(line: &str) -> String {
    let inner = line.trim();
    let inner = inner
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or("");
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// The translated (source, target) pairs of a PO file: each msgid with its
/// msgstr; for plurals, msgid_plural with the last plural form (the
/// "other" form, which keeps the count's placeholder). Fuzzy and obsolete
/// entries are left out.
fn pairs(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        if block.contains("#, fuzzy") {
            continue;
        }
        let mut fields: Vec<(String, String)> = Vec::new();
        for line in block.lines() {
            let line = line.trim_end();
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            if line.starts_with('"') {
                if let Some(last) = fields.last_mut() {
                    last.1.push_str(&unquote(line));
                }
                continue;
            }
            let Some((key, rest)) = line.split_once(' ') else {
                continue;
            };
            fields.push((key.to_string(), unquote(rest)));
        }
        let get = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        let Some(id) = get("msgid").filter(|s| !s.is_empty()) else {
            continue;
        };
        let (source, target) = match get("msgid_plural") {
            Some(plural) => {
                let last = fields.iter().rev().find(|(k, _)| k.starts_with("msgstr["));
                (plural, last.map(|(_, v)| v.clone()).unwrap_or_default())
            }
            None => (id, get("msgstr").unwrap_or_default()),
        };
        if !target.trim().is_empty() {
            out.push((source, target));
        }
    }
    out
}

fn language_pairs(dir: &Path, lang: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "po")
                && p.parent().and_then(Path::parent).and_then(Path::file_name)
                    == Some(lang.as_ref())
            {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(
        !files.is_empty(),
        "no catalogue of {lang} in {}",
        dir.display()
    );
    files.iter().flat_map(|f| pairs(f)).collect()
}

const LANGUAGES: [&str; 12] = [
    "ar", "fa", "hi", "bn", "th", "zh_Hans", "ja", "ko", "ru", "de", "fr", "tr",
];

fn show(issues: &[Issue]) -> String {
    issues
        .iter()
        .map(Issue::describe)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The same text with its first digit (of any script) changed to its
/// neighbour in that script: "7" → "8", "٩" → "٨".
fn change_a_digit(text: &str) -> Option<String> {
    let (at, c) = text.char_indices().find(|(_, c)| c.is_numeric())?;
    let up = char::from_u32(c as u32 + 1).filter(|n| n.is_numeric());
    let other = up.or_else(|| char::from_u32(c as u32 - 1))?;
    Some(format!(
        "{}{other}{}",
        &text[..at],
        &text[at + c.len_utf8()..]
    ))
}

fn digits(text: &str) -> usize {
    text.chars().filter(|c| c.is_numeric()).count()
}

fn numeric(kind: Kind) -> bool {
    matches!(kind, Kind::Number | Kind::Amount | Kind::Time | Kind::Date)
}

#[derive(Debug, Default)]
struct Tally {
    pairs: usize,
    /// Pairs whose source holds an invariant, and those flagged.
    with: usize,
    flagged: usize,
    /// Corruptions made and caught, per kind of corruption.
    made: [usize; 3],
    caught: [usize; 3],
}

/// Check every pair of a language as translated, then corrupted: a digit
/// changed (where source and translation have as many digits, so the
/// digit is the source's), a placeholder dropped (one the translation has
/// once), a handle dropped (one added to both sides).
fn tally(pairs: &[(String, String)], lang: &str, verbose: bool) -> Tally {
    let mut t = Tally {
        pairs: pairs.len(),
        ..Tally::default()
    };
    for (source, target) in pairs {
        let wanted = check(source, "", lang);
        if wanted.is_empty() {
            continue;
        }
        t.with += 1;
        let issues = check(source, target, lang);
        if !issues.is_empty() {
            t.flagged += 1;
            if verbose {
                eprintln!("[{lang}] {source:?} → {target:?}: {}", show(&issues));
            }
            continue;
        }
        let mut corrupt = |which: usize, changed: Option<String>| {
            if let Some(changed) = changed {
                t.made[which] += 1;
                if !check(source, &changed, lang).is_empty() {
                    t.caught[which] += 1;
                } else if verbose {
                    eprintln!("[{lang}] not caught: {source:?} → {changed:?}");
                }
            }
        };
        if wanted.iter().any(|i| numeric(i.kind)) && digits(source) == digits(target) {
            corrupt(0, change_a_digit(target));
        }
        if let Some(p) = wanted.iter().find(|i| i.kind == Kind::Placeholder) {
            if target.matches(p.text.as_str()).count() == 1 {
                corrupt(1, Some(target.replacen(p.text.as_str(), "", 1)));
            }
        }
        let source = format!("{source} @glossa_cafe");
        if check(&source, &format!("{target} @glossa_cafe"), lang).is_empty() {
            t.made[2] += 1;
            if !check(&source, target, lang).is_empty() {
                t.caught[2] += 1;
            }
        }
    }
    t
}

#[test]
fn real_translations_rarely_false_alarm_and_corruptions_are_caught() {
    let Some(dir) = catalogues() else { return };
    let verbose = std::env::var_os("GLOSSA_INVARIANTS_VERBOSE").is_some();
    let mut all = Tally::default();
    for lang in LANGUAGES {
        let t = tally(&language_pairs(&dir, lang), lang, verbose);
        eprintln!("{lang}: {t:?}");
        all.pairs += t.pairs;
        all.with += t.with;
        all.flagged += t.flagged;
        for k in 0..3 {
            all.made[k] += t.made[k];
            all.caught[k] += t.caught[k];
        }
    }
    eprintln!("twelve: {all:?}");
    // Every other language Django ships, for the false-alarm rate only.
    let mut others = Tally::default();
    let locales = dir.join("django/conf/locale");
    let mut langs: Vec<String> = std::fs::read_dir(&locales)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("LC_MESSAGES").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|l| !LANGUAGES.contains(&l.as_str()) && !l.starts_with("en"))
        .collect();
    langs.sort();
    for lang in &langs {
        let t = tally(&language_pairs(&dir, lang), lang, verbose);
        others.pairs += t.pairs;
        others.with += t.with;
        others.flagged += t.flagged;
        for k in 0..3 {
            others.made[k] += t.made[k];
            others.caught[k] += t.caught[k];
        }
    }
    eprintln!("{} others: {others:?}", langs.len());

    // False alarms. Every pair flagged in these twelve languages of Django
    // 5.2.19 (9 of 2348 whose source holds an invariant) is a number
    // written as a word ("Past 7 days" → "الأيام السبعة الماضية", "6 a.m."
    // → "หกโมงเช้า"), which the check does not read (docs/formats.md,
    // "Invariants"), or a real error (Korean "1%s" for "%s"). The bound
    // leaves room for a catalogue update, not for a new kind of alarm.
    for t in [&all, &others] {
        assert!(t.with > 2000, "too few pairs with invariants: {t:?}");
        assert!(
            (t.flagged as f64) < 0.005 * t.with as f64,
            "more than 0.5% of real translations flagged: {t:?}"
        );
    }
    // Corruptions: every one the check can see must be caught.
    assert!(
        all.made[0] >= 80 && all.made[1] >= 2000 && all.made[2] >= 2000,
        "{all:?}"
    );
    for t in [&all, &others] {
        for k in 0..3 {
            assert!(
                t.caught[k] as f64 >= 0.99 * t.made[k] as f64,
                "corruption {k} caught too rarely: {t:?}"
            );
        }
    }
}

#[test]
fn real_errors_in_published_catalogues_are_caught() {
    let Some(dir) = catalogues() else { return };
    // Mistakes translators made that shipped in Django 5.2.19.
    let cases = [
        // Irish: the conversion "s" is lost, so Python raises.
        (
            "ga",
            "Delete selected %(verbose_name_plural)s",
            Kind::Placeholder,
        ),
        // Serbian: 6 a.m. given as 18 h.
        ("sr", "6 a.m.", Kind::Time),
        // Korean: a stray "1" turns "%s" into "1%s".
        ("ko", "Select %s to view", Kind::Placeholder),
    ];
    for (lang, source, kind) in cases {
        let pairs = language_pairs(&dir, lang);
        let (_, target) = pairs
            .iter()
            .find(|(s, _)| s == source)
            .unwrap_or_else(|| panic!("{lang}: no {source:?}"));
        let issues = check(source, target, lang);
        assert_eq!(issues.len(), 1, "{lang} {target:?}: {issues:?}");
        assert_eq!(issues[0].kind, kind);
    }
}

#[test]
fn the_issue_example_fails_on_a_changed_price_or_a_dropped_handle() {
    let source = "only £3.50 until 9 a.m. @cafe #weekend";
    let good = [
        "nur 3,50 £ bis 9 Uhr @cafe #weekend",
        "seulement 3,50 £ jusqu’à 9 h 00 @cafe #weekend",
        "仅需£3.50，营业至上午9点 @cafe #weekend",
        "فقط ٣٫٥٠ £ حتى الساعة ٩ صباحًا @cafe #weekend",
    ];
    for output in good {
        assert_eq!(check(source, output, "xx"), [], "{output}");
    }
    let changed = check(source, "nur £3.05 bis 9 Uhr @cafe #weekend", "de");
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(
        (
            changed[0].kind,
            changed[0].text.as_str(),
            changed[0].at.clone()
        ),
        (Kind::Amount, "£3.50", 5..11)
    );
    assert_eq!(
        changed[0].problem,
        Problem::Changed {
            found: "£3.05".into(),
            at: 4..10
        }
    );
    let dropped = check(source, "nur 3,50 £ bis 9 Uhr #weekend", "de");
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(
        (dropped[0].kind, dropped[0].text.as_str()),
        (Kind::Handle, "@cafe")
    );
    assert_eq!(&source[dropped[0].at.clone()], "@cafe");
    assert_eq!(dropped[0].problem, Problem::Missing);
}
