//! `glossa export --to tbx|tbx3` then `glossa import` through the binary
//! (issue 32 item 2): the café demo, a glossary using every field, the
//! termbases in tests/fixtures and, when unpacked, real termbases others
//! wrote come back as the same glossary; a broken TBX v3 file is refused
//! naming its line, and nothing is written.

use crate::support::{fixture, glossa, repo_file};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Run glossa; assert the exit code; stderr.
fn run(args: &[&std::ffi::OsStr], code: i32) -> String {
    let out = glossa().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(code), "{args:?}\n{stderr}");
    stderr
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `glossa export GLOSSARY --to FORMAT -o DIR/x.tbx`, then `glossa import
/// DIR/x.tbx -o DIR/back.json`: the glossary read back, and the stderr of
/// both.
fn through_tbx(glossary: &Path, format: &str, dir: &Path) -> (Value, String) {
    let (tbx, back) = (dir.join("x.tbx"), dir.join("back.json"));
    let _ = std::fs::remove_file(&back);
    let mut err = run(
        &[
            "export".as_ref(),
            glossary.as_os_str(),
            "--to".as_ref(),
            format.as_ref(),
            "-o".as_ref(),
            tbx.as_os_str(),
        ],
        0,
    );
    let text = std::fs::read_to_string(&tbx).unwrap();
    let root = match format {
        "tbx3" => "<tbx type=\"TBX-Basic\" style=\"dca\" xml:lang=",
        _ => "<martif type=\"TBX-Basic\" xml:lang=",
    };
    assert!(text.contains(root), "{text}");
    err += &run(
        &[
            "import".as_ref(),
            tbx.as_os_str(),
            "-o".as_ref(),
            back.as_os_str(),
        ],
        0,
    );
    (read_json(&back), err)
}

/// Ids filled in where they default to the source, as `import` writes
/// them only when they differ.
fn ids_filled(mut g: Value) -> Value {
    for e in g["entries"].as_array_mut().unwrap() {
        if e.get("id").is_none() {
            e["id"] = e["source"].clone();
        }
    }
    g
}

#[test]
fn the_demo_glossary_comes_back_from_a_tbx_and_a_tbx3_export() {
    let dir = TempDir::new().unwrap();
    let demo = repo_file("glossaries/cafe.json");
    let want = ids_filled(read_json(&demo));
    // The demo carries context, senses and aliases: what TBX lost before.
    assert!(want["entries"][3]["context"]["any"].is_array(), "{want}");
    for format in ["tbx", "tbx3"] {
        let (back, _) = through_tbx(&demo, format, dir.path());
        // The name is the glossary's (the TBX title), not the file's.
        assert_eq!(back["name"], "cafe");
        assert_eq!(ids_filled(back), want, "{format}");
    }
}

/// Every field of the glossary file, the glossary-wide `forbidden` words
/// included, in a glossary written as `import` writes one.
#[test]
fn a_glossary_using_every_field_comes_back_whole_and_only_a_sheet_warns() {
    let dir = TempDir::new().unwrap();
    let g = json!({
        "name": "shop & co",
        "source_lang": "en",
        "target_lang": "km",
        "forbidden": ["ថោក", "cheap <deal>"],
        "entries": [
            {"id": "cc", "source": "cold coffee", "target": "កាហ្វេត្រជាក់", "forms": ["កាហ្វេ ត្រជាក់"],
             "forbidden": ["កាហ្វេទឹកកក"], "sense": "iced \"coffee\", not <hot>",
             "aliases": ["iced coffee", "coffee on ice"],
             "context": {"any": ["glass & straw"], "not": ["cold coffee table"]}},
            {"source": "US", "target": "សហរដ្ឋអាមេរិក", "case_sensitive": true},
            {"id": "brand name", "source": "Glossa Café", "target": "Glossa Café", "keep": true, "case_sensitive": true},
            {"source": "date", "target": "ល្មើ", "context": {"not": ["save the date"]}}
        ]
    });
    let path = dir.path().join("shop.json");
    std::fs::write(&path, serde_json::to_string_pretty(&g).unwrap()).unwrap();
    for format in ["tbx", "tbx3"] {
        let (back, stderr) = through_tbx(&path, format, dir.path());
        assert_eq!(ids_filled(back), ids_filled(g.clone()), "{format}");
        assert!(!stderr.contains("forbidden"), "{stderr}");
    }
    let stderr = run(
        &[
            "export".as_ref(),
            path.as_os_str(),
            "--to".as_ref(),
            "csv".as_ref(),
            "-o".as_ref(),
            dir.path().join("x.csv").as_os_str(),
        ],
        0,
    );
    assert!(
        stderr.contains("the glossary-wide `forbidden` list (2 words) has no place in a sheet"),
        "{stderr}"
    );
}

/// Termbases written elsewhere: imported, exported in both dialects and
/// imported again, they give the first import back. The fixtures always;
/// real ones (Weblate's test termbases, unpacked by the real-file
/// checks into `$GLOSSA_CACHE/termfiles-*`) when they are there.
#[test]
fn termbases_from_elsewhere_import_the_same_after_a_tbx_export() {
    let mut files = vec![
        fixture("research-terms.tbx"),
        fixture("forbidden-terms.tbx"),
    ];
    let cache = std::env::var_os("GLOSSA_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/glossa-ci")
        });
    let real: Vec<PathBuf> = std::fs::read_dir(&cache)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|d| d.file_name().to_string_lossy().starts_with("termfiles-"))
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tbx"))
        .collect();
    if real.is_empty() {
        eprintln!(
            "note: no termfiles-*/*.tbx in {}; the fixtures only",
            cache.display()
        );
    }
    files.extend(real);
    for file in files {
        let dir = TempDir::new().unwrap();
        let first = dir.path().join("first.json");
        run(
            &[
                "import".as_ref(),
                file.as_os_str(),
                "-o".as_ref(),
                first.as_os_str(),
            ],
            0,
        );
        let want = read_json(&first);
        assert!(!want["entries"].as_array().unwrap().is_empty());
        for format in ["tbx", "tbx3"] {
            let (back, _) = through_tbx(&first, format, dir.path());
            assert_eq!(back, want, "{} via {format}", file.display());
        }
    }
}

/// Bad TBX v3 input: broken XML, a repeated concept id, a glossa note
/// spoilt by hand. Each is refused with exit 2 naming the file and line,
/// and `--out` is not written.
#[test]
fn a_bad_tbx_v3_file_is_refused_naming_its_line_and_nothing_is_written() {
    let dir = TempDir::new().unwrap();
    let head = "<?xml version=\"1.0\"?>\n<tbx type=\"TBX-Basic\" style=\"dca\" xml:lang=\"en\" \
                xmlns=\"urn:iso:std:iso:30042:ed-2\"><text><body>\n";
    let concept = |id: &str, en: &str, de: &str| {
        format!(
            "<conceptEntry id=\"{id}\"><langSec xml:lang=\"en\"><termSec><term>{en}</term></termSec></langSec>\n\
             <langSec xml:lang=\"de\"><termSec><term>{de}</term></termSec></langSec></conceptEntry>\n"
        )
    };
    let tail = "</body></text></tbx>\n";
    let broken = format!(
        "{head}{}{tail}",
        concept("c1", "tea", "Tee")
            .replace("</term></termSec></langSec></c", "</term></langSec></c")
    );
    let twice = format!(
        "{head}{}{}{tail}",
        concept("c1", "tea", "Tee"),
        concept("c1", "coffee", "Kaffee")
    );
    // glossa's own export of the demo, one note's field misspelt.
    let ours = dir.path().join("ours.tbx");
    run(
        &[
            "export".as_ref(),
            "--to".as_ref(),
            "tbx3".as_ref(),
            "-o".as_ref(),
            ours.as_os_str(),
        ],
        0,
    );
    let ours = std::fs::read_to_string(&ours).unwrap();
    let cookie = ours.find("<conceptEntry id=\"cookie\">").unwrap();
    let cookie_line = ours[..cookie].matches('\n').count() + 1;
    let spoilt = ours.replacen("glossa.context.not:", "glossa.context.none:", 1);
    let cases = [
        (
            "broken.tbx",
            broken,
            "broken.tbx:4:".to_string(),
            "invalid XML",
        ),
        (
            "twice.tbx",
            twice,
            "twice.tbx:5:".to_string(),
            "duplicate id `c1` (first on line 3)",
        ),
        (
            "spoilt.tbx",
            spoilt,
            format!("spoilt.tbx:{cookie_line}:"),
            "note `glossa.context.none: cookie policy`: not a glossa field",
        ),
    ];
    for (name, text, at, what) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = dir.path().join("out.json");
        let stderr = run(
            &[
                "import".as_ref(),
                path.as_os_str(),
                "-o".as_ref(),
                out.as_os_str(),
            ],
            2,
        );
        assert!(stderr.contains(&at), "{name}: {stderr}");
        assert!(stderr.contains(what), "{name}: {stderr}");
        assert!(!out.exists(), "{name}");
    }
}
