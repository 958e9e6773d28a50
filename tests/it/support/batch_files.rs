//! What the batch tests (batch_remote.rs for the OpenAI Batch API,
//! batch_gemini.rs for Gemini's batch mode) read back from a run folder,
//! and the check of an exchange against a provider's official SDK.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub fn json_file(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `summary.json` without its folder name.
pub fn summary(dir: &Path) -> Value {
    let mut s = json_file(&dir.join("summary.json"));
    s.as_object_mut().unwrap().remove("run_dir");
    s
}

/// The batch request ids of the calls a run folder records.
pub fn recorded_ids(dir: &Path) -> BTreeSet<String> {
    super::jsonl(&dir.join("calls.jsonl"))
        .iter()
        .map(|r| {
            glossa::batch::api::custom_id(
                r["retriever"].as_str().unwrap(),
                r["repeat"].as_u64().unwrap() as u32,
                r["post"].as_str().unwrap(),
            )
        })
        .collect()
}

/// The python of the venv in `var` that imports `module` (an SDK's
/// types); under CI=true it must be there (`setup` says how to make it).
pub fn sdk_python(var: &str, module: &str, setup: &str) -> Option<PathBuf> {
    super::required_data(
        std::env::var_os(var).map(PathBuf::from),
        |python| {
            std::process::Command::new(python)
                .args(["-c", &format!("import {module}")])
                .output()
                .is_ok_and(|o| o.status.success())
        },
        &format!("{var} is unset or has no `{module}` ({setup})"),
    )
}

/// Run `script` (a repository file) with `python` on `exchange` (what
/// glossa sent and the mock answered, written under `scratch`): it must
/// pass.
pub fn check_exchange(python: &Path, script: &str, exchange: &Value, scratch: &Path) {
    let file = scratch.join("exchange.json");
    std::fs::write(&file, exchange.to_string()).unwrap();
    let out = std::process::Command::new(python)
        .arg(super::repo_file(script))
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
