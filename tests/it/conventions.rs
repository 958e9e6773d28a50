//! The conventions of a command-line tool: completions and a man page from
//! the clap definitions, `--color`, tables fitted to the width, help text
//! that reads as help, and the built-in demo only when no file is named.

use crate::support;

use support::{glossa, repo_file};

fn stdout_of(args: &[&str]) -> String {
    let out = glossa().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const SUBCOMMANDS: [&str; 15] = [
    "eval",
    "retrieve",
    "phrases",
    "retrievers",
    "lint",
    "translate",
    "run",
    "merge",
    "serve",
    "sweep",
    "diff",
    "import",
    "export",
    "completions",
    "man",
];

#[test]
fn bash_completion_names_every_subcommand() {
    let script = stdout_of(&["completions", "bash"]);
    assert!(script.contains("complete -F"), "{script}");
    for name in SUBCOMMANDS {
        assert!(
            script.contains(&format!("glossa,{name})")),
            "no {name} in the bash completion"
        );
    }
}

#[test]
fn completions_exist_for_the_other_shells() {
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        assert!(
            stdout_of(&["completions", shell]).contains("sweep"),
            "{shell}"
        );
    }
}

/// `--retriever` completes to retriever names (it offered file names), in
/// every shell, while the flag itself still takes any spec.
#[test]
fn completions_offer_retriever_names_for_retriever() {
    let names = stdout_of(&["retrievers"]);
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell]);
        for name in [
            "glossa",
            "normalised",
            "fuzzy",
            "oracle",
            "sense",
            "longest",
        ] {
            assert!(names.contains(name), "{name} is not a retriever: {names}");
            let offered = script.lines().any(|l| match shell {
                "bash" => l.contains("compgen -W") && l.split(['"', ' ']).any(|w| w == name),
                "zsh" => {
                    l.starts_with(&format!("{name}\\:")) || l.contains(&format!("(({name}\\:"))
                }
                _ => l.starts_with(&format!("{name}\\t")),
            });
            assert!(offered, "{shell}: {name}");
        }
    }
    // The real flag still parses a composition.
    let spec = stdout_of(&["retrieve", "-r", "normalised+fuzzy|sense", "cold coffee"]);
    assert!(spec.contains("cold-coffee"), "{spec}");
}

#[test]
fn man_page_names_every_subcommand() {
    let page = stdout_of(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH glossa"),
        "{page}"
    );
    for name in SUBCOMMANDS {
        assert!(
            page.contains(&format!("glossa\\-{name}(1)")),
            "no {name} in the man page"
        );
    }
}

/// `eval` with a gate that fails: its stderr has the coloured words.
fn failing_gate_stderr(env: &[(&str, &str)], args: &[&str]) -> String {
    let mut command = glossa();
    for (k, v) in env {
        command.env(k, v);
    }
    let out = command
        .args(args)
        .args([
            "eval",
            "--no-save",
            "-r",
            "exact",
            "--fail-under",
            "recall=0.99",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn color_always_colours_the_status_words() {
    let err = failing_gate_stderr(&[], &["--color", "always"]);
    assert!(err.contains("\u{1b}[") && err.contains("failed"), "{err}");
}

#[test]
fn color_never_and_no_color_give_no_escapes() {
    let never = failing_gate_stderr(&[("CLICOLOR_FORCE", "1")], &["--color", "never"]);
    assert!(!never.contains('\u{1b}'), "{never}");
    let no_color = failing_gate_stderr(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], &[]);
    assert!(!no_color.contains('\u{1b}'), "{no_color}");
    // Without NO_COLOR the same forced auto does colour: the two above
    // are not colourless by accident.
    let forced = failing_gate_stderr(&[("CLICOLOR_FORCE", "1")], &[]);
    assert!(forced.contains("\u{1b}["), "{forced}");
}

#[test]
fn piped_output_has_no_escapes_by_default() {
    let err = failing_gate_stderr(&[], &[]);
    assert!(!err.contains('\u{1b}'), "{err}");
}

fn widest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn tables_fit_columns_when_it_is_set() {
    let lint = || {
        let mut command = glossa();
        command.arg("lint").arg(repo_file("glossaries/cafe.json"));
        command
    };
    let full = String::from_utf8(lint().output().unwrap().stdout).unwrap();
    assert!(widest_line(&full) > 100, "{full}");
    let out = lint().env("COLUMNS", "80").output().unwrap();
    let fitted = String::from_utf8(out.stdout).unwrap();
    assert!(widest_line(&fitted) <= 80, "{fitted}");
    assert!(fitted.contains("cold-coffee"), "{fitted}");
}

#[test]
fn help_text_shows_no_rustdoc_markup() {
    for name in SUBCOMMANDS {
        let help = stdout_of(&[name, "--help"]);
        assert!(!help.contains("[`"), "{name} --help leaks rustdoc:\n{help}");
    }
    let eval = stdout_of(&["eval", "--help"]);
    assert!(eval.contains("Keep them up to 10,000 posts"), "{eval}");
    assert_eq!(
        glossa::eval::PER_POST_AUTO_LIMIT,
        10_000,
        "the help names 10,000"
    );
}

#[test]
fn sweep_list_params_lists_every_tunable_with_default_and_range() {
    let help = stdout_of(&["sweep", "--help"]);
    assert!(help.contains("--list-params"), "{help}");
    let table = stdout_of(&["sweep", "--list-params"]);
    for name in ["threshold", "edit_one_from", "edit_two_from"] {
        assert!(table.contains(name), "{table}");
    }
    assert!(
        table.contains("0.75") && table.contains("0 to 1"),
        "{table}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&stdout_of(&["sweep", "--list-params", "-f", "json"])).unwrap();
    let names: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let tunable: Vec<&str> = glossa::retrieve::params::numeric()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, tunable);
    assert_eq!(json[0]["default"], 0.75);
    // Each listed default is the tunables table's.
    for (listed, t) in json
        .as_array()
        .unwrap()
        .iter()
        .zip(glossa::retrieve::params::numeric())
    {
        assert_eq!(listed["default"].as_f64(), Some(t.default), "{}", t.name);
    }
}

#[test]
fn translate_csv_writes_only_csv_to_stdout() {
    let out = glossa()
        .args([
            "translate",
            "Try our cold coffee this weekend.",
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let mut reader = csv::Reader::from_reader(stdout.as_bytes());
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            "Entry",
            "Target",
            "Phrase",
            "Match",
            "In output",
            "Translation"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert!(rows.iter().any(|r| &r[0] == "cold-coffee"), "{stdout}");
    // The translation is on standard output as in every format: in its
    // column, on every row. The notes are for the person: stderr.
    assert!(
        rows.iter()
            .all(|r| &r[5] == "Try our frosk mavi this weekend."),
        "{stdout}"
    );
    assert!(stderr.contains("Check:"), "{stderr}");
    assert!(!stdout.contains("Check:"), "{stdout}");
}

#[test]
fn translate_quiet_prints_only_the_translation_and_every_format_has_it_on_stdout() {
    let post = "Try our cold coffee this weekend.";
    let translation = "Try our frosk mavi this weekend.";
    let out = glossa().args(["translate", "-q", post]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{translation}\n")
    );
    // No warning: every target is in the output.
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("problem"), "{stderr}");
    for format in ["table", "markdown", "json", "csv"] {
        let out = glossa()
            .args(["translate", "--format", format, post])
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains(translation), "{format}: {stdout}");
    }
    // -q is a format of its own.
    let out = glossa()
        .args(["translate", "-q", "--format", "json", post])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A model that drops a target: with -q, standard output is still the
/// translation alone, and one line on stderr says there is something to see.
#[tokio::test]
async fn translate_quiet_says_in_one_line_that_the_check_found_a_problem() {
    let reply = "Probieren Sie diese Woche unseren Kaffee.";
    let server = support::Server::start(vec![support::chat_reply_with_usage(reply)]).await;
    let mut args = support::strings(&["translate", "-q", "--repair", "0"]);
    args.extend(server.provider_args("m"));
    args.push("Try our cold coffee this weekend.".into());
    let dir = tempfile::TempDir::new().unwrap();
    let (code, stdout, stderr) = support::glossa_at(dir.path(), args).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, format!("{reply}\n"));
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.contains("the check found a problem"))
            .count(),
        1,
        "{stderr}"
    );
    assert!(!stderr.contains("Check:"), "{stderr}");
}

#[test]
fn the_demo_is_used_only_when_no_file_is_named_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = glossa()
        .current_dir(dir.path())
        .args(["eval", "--no-save", "-r", "exact", "-f", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("no --glossary, --posts, --labels given: using the built-in café demo"),
        "{stderr}"
    );
    // A named file is read from disk: missing, it is an error naming it.
    let out = glossa()
        .current_dir(dir.path())
        .args(["eval", "--no-save", "--glossary", "glossaries/cafe.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("glossaries/cafe.json: cannot read"),
        "{stderr}"
    );
    for args in [
        &["lint", "glossaries/cafe.json"][..],
        &["retrieve", "cold coffee", "-g", "glossaries/cafe.json"],
    ] {
        let out = glossa()
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn a_named_file_is_announced_as_nothing() {
    let out = glossa()
        .args(["lint"])
        .arg(repo_file("glossaries/cafe.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("built-in"), "{stderr}");
}

#[test]
fn help_of_the_main_commands() {
    for name in ["eval", "retrieve", "translate", "run", "sweep", "lint"] {
        insta::assert_snapshot!(format!("help_{name}"), stdout_of(&[name, "--help"]));
    }
    insta::assert_snapshot!("help", stdout_of(&["--help"]));
}

#[test]
fn a_header_of_language_names_is_not_imported_as_an_entry() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = dir.path().join("terms.csv");
    std::fs::write(
        &sheet,
        "English,Welsh,Notes\nbreakfast,brecwast,the morning meal\n",
    )
    .unwrap();
    let glossary = dir.path().join("cy.json");
    let out = glossa()
        .arg("import")
        .arg(&sheet)
        .arg("--out")
        .arg(&glossary)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&glossary).unwrap()).unwrap();
    let entries = json["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{json}");
    assert_eq!(entries[0]["sense"], "the morning meal");
    assert_eq!(json["source_lang"], "en");
    assert_eq!(json["target_lang"], "cy");
    let out = glossa()
        .args(["translate", "full English breakfast", "-g"])
        .arg(&glossary)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains("full Welsh breakfast"), "{stdout}");
    assert!(stdout.contains("full English brecwast"), "{stdout}");
}

#[test]
fn a_run_on_the_built_in_demo_resumes_from_any_folder() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("r");
    let out = glossa()
        .current_dir(dir.path())
        .args(["run", "-r", "exact", "--out", "r"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = std::fs::read_to_string(run.join("run.json")).unwrap();
    assert!(config.contains("built-in:glossaries/cafe.json"), "{config}");
    let elsewhere = tempfile::tempdir().unwrap();
    let out = glossa()
        .current_dir(elsewhere.path())
        .arg("run")
        .arg("--resume")
        .arg(&run)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    // Resuming reads what run.json names: nothing to announce.
    assert!(!stderr.contains("no --glossary"), "{stderr}");
}

#[test]
fn every_command_the_man_page_lists_has_a_page_of_its_own() {
    for name in SUBCOMMANDS {
        let page = stdout_of(&["man", name]);
        assert!(
            page.contains(&format!(".TH glossa-{name} 1")),
            "{name}: {page}"
        );
    }
    assert!(stdout_of(&["man", "eval"]).contains("\\-\\-retriever"));
    let out = glossa().args(["man", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no command `nope`"));
}

#[test]
fn sweep_list_params_in_every_format() {
    for format in ["table", "markdown", "csv", "json"] {
        insta::assert_snapshot!(
            format!("sweep_list_params_{format}"),
            stdout_of(&["sweep", "--list-params", "-f", format])
        );
    }
}

/// At 80 columns the eval tables fit the window and every word, number
/// and retriever name of the full-width output is still whole (they used
/// to break as "0.01" / "6").
#[test]
fn narrow_windows_wrap_tables_at_spaces_only() {
    let run = |columns: Option<&str>| {
        let mut cmd = glossa();
        cmd.args(["eval", "--no-save", "-r", "all,glossa"]);
        match columns {
            Some(c) => cmd.env("COLUMNS", c),
            None => cmd.env_remove("COLUMNS"),
        };
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let whole = run(None);
    let words: std::collections::BTreeSet<&str> = whole
        .split(|c: char| c.is_whitespace() || "│┆".contains(c))
        .filter(|w| w.chars().any(|c| c.is_alphanumeric()))
        .collect();
    assert!(words.len() > 20, "{whole}");
    for columns in ["80", "60"] {
        let narrow = run(Some(columns));
        let width: usize = columns.parse().unwrap();
        for line in narrow.lines() {
            assert!(line.chars().count() <= width, "{columns}: {line}\n{narrow}");
        }
        for word in &words {
            assert!(
                narrow.contains(word),
                "{columns}: `{word}` is broken\n{narrow}"
            );
        }
    }
}

/// The rules are in docs/formats.md; nothing in the repository cites a
/// specification file it does not hold.
#[test]
fn nothing_cites_a_spec_file_outside_the_repository() {
    let cited = concat!("SPEC", ".md");
    let mut offenders = Vec::new();
    for dir in [
        "src",
        "tests",
        "fuzz/fuzz_targets",
        "bench",
        "docs",
        "web",
        ".ci",
    ] {
        for path in support::files_below(&repo_file(dir)) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                if text.contains(cited) {
                    offenders.push(path.display().to_string());
                }
            }
        }
    }
    if std::fs::read_to_string(repo_file("README.md"))
        .unwrap()
        .contains(cited)
    {
        offenders.push("README.md".into());
    }
    assert!(offenders.is_empty(), "{offenders:?} cite {cited}");
}

/// The library never prints: outside the binary's side (`src/main.rs`,
/// `src/cli.rs`, `src/commands/`) diagnostics are `tracing` events, which
/// `commands/diagnostics.rs` renders. Test modules may print.
#[test]
fn the_library_never_prints() {
    let src = repo_file("src");
    let mut printing = Vec::new();
    for path in support::files_below(&src) {
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let binary = rel == "main.rs" || rel == "cli.rs" || rel.starts_with("commands/");
        if binary || !rel.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            let prints = ["println!(", "eprintln!(", "print!(", "eprint!("]
                .iter()
                .any(|p| line.contains(p));
            if prints && !line.starts_with("//") {
                printing.push(format!("src/{rel}:{}: {line}", n + 1));
            }
        }
    }
    assert!(
        printing.is_empty(),
        "the library prints:\n{}",
        printing.join("\n")
    );
}
