//! The conventions of a command-line tool: completions and a man page from
//! the clap definitions, `--color`, tables fitted to the width, help text
//! that reads as help, and the built-in demo only when no file is named.

mod support;

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
