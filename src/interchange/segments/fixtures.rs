//! The readers on the files of tests/fixtures/segments (real excerpts of
//! Django's catalogues and hand-written files; see its README.md) and on
//! hostile inputs written here.

use super::*;
use std::io::Write;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/segments")
        .join(name)
}

fn read_with(path: &Path, options: &Options) -> Result<Vec<Segment>, InputError> {
    open(path, options)?.collect()
}

fn read(name: &str) -> Vec<Segment> {
    read_with(&fixture(name), &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn pairs(segments: &[Segment]) -> Vec<(&str, &str)> {
    segments
        .iter()
        .map(|s| (s.source.as_str(), s.target.as_str()))
        .collect()
}

fn ids(segments: &[Segment]) -> Vec<&str> {
    segments.iter().map(|s| s.id.as_str()).collect()
}

/// A file of `bytes` in a temporary folder.
fn file(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    (dir, path)
}

fn error_of(name: &str, bytes: &[u8], options: &Options) -> InputError {
    let (_dir, path) = file(name, bytes);
    read_with(&path, options).expect_err("an error")
}

/// The 1-based line of the first line of `path` that starts (after
/// indentation) with `start`.
fn line_starting(path: &Path, start: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    1 + text
        .lines()
        .position(|l| l.trim_start().starts_with(start))
        .unwrap_or_else(|| panic!("no line starts with {start}"))
}

#[test]
fn a_real_czech_catalogue_reads_entry_by_entry_with_plurals_and_contexts() {
    let segments = read("django-cs.po");
    // 15 singular entries and 2 plurals of 4 forms (the header is not one).
    assert_eq!(segments.len(), 15 + 2 * 4);
    let first = &segments[0];
    assert_eq!(
        (first.id.as_str(), first.target.as_str()),
        ("Afrikaans", "afrikánsky")
    );
    assert_eq!(
        first.line,
        line_starting(&fixture("django-cs.po"), "msgid \"Afrikaans\"")
    );
    // A plural form past the first translates msgid_plural; its text was
    // split over several lines in the file.
    let source =
        "Ensure this value has at least %(limit_value)d characters (it has %(show_value)d).";
    let form = segments
        .iter()
        .find(|s| s.id.ends_with("[2]") && s.source == source)
        .expect("the third form");
    assert_eq!(
        form.target,
        "Tato hodnota má mít nejméně %(limit_value)d znaku (nyní má %(show_value)d)."
    );
    assert_eq!(
        form.id,
        "Ensure this value has at least %(limit_value)d character (it has %(show_value)d).[2]"
    );
    // A context joins its msgid with U+0004, as gettext keys them.
    let jan = segments
        .iter()
        .find(|s| s.id == "abbrev. month\u{4}Jan.")
        .unwrap();
    assert_eq!(jan.target, "Led.");
    assert!(segments
        .iter()
        .any(|s| s.target.contains("\"%(extension)s\"")));
}

#[test]
fn converted_excerpts_read_as_their_catalogue_in_every_format() {
    for lang in ["cs", "ar"] {
        let po = read(&format!("django-{lang}.po"));
        for other in ["xlf", "tmx"] {
            let name = format!("django-{lang}.{other}");
            let segments = read(&name);
            let (mut a, mut b) = (pairs(&po), pairs(&segments));
            a.sort();
            b.sort();
            assert_eq!(a, b, "{name}");
        }
    }
    // Arabic has six plural forms, each a segment.
    let ar = read("django-ar.po");
    assert_eq!(ar.iter().filter(|s| s.id.ends_with(']')).count(), 6);
    assert!(ar.iter().all(|s| s
        .target
        .chars()
        .any(|c| ('\u{600}'..='\u{6ff}').contains(&c))));
}

#[test]
fn xliff_2_keeps_the_text_of_spans_and_markers_and_drops_codes() {
    let path = fixture("xliff2.xlf");
    let segments = read("xliff2.xlf");
    assert_eq!(
        pairs(&segments),
        [
            (
                "Our cold coffee is back.",
                "Notre café froid est de retour."
            ),
            ("Open until 9 a.m.", "Ouvert jusqu'à 9 h."),
            (
                "Press Save to keep your cookies.",
                "Appuyez sur Enregistrer pour garder vos biscuits."
            ),
            ("Café & bakery", "Café & boulangerie"),
            ("Weekend", "Week-end"),
        ]
    );
    // Several segments in a unit: unit/segment; the second file's ids
    // carry its id.
    assert_eq!(ids(&segments), ["u1/s1", "u1/s2", "u2", "u5", "f2/u1"]);
    assert_eq!(
        segments[0].line,
        line_starting(&path, "<segment id=\"s1\" state")
    );
    assert_eq!(segments[1].line, line_starting(&path, "<segment id=\"s2\""));
}

#[test]
fn xliff_1_2_reads_translated_units_only() {
    let segments = read("xliff12.xlf");
    assert_eq!(
        pairs(&segments),
        [
            (
                "Try our cold coffee!",
                "Probieren Sie unseren kalten Kaffee!"
            ),
            ("Bold news today", "Fette Neuigkeiten heute"),
            ("Opening hours", "Öffnungszeiten"),
            ("Contact", "Kontakt"),
        ]
    );
    assert_eq!(ids(&segments), ["1", "2", "8", "footer.html/1"]);
    assert_eq!(
        segments[0].line,
        line_starting(&fixture("xliff12.xlf"), "<trans-unit id=\"1\"")
    );
}

#[test]
fn xliff_languages_must_be_the_ones_asked_for() {
    let options = Options {
        target_lang: Some("fr"),
        ..Options::default()
    };
    let err = read_with(&fixture("xliff12.xlf"), &options).unwrap_err();
    assert!(err.to_string().contains("`de-DE`, not `fr`"), "{err}");
    let options = Options {
        target_lang: Some("de"),
        source_lang: Some("EN"),
        ..Options::default()
    };
    assert_eq!(
        read_with(&fixture("xliff12.xlf"), &options).unwrap().len(),
        4
    );
}

#[test]
fn a_utf16_tmx_reads_the_target_language_asked_for() {
    let options = Options {
        target_lang: Some("de"),
        ..Options::default()
    };
    let segments = read_with(&fixture("tmx-utf16le.tmx"), &options).unwrap();
    assert_eq!(
        pairs(&segments),
        [
            ("Fresh cookies at 9 a.m.", "Frische Kekse um 9 Uhr."),
            ("Only £3.50 today!", "Nur heute 3,50 £!"),
        ]
    );
    assert_eq!(ids(&segments), ["cafe-1", "2"]);
    // Lines of the decoded text: the file is UTF-16 with CRLF.
    assert_eq!(segments[0].line, 8);
    let options = Options {
        target_lang: Some("fr-FR"),
        ..Options::default()
    };
    let fr = read_with(&fixture("tmx-utf16le.tmx"), &options).unwrap();
    assert_eq!(fr[1].target, "Seulement 3,50 £ aujourd'hui !");
}

#[test]
fn a_tmx_of_several_target_languages_needs_one_named() {
    let err = read_with(&fixture("tmx-utf16le.tmx"), &Options::default()).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("DE-DE") && text.contains("FR-FR"), "{text}");
    assert_eq!(err.line, Some(8), "{text}");
}

#[test]
fn tmx_source_language_comes_from_the_header_or_the_options() {
    let tmx = "<tmx version=\"1.4\"><header srclang=\"*all*\"/><body>\
               <tu><tuv xml:lang=\"de\"><seg>Kaffee</seg></tuv>\
               <tuv xml:lang=\"en\"><seg>coffee</seg></tuv></tu></body></tmx>";
    let err = error_of("a.tmx", tmx.as_bytes(), &Options::default());
    assert!(err.to_string().contains("srclang"), "{err}");
    let (_dir, path) = file("a.tmx", tmx.as_bytes());
    let options = Options {
        source_lang: Some("en"),
        ..Options::default()
    };
    let segments = read_with(&path, &options).unwrap();
    assert_eq!(pairs(&segments), [("coffee", "Kaffee")]);
    assert_eq!(segments[0].id, "1");
}

#[test]
fn hand_written_po_skips_header_fuzzy_untranslated_and_obsolete() {
    let segments = read("hand.po");
    assert_eq!(
        pairs(&segments),
        [
            ("Cold coffee", "Kalter Kaffee"),
            ("date", "Dattel"),
            ("date", "Datum"),
            (
                "Tab\there, quote \"x\", backslash \\ and\na new line",
                "Tab\thier, Anführung \"x\", Backslash \\ und\nneue Zeile"
            ),
            ("%d cookie", "%d Keks"),
        ]
    );
    assert_eq!(
        ids(&segments),
        [
            "Cold coffee",
            "fruit\u{4}date",
            "calendar\u{4}date",
            "Tab\there, quote \"x\", backslash \\ and\na new line",
            "%d cookie[0]"
        ]
    );
    let path = fixture("hand.po");
    assert_eq!(
        segments[0].line,
        line_starting(&path, "msgid \"Cold coffee\"")
    );
    // The msgid's line, not the msgctxt's.
    assert_eq!(
        segments[2].line,
        line_starting(&path, "msgctxt \"calendar\"") + 1
    );
}

#[test]
fn po_errors_name_the_line() {
    let err = error_of(
        "a.po",
        b"msgid \"a\"\nmsgstr \"b\\q\"\n",
        &Options::default(),
    );
    assert_eq!(err.line, Some(2));
    assert!(err.message.contains("unknown escape"), "{err}");
    let err = error_of(
        "a.po",
        b"msgid \"a\"\nmsgstr \"b\"\n\"unterminated\n",
        &Options::default(),
    );
    assert_eq!(err.line, Some(3));
    let err = error_of(
        "a.po",
        b"msgid \"ok\"\nmsgstr \"gut\"\n\nmsgid \"caf\xe9\"\n",
        &Options::default(),
    );
    assert_eq!(err.line, Some(4));
    assert!(err.message.contains("not UTF-8"), "{err}");
    // A segment read before the error still comes first.
    let (_dir, path) = file("b.po", b"msgid \"ok\"\nmsgstr \"gut\"\n\nmsgstr[x] \"\"\n");
    let items: Vec<_> = open(&path, &Options::default()).unwrap().collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().target, "gut");
    assert!(items[1].is_err());
}

#[test]
fn a_line_aligned_pair_reads_line_by_line_and_counts_a_mismatch() {
    let options = Options {
        target_file: Some(&fixture("pair.de.txt")),
        ..Options::default()
    };
    let segments = read_with(&fixture("pair.en.txt"), &options).unwrap();
    assert_eq!(
        pairs(&segments),
        [
            ("Cold coffee", "Kalter Kaffee"),
            ("Fresh cookies", "Frische Kekse"),
            ("Open at 9 a.m.", "Geöffnet um 9 Uhr.")
        ]
    );
    assert_eq!(ids(&segments), ["1", "3", "4"]);
    let short = fixture("pair-short.de.txt");
    let options = Options {
        target_file: Some(&short),
        ..Options::default()
    };
    let items: Vec<_> = open(&fixture("pair.en.txt"), &options).unwrap().collect();
    assert_eq!(items.len(), 3, "two segments, then the error");
    let err = items[2].as_ref().unwrap_err().to_string();
    assert!(
        err.contains("pair.en.txt has 4 lines") && err.contains("pair-short.de.txt has 3"),
        "{err}"
    );
}

#[test]
fn jsonl_ids_default_to_the_line_and_unknown_fields_are_refused() {
    let segments = read("segments.jsonl");
    assert_eq!(ids(&segments), ["p1", "3"]);
    assert_eq!(segments[1].line, 3);
    let err = error_of(
        "a.jsonl",
        b"{\"source\": \"a\", \"target\": \"b\"}\n{\"source\": \"a\", \"taget\": \"b\"}\n",
        &Options::default(),
    );
    assert_eq!(err.line, Some(2));
    assert!(err.message.contains("taget"), "{err}");
}

#[test]
fn the_format_is_named_or_told_and_the_pair_needs_both_files() {
    let err = error_of("notes.txt", b"hello\n", &Options::default());
    assert!(err.message.contains("cannot tell the format"), "{err}");
    let options = Options {
        format: Some(SegmentFormat::Lines),
        ..Options::default()
    };
    let err = error_of("notes.txt", b"hello\n", &options);
    assert!(err.message.contains("translation file"), "{err}");
    let target = fixture("pair.de.txt");
    let options = Options {
        format: Some(SegmentFormat::Tmx),
        target_file: Some(&target),
        ..Options::default()
    };
    assert!(error_of("a.tmx", b"<tmx/>", &options)
        .message
        .contains("line-aligned"));
    // A JSONL file named .txt is told by its content.
    let (_dir, path) = file("out.txt", b"{\"source\": \"a\", \"target\": \"b\"}\n");
    assert_eq!(read_with(&path, &Options::default()).unwrap().len(), 1);
    let err = error_of("a.tmx", b"<xliff version=\"1.2\"/>", &Options::default());
    assert!(err.message.contains("not a TMX file"), "{err}");
}

const LAUGHS: &str = r#"<?xml version="1.0"?>
<!DOCTYPE tmx [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
]>
<tmx version="1.4"><header srclang="en"/><body><tu><tuv xml:lang="en"><seg>&lol2;</seg></tuv><tuv xml:lang="de"><seg>x</seg></tuv></tu></body></tmx>
"#;

#[test]
fn entities_are_never_expanded() {
    let err = error_of("a.tmx", LAUGHS.as_bytes(), &Options::default());
    assert!(err.message.contains("declares entities"), "{err}");
    assert_eq!(err.line, Some(2));
    // Without a declaration, an unknown reference is an error too.
    let xlf = "<xliff version=\"1.2\"><file><body><trans-unit id=\"1\">\n<source>&lol;</source>\
               <target>x</target></trans-unit></body></file></xliff>";
    let err = error_of("a.xlf", xlf.as_bytes(), &Options::default());
    assert!(err.message.contains("unknown entity &lol;"), "{err}");
    assert_eq!(err.line, Some(2));
    // An external DTD is named, never fetched.
    let tmx = "<!DOCTYPE tmx SYSTEM \"http://127.0.0.1:9/tmx14.dtd\"><tmx><header srclang=\"en\"/>\
               <body><tu><tuv xml:lang=\"en\"><seg>a &amp; b &#233;</seg></tuv>\
               <tuv xml:lang=\"de\"><seg>c</seg></tuv></tu></body></tmx>";
    let (_dir, path) = file("a.tmx", tmx.as_bytes());
    let segments = read_with(&path, &Options::default()).unwrap();
    assert_eq!(segments[0].source, "a & b é");
}

#[test]
fn deep_nesting_is_refused_without_recursion() {
    let mut xml = String::from("<tmx><header srclang=\"en\"/><body>\n");
    xml.push_str(&"<hi>".repeat(100_000));
    let err = error_of("a.tmx", xml.as_bytes(), &Options::default());
    assert!(err.message.contains("nested more than"), "{err}");
    assert_eq!(err.line, Some(2));
}

#[test]
fn cut_short_and_broken_files_name_the_line() {
    let tmx = "<tmx><header srclang=\"en\"/><body>\n<tu><tuv xml:lang=\"en\"><seg>cut";
    let err = error_of("a.tmx", tmx.as_bytes(), &Options::default());
    assert!(err.message.contains("ends inside"), "{err}");
    let tmx = b"<tmx><header srclang=\"en\"/><body>\n<tu>\n<tuv xml:lang=\"en\"><seg>caf\xe9</seg></tuv></tu></body></tmx>";
    let err = error_of("a.tmx", tmx, &Options::default());
    assert!(err.message.contains("not UTF-8"), "{err}");
    assert_eq!(err.line, Some(3));
    let xlf = "<xliff version=\"1.2\"><file><body>\n<trans-unit id=\"1\"><source>a</target>";
    let err = error_of("a.xlf", xlf.as_bytes(), &Options::default());
    assert!(err.message.contains("not well-formed"), "{err}");
    assert_eq!(err.line, Some(2));
}

#[test]
fn utf16_without_a_mark_is_read() {
    let tmx = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<tmx><header srclang=\"en\"/><body>\
               <tu><tuv xml:lang=\"en\"><seg>tea</seg></tuv><tuv xml:lang=\"ja\"><seg>お茶</seg>\
               </tuv></tu></body></tmx>";
    for bytes in [
        tmx.encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect::<Vec<u8>>(),
        tmx.encode_utf16().flat_map(u16::to_le_bytes).collect(),
    ] {
        let (_dir, path) = file("a.tmx", &bytes);
        let segments = read_with(&path, &Options::default()).unwrap();
        assert_eq!(pairs(&segments), [("tea", "お茶")]);
        assert_eq!(segments[0].line, 2);
    }
}

#[test]
fn oversized_texts_are_refused_not_read_whole() {
    let mut tmx = String::from("<tmx><header srclang=\"en\"/><body><tu><tuv xml:lang=\"en\"><seg>");
    tmx.push_str(&"a".repeat(MAX_SEGMENT_BYTES + 1));
    tmx.push_str("</seg></tuv></tu></body></tmx>");
    let err = error_of("a.tmx", tmx.as_bytes(), &Options::default());
    assert!(err.message.contains("longer than 1 MiB"), "{err}");
    // One text node past the event limit, outside any segment.
    let mut xml = String::from("<xliff version=\"1.2\">");
    xml.push_str(&" ".repeat(xml::MAX_EVENT_BYTES + 10));
    let err = error_of("a.xlf", xml.as_bytes(), &Options::default());
    assert!(err.message.contains("longer than 4 MiB"), "{err}");
    let mut po = String::from("msgid \"a\"\nmsgstr \"");
    po.push_str(&"b".repeat(MAX_SEGMENT_BYTES + 1));
    po.push_str("\"\n");
    let err = error_of("a.po", po.as_bytes(), &Options::default());
    assert!(err.message.contains("longer than 1 MiB"), "{err}");
    assert_eq!(err.line, Some(2));
}

#[test]
fn an_xml_declaration_names_the_encoding() {
    let mut tmx =
        b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<tmx><header srclang=\"en\"/><body>\
                    <tu><tuv xml:lang=\"en\"><seg>coffee</seg></tuv><tuv xml:lang=\"fr\"><seg>caf"
            .to_vec();
    tmx.push(0xe9);
    tmx.extend_from_slice(b"</seg></tuv></tu></body></tmx>");
    let (_dir, path) = file("latin1.tmx", &tmx);
    let segments = read_with(&path, &Options::default()).unwrap();
    assert_eq!(pairs(&segments), [("coffee", "café")]);
}

#[test]
fn blank_translations_are_not_segments_in_any_format() {
    let (dir, en) = file("en.txt", b"Cold coffee\nFresh cookies\n");
    let de = dir.path().join("de.txt");
    std::fs::write(&de, "Kalter Kaffee\n  \n").unwrap();
    let options = Options {
        target_file: Some(&de),
        ..Options::default()
    };
    let segments = read_with(&en, &options).unwrap();
    assert_eq!(pairs(&segments), [("Cold coffee", "Kalter Kaffee")]);
    let (_dir, path) = file(
        "a.jsonl",
        b"{\"source\": \"a\", \"target\": \" \"}\n{\"source\": \"b\", \"target\": \"c\"}\n",
    );
    assert_eq!(ids(&read_with(&path, &Options::default()).unwrap()), ["2"]);
}
