//! `run.json`: what a run was started with, so `--resume`, `merge`, `diff`
//! and the batch modes continue with exactly the same settings. Its own
//! versioned types, made of library values (never the CLI's), so renaming
//! a flag never breaks a saved run.

use crate::dataset::SplitChoice;
use crate::fsutil::{write_atomic, WriteError};
use crate::generate::check::CheckMode;
use crate::generate::prompt::Template;
use crate::generate::provider::Settings;
use crate::generate::simplify::Simplify;
use crate::retrieve::Params;
use crate::run_dir::shard::Shard;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const CONFIG_FILE: &str = "run.json";

/// The `run.json` layout this glossa writes. Version 1 is also every
/// file written before the field existed (glossa 0.1.0).
pub const CONFIG_VERSION: u32 = 1;

/// A run's settings, as saved. Holds the name of the key's environment
/// variable, never the key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunConfig {
    #[serde(default = "first_version")]
    pub version: u32,
    pub glossary: PathBuf,
    pub posts: PathBuf,
    pub labels: PathBuf,
    pub retrievers: Vec<String>,
    /// The library's own tunables (absent ones take their defaults), so a
    /// new tunable is saved and resumed without a change here; the fixture
    /// tests pin the names version 1 uses.
    pub params: Params,
    pub split: SplitChoice,
    pub repeat: u32,
    pub provider: ProviderConfig,
    pub glossa_version: String,
    /// The share of the calls this folder holds (`--shard I/N`); absent:
    /// every call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// SHA-256 of the inputs' contents when the run started, so that a
    /// resumed run, a batch's results and merged shards are known to be
    /// about the same glossary, posts, labels and prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Inputs>,
    /// The run folders `glossa merge` made this one from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<PathBuf>,
    /// How the output check counts nested and shared targets (`--check`).
    #[serde(default, skip_serializing_if = "CheckMode::is_default")]
    pub check: CheckMode,
    /// Repair turns at most per call (`--repair`); absent: none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub repair: u32,
    /// What a lost invariant does (`--invariants`); absent: `warn`.
    #[serde(default, skip_serializing_if = "crate::invariants::Mode::is_default")]
    pub invariants: crate::invariants::Mode,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn first_version() -> u32 {
    1
}

/// Which model to call and how: the settings a client is built from,
/// saved with a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderConfig {
    /// One name, or several comma-separated for failover.
    pub provider: String,
    /// Model, base URL, key variable, sampling: the provider settings, in
    /// `run.json` as fields of this object. Their `timeout` is never set
    /// here (it is not saved); it comes from [`ProviderConfig::timeout`].
    #[serde(flatten)]
    pub settings: Settings,
    /// Seconds before one attempt is abandoned.
    pub timeout: f64,
    pub attempts: u32,
    pub no_cache: bool,
    pub cache_dir: PathBuf,
    pub simplify: Simplify,
    /// A prompt template file instead of the built-in one.
    pub prompt: Option<PathBuf>,
}

/// Content fingerprints (SHA-256, hex) of a run's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs {
    pub(crate) glossary: String,
    pub(crate) posts: String,
    pub(crate) labels: String,
    /// Of the translate template's name, version and text.
    pub(crate) prompt: String,
    /// Of each file a retriever parameter names (`lemmas`), by parameter;
    /// absent when none is given.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub(crate) files: std::collections::BTreeMap<String, String>,
}

/// `run.json` that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{}: cannot read; is {} a run folder made by `glossa run`?", path.display(), dir.display())]
    Unreadable {
        path: PathBuf,
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: not a run configuration", path.display())]
    Invalid {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "{}: run.json version {version} is newer than this glossa reads (up to {CONFIG_VERSION}); \
         use the glossa that made the run, or a newer one",
        path.display()
    )]
    NewerVersion { path: PathBuf, version: u32 },
    #[error("cannot read {}", path.display())]
    Input {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// Read `DIR/run.json`: any version up to [`CONFIG_VERSION`], a missing
/// version being 1.
pub fn load_config(dir: &Path) -> Result<RunConfig, ConfigError> {
    let path = dir.join(CONFIG_FILE);
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Unreadable {
        path: path.clone(),
        dir: dir.to_path_buf(),
        source,
    })?;
    let invalid = |source| ConfigError::Invalid {
        path: path.clone(),
        source,
    };
    // The version first: a newer layout may not parse as this one.
    #[derive(Deserialize)]
    struct Versioned {
        #[serde(default = "first_version")]
        version: u32,
    }
    let Versioned { version } = serde_json::from_str(&text).map_err(invalid)?;
    if version > CONFIG_VERSION {
        return Err(ConfigError::NewerVersion { path, version });
    }
    serde_json::from_str(&text).map_err(invalid)
}

/// Write `DIR/run.json` (atomically), as the current version.
pub fn write_config(dir: &Path, config: &RunConfig) -> Result<(), ConfigError> {
    let config = RunConfig {
        version: CONFIG_VERSION,
        ..config.clone()
    };
    let json = serde_json::to_string_pretty(&config).expect("a run configuration serialises");
    Ok(write_atomic(&dir.join(CONFIG_FILE), json + "\n")?)
}

impl Inputs {
    /// The fingerprints of `config`'s files and of `template`.
    pub fn of(config: &RunConfig, template: &Template) -> Result<Inputs, ConfigError> {
        use sha2::{Digest, Sha256};
        let mut prompt = Sha256::new();
        for part in [&template.name, &template.version, &template.body] {
            prompt.update(part.as_bytes());
            prompt.update([0]);
        }
        let files = path_params()
            .filter_map(|t| Some((t.name, config.params.path(t.name)?)))
            .map(|(name, path)| Ok((name.to_string(), fingerprint(path)?)))
            .collect::<Result<_, ConfigError>>()?;
        Ok(Inputs {
            glossary: fingerprint(&config.glossary)?,
            posts: fingerprint(&config.posts)?,
            labels: fingerprint(&config.labels)?,
            prompt: crate::generate::cache::hex(&prompt.finalize()),
            files,
        })
    }

    /// The inputs that differ from `other`'s, by name.
    pub fn differences(&self, other: &Inputs) -> Vec<&'static str> {
        [
            ("glossary", self.glossary == other.glossary),
            ("posts", self.posts == other.posts),
            ("labels", self.labels == other.labels),
            ("prompt", self.prompt == other.prompt),
        ]
        .into_iter()
        .chain(path_params().map(|t| (t.name, self.files.get(t.name) == other.files.get(t.name))))
        .filter(|(_, same)| !same)
        .map(|(name, _)| name)
        .collect()
    }
}

/// The retriever parameters that name a file, whose contents a run's
/// results depend on.
fn path_params() -> impl Iterator<Item = &'static crate::retrieve::Tunable> {
    crate::retrieve::TUNABLE
        .iter()
        .filter(|t| t.kind == crate::retrieve::ParamKind::Path)
}

/// SHA-256 of a file's bytes ([`crate::fsutil::sha256_file`]).
fn fingerprint(path: &Path) -> Result<String, ConfigError> {
    crate::fsutil::sha256_file(path).map_err(|source| ConfigError::Input {
        path: path.to_path_buf(),
        source,
    })
}

/// Why two run folders cannot be merged: the settings that decide the
/// calls or their answers, where they differ. `None` when they agree.
pub fn incompatibility(a: &RunConfig, b: &RunConfig) -> Option<String> {
    let mut diffs = input_differences(a, b);
    let mut differ = |name: &str, x: String, y: String| {
        if x != y {
            diffs.push(format!("{name} ({x} vs {y})"));
        }
    };
    differ("retrievers", a.retrievers.join(","), b.retrievers.join(","));
    let params = |c: &RunConfig| serde_json::to_string(&c.params).unwrap_or_default();
    differ("retriever parameters", params(a), params(b));
    differ("split", a.split.name().into(), b.split.name().into());
    differ("check", a.check.name().into(), b.check.name().into());
    differ("repair", a.repair.to_string(), b.repair.to_string());
    differ("repeat", a.repeat.to_string(), b.repeat.to_string());
    let (p, q) = (&a.provider, &b.provider);
    differ("provider", p.provider.clone(), q.provider.clone());
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "none".to_string());
    differ("model", opt(&p.settings.model), opt(&q.settings.model));
    // Settings compared as they are shown.
    let shown = |c: &ProviderConfig| {
        [
            ("temperature", format!("{:?}", c.settings.temperature)),
            ("seed", format!("{:?}", c.settings.seed)),
            ("max tokens", format!("{:?}", c.settings.max_tokens)),
            (
                "default max tokens",
                c.settings
                    .max_tokens_auto
                    .map_or("none".to_string(), |cap| cap.to_string()),
            ),
            (
                "max tokens field",
                format!("{:?}", c.settings.max_tokens_field),
            ),
            ("simplify", format!("{:?}", c.simplify)),
        ]
    };
    for ((name, x), (_, y)) in shown(p).into_iter().zip(shown(q)) {
        differ(name, x, y);
    }
    (!diffs.is_empty()).then(|| diffs.join("; "))
}

/// The inputs that differ: by fingerprint, or by path for folders from
/// before fingerprints.
fn input_differences(a: &RunConfig, b: &RunConfig) -> Vec<String> {
    if let (Some(x), Some(y)) = (&a.inputs, &b.inputs) {
        return x
            .differences(y)
            .into_iter()
            .map(|name| format!("{name} (different contents)"))
            .collect();
    }
    let mut diffs = Vec::new();
    for (name, x, y) in [
        ("glossary", &a.glossary, &b.glossary),
        ("posts", &a.posts, &b.posts),
        ("labels", &a.labels, &b.labels),
    ] {
        if x != y {
            diffs.push(format!("{name} ({} vs {})", x.display(), y.display()));
        }
    }
    if a.provider.prompt != b.provider.prompt {
        diffs.push("prompt".to_string());
    }
    diffs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/run-v1")
            .join(name)
    }

    #[test]
    fn a_run_json_from_before_versions_loads_as_version_1() {
        let config = load_config(&fixture("shard")).unwrap();
        assert_eq!(config.version, 1);
        assert_eq!(config.retrievers, ["exact", "fuzzy"]);
        assert_eq!(config.params.threshold, 0.8);
        assert_eq!(config.split, SplitChoice::Dev);
        assert_eq!(config.repeat, 2);
        assert_eq!(config.shard, Some(Shard { index: 0, count: 2 }));
        assert_eq!(config.check, CheckMode::Strict);
        let p = &config.provider.settings;
        assert_eq!(
            (p.temperature, p.seed, p.max_tokens),
            (Some(0.2), Some(7), Some(300))
        );
        assert_eq!(
            p.max_tokens_field,
            Some(crate::generate::provider::MaxTokensField::MaxTokens)
        );
        assert_eq!(config.provider.simplify, Simplify::Rules);
        let merged = load_config(&fixture("merged")).unwrap();
        assert_eq!(
            merged.merged_from,
            [PathBuf::from("s0"), PathBuf::from("s1")]
        );
        assert!(incompatibility(&config, &merged).is_none());
    }

    #[test]
    fn a_rewritten_old_run_json_keeps_its_fields_and_gains_the_version() {
        let old = std::fs::read_to_string(fixture("demo").join(CONFIG_FILE)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        write_config(dir.path(), &load_config(&fixture("demo")).unwrap()).unwrap();
        let new = std::fs::read_to_string(dir.path().join(CONFIG_FILE)).unwrap();
        let mut old: serde_json::Value = serde_json::from_str(&old).unwrap();
        let mut new: serde_json::Value = serde_json::from_str(&new).unwrap();
        assert_eq!(new["version"], 1);
        new.as_object_mut().unwrap().remove("version");
        old.as_object_mut().unwrap().remove("version");
        assert_eq!(old, new);
    }

    #[test]
    fn a_rewritten_run_json_is_the_old_text_byte_for_byte_plus_the_version() {
        for name in ["demo", "merged", "shard"] {
            let old = std::fs::read_to_string(fixture(name).join(CONFIG_FILE)).unwrap();
            let dir = tempfile::tempdir().unwrap();
            write_config(dir.path(), &load_config(&fixture(name)).unwrap()).unwrap();
            let new = std::fs::read_to_string(dir.path().join(CONFIG_FILE)).unwrap();
            let expected = old.replacen("{\n", "{\n  \"version\": 1,\n", 1);
            assert_eq!(new.trim_end(), expected.trim_end(), "{name}");
        }
    }

    #[test]
    fn a_file_a_retriever_parameter_names_is_fingerprinted_with_the_inputs() {
        let mut config = load_config(&fixture("demo")).unwrap();
        let template = Template::builtin("translate.v1");
        let without = Inputs::of(&config, &template).unwrap();
        assert!(without.files.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let table = dir.path().join("lemmas.tsv");
        std::fs::write(&table, "mice\tmouse\n").unwrap();
        config
            .params
            .set_str("lemmas", &table.display().to_string())
            .unwrap();
        let before = Inputs::of(&config, &template).unwrap();
        assert_eq!(before.files.len(), 1);
        assert_eq!(before.differences(&without), ["lemmas"]);
        std::fs::write(&table, "mice\tmouse\ngeese\tgoose\n").unwrap();
        let after = Inputs::of(&config, &template).unwrap();
        assert_eq!(after.differences(&before), ["lemmas"]);
        // Saved beside the others, read back.
        let json = serde_json::to_value(&after).unwrap();
        assert_eq!(json["files"]["lemmas"], after.files["lemmas"].as_str());
        assert_eq!(serde_json::from_value::<Inputs>(json).unwrap(), after);
        std::fs::remove_file(&table).unwrap();
        assert!(Inputs::of(&config, &template).is_err());
    }

    #[test]
    fn a_newer_version_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            r#"{"version": 2, "layout": "unknown"}"#,
        )
        .unwrap();
        let err = load_config(dir.path()).unwrap_err().to_string();
        assert!(err.contains("run.json version 2 is newer"), "{err}");
        assert!(
            err.contains(&dir.path().join(CONFIG_FILE).display().to_string()),
            "{err}"
        );
    }

    #[test]
    fn runs_that_differ_in_a_setting_are_named_as_incompatible() {
        let a = load_config(&fixture("shard")).unwrap();
        let mut b = a.clone();
        b.repeat = 3;
        b.provider.settings.seed = None;
        let why = incompatibility(&a, &b).unwrap();
        assert_eq!(why, "repeat (2 vs 3); seed (Some(7) vs None)");
    }
}
