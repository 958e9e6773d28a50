//! The promptfoo recipe of docs/telemetry.md, run for real: promptfoo
//! (.ci/promptfoo.sh; .ci/run exports GLOSSA_PROMPTFOO) evaluates
//! docs/recipes/promptfoo/promptfooconfig.yaml, whose custom provider runs
//! this glossa with the test case's traceparent; promptfoo's own OTLP
//! receiver stores glossa's spans, read back from its SQLite database.

use crate::support;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

/// The `promptfoo` executable of .ci/promptfoo.sh; under CI=true it must be
/// there.
fn promptfoo() -> Option<PathBuf> {
    support::required_data(
        std::env::var_os("GLOSSA_PROMPTFOO").map(PathBuf::from),
        |exe| exe.is_file(),
        "GLOSSA_PROMPTFOO is unset or not a file \
         (export GLOSSA_PROMPTFOO=$(bash .ci/promptfoo.sh))",
    )
}

/// The recipe's two files in `dir`, the receiver's port changed to `port`
/// (the recipe's 4318 may be taken; tests run in parallel).
fn recipe_in(dir: &Path, port: u16) {
    let recipe = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/recipes/promptfoo");
    let config = std::fs::read_to_string(recipe.join("promptfooconfig.yaml")).unwrap();
    assert_eq!(config.matches("port: 4318").count(), 1, "{config}");
    let config = config.replace("port: 4318", &format!("port: {port}"));
    std::fs::write(dir.join("promptfooconfig.yaml"), config).unwrap();
    std::fs::copy(
        recipe.join("glossa_provider.js"),
        dir.join("glossa_provider.js"),
    )
    .unwrap();
}

/// Rows of `query` on the SQLite database `db`, as JSON objects (python3's
/// sqlite3 module: no SQLite crate for one test).
fn rows(db: &Path, query: &str) -> Vec<Value> {
    let script = "import json, sqlite3, sys\n\
        c = sqlite3.connect(sys.argv[1]); c.row_factory = sqlite3.Row\n\
        print(json.dumps([dict(r) for r in c.execute(sys.argv[2])]))";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(db)
        .arg(query)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn text<'a>(row: &'a Value, field: &str) -> &'a str {
    row[field].as_str().unwrap_or_default()
}

#[test]
fn promptfoo_stores_glossas_spans_in_each_test_cases_trace() {
    let Some(promptfoo) = promptfoo() else {
        return;
    };
    let dir = TempDir::new().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    recipe_in(dir.path(), port);
    let home = dir.path().join("promptfoo-home");
    let mut command = Command::new(&promptfoo);
    for var in [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "OTEL_SDK_DISABLED",
        "TRACEPARENT",
        "TRACESTATE",
    ] {
        command.env_remove(var);
    }
    let out = command
        .current_dir(dir.path())
        .args(["eval", "-c", "promptfooconfig.yaml", "--no-cache"])
        .env("PROMPTFOO_CONFIG_DIR", &home)
        .env("PROMPTFOO_DISABLE_TELEMETRY", "1")
        .env("PROMPTFOO_DISABLE_UPDATE", "1")
        .env("GLOSSA_BIN", env!("CARGO_BIN_EXE_glossa"))
        .env("GLOSSA_OTLP", format!("http://127.0.0.1:{port}"))
        .output()
        .unwrap();
    let log = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "promptfoo eval failed:\n{log}");
    assert!(log.contains("3 passed"), "{log}");

    let db = home.join("promptfoo.db");
    let traces = rows(&db, "SELECT trace_id, test_case_id FROM traces");
    assert_eq!(traces.len(), 3, "one trace per test case: {traces:?}");
    let spans = rows(
        &db,
        "SELECT trace_id, span_id, parent_span_id, name FROM spans",
    );
    for trace in &traces {
        let trace_id = text(trace, "trace_id");
        let in_trace: Vec<&Value> = spans
            .iter()
            .filter(|s| text(s, "trace_id") == trace_id)
            .collect();
        let by_id: HashMap<&str, &Value> =
            in_trace.iter().map(|s| (text(s, "span_id"), *s)).collect();
        let named = |name: &str| -> Vec<&Value> {
            in_trace
                .iter()
                .copied()
                .filter(|s| text(s, "name") == name)
                .collect()
        };
        let case = text(trace, "test_case_id");
        let names: Vec<&str> = in_trace.iter().map(|s| text(s, "name")).collect();
        for name in ["glossa translate", "post", "retrieve", "generate", "check"] {
            assert_eq!(named(name).len(), 1, "{name} in {case}: {names:?}");
        }
        // glossa's root hangs under promptfoo's span for the provider call,
        // itself under the test case's span.
        let root = named("glossa translate")[0];
        let caller = by_id
            .get(text(root, "parent_span_id"))
            .unwrap_or_else(|| panic!("glossa translate's parent is not in {case}: {names:?}"));
        assert_eq!(text(caller, "name"), "glossa-offline", "{case}");
        let test_case = by_id
            .get(text(caller, "parent_span_id"))
            .unwrap_or_else(|| panic!("no parent of the provider span in {case}"));
        assert_eq!(text(test_case, "name"), "promptfoo.test_case");
        // glossa's own spans form its tree under the root.
        let post = named("post")[0];
        assert_eq!(text(post, "parent_span_id"), text(root, "span_id"));
        for stage in ["retrieve", "generate", "check"] {
            assert_eq!(
                text(named(stage)[0], "parent_span_id"),
                text(post, "span_id"),
                "{stage} in {case}"
            );
        }
    }
}
