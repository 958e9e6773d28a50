//! Which part of a run's calls one machine makes (`--shard I/N`).

use serde::{Deserialize, Serialize};

/// One of N deterministic parts of a run's calls, for N machines (a job
/// array) sharing one experiment: `--shard I/N`, I counted from 0.
///
/// A call belongs to shard `I` of `N` when the first 8 bytes of the SHA-256
/// of its `custom_id` (see [`super::record::custom_id`]), read as a
/// big-endian integer, leave the remainder `I` when divided by `N`. That
/// depends only on the call's retriever, repeat and post: not on the order
/// of the posts file, on concurrency, on the machine or on the other
/// retrievers in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The whole run: shard 0 of 1.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// The shard a call belongs to, among `count`.
    pub(crate) fn of(retriever: &str, repeat: u32, post: &str, count: u32) -> u32 {
        use sha2::{Digest, Sha256};
        if count <= 1 {
            return 0;
        }
        let id = super::record::custom_id(retriever, repeat, post);
        let digest = Sha256::digest(id.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        (u64::from_be_bytes(first) % u64::from(count)) as u32
    }

    pub(crate) fn contains(&self, retriever: &str, repeat: u32, post: &str) -> bool {
        self.count <= 1 || Shard::of(retriever, repeat, post, self.count) == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Text that is not `I/N` with `0 <= I < N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a shard: expected I/N with 0 <= I < N, e.g. 0/4")]
pub struct NotAShard(String);

impl std::str::FromStr for Shard {
    type Err = NotAShard;

    fn from_str(s: &str) -> Result<Shard, NotAShard> {
        let bad = || NotAShard(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// What `--shard` was given: `I/N`, or `auto` (`auto/N`) to take the task's
/// index, and its count unless N is given, from the scheduler's
/// environment ([`from_scheduler`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    Fixed(Shard),
    Auto { count: Option<u32> },
}

impl std::str::FromStr for ShardArg {
    type Err = NotAShard;

    fn from_str(s: &str) -> Result<ShardArg, NotAShard> {
        let bad = || NotAShard(s.to_string());
        match s.trim().split_once('/') {
            None if s.trim() == "auto" => Ok(ShardArg::Auto { count: None }),
            Some(("auto", n)) => match n.trim().parse::<u32>() {
                Ok(count) if count > 0 => Ok(ShardArg::Auto { count: Some(count) }),
                _ => Err(bad()),
            },
            _ => s.parse().map(ShardArg::Fixed),
        }
    }
}

/// A shard read from a job array's environment, and the variables it came
/// from ("SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_COUNT=4").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromScheduler {
    pub shard: Shard,
    pub scheduler: &'static str,
    pub vars: String,
}

/// Why `--shard auto` found no shard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoShard {
    #[error(
        "--shard auto: no job array in the environment (looked for {}); give --shard I/N",
        SCHEDULERS.iter().map(|s| s.index).collect::<Vec<_>>().join(", ")
    )]
    NoScheduler,
    #[error("--shard auto: {scheduler} gives the index ({index_var}) but not the count: {hint}")]
    NoCount {
        scheduler: &'static str,
        index_var: &'static str,
        hint: &'static str,
    },
    #[error("--shard auto: {var}={value} is not a whole number")]
    NotANumber { var: String, value: String },
    #[error("--shard auto: {vars} is not a task I of N with 0 <= I < N{hint}")]
    OutOfRange { vars: String, hint: &'static str },
    #[error("--shard auto/{given}: the scheduler says {vars}, a count of {found}")]
    CountDiffers {
        given: u32,
        found: u32,
        vars: String,
    },
}

/// A job array's variables: the task's index, and where its count is.
struct Scheduler {
    name: &'static str,
    index: &'static str,
    count: Option<&'static str>,
    /// What to do when the count is not in the environment.
    hint: &'static str,
}

/// The schedulers `--shard auto` reads, in the order it looks. Slurm's
/// count may also come from its MIN/MAX/STEP variables (see
/// [`from_scheduler`]); any count may come from `GLOSSA_SHARD_COUNT`.
const SCHEDULERS: [Scheduler; 4] = [
    Scheduler {
        name: "Slurm",
        index: "SLURM_ARRAY_TASK_ID",
        count: Some("SLURM_ARRAY_TASK_COUNT"),
        hint: "submit with sbatch --array",
    },
    Scheduler {
        name: "Kubernetes (Indexed Job)",
        index: "JOB_COMPLETION_INDEX",
        count: None,
        hint: "give --shard auto/N with N the Job's completions, or set GLOSSA_SHARD_COUNT",
    },
    Scheduler {
        name: "AWS Batch",
        index: "AWS_BATCH_JOB_ARRAY_INDEX",
        count: Some("AWS_BATCH_JOB_ARRAY_SIZE"),
        hint: "give --shard auto/N with N the array size, or set GLOSSA_SHARD_COUNT",
    },
    Scheduler {
        name: "Cloud Run",
        index: "CLOUD_RUN_TASK_INDEX",
        count: Some("CLOUD_RUN_TASK_COUNT"),
        hint: "give --shard auto/N, or set GLOSSA_SHARD_COUNT",
    },
];

/// The shard of this task of a job array, from the environment as `var`
/// reads it (the binary passes `std::env::var`; tests pass a map). `count`
/// is the N of `--shard auto/N`: it stands in for a count the scheduler does
/// not give, and must agree with one it gives.
///
/// Slurm numbers tasks as `--array` names them: `--array=1-4` runs IDs 1 to
/// 4, read as shards 0 to 3 of 4 through SLURM_ARRAY_TASK_MIN (and _STEP
/// for `--array=0-6:2`). With N given (`auto/N`), the ID is the shard and
/// Slurm's count is not read, so that `sbatch --array=1` of the same script
/// makes task 1 of N again.
pub fn from_scheduler(
    count: Option<u32>,
    var: impl Fn(&str) -> Option<String>,
) -> Result<FromScheduler, NoShard> {
    let number = |name: &str| -> Result<Option<u32>, NoShard> {
        match var(name) {
            None => Ok(None),
            Some(value) => value
                .trim()
                .parse::<u32>()
                .map(Some)
                .map_err(|_| NoShard::NotANumber {
                    var: name.to_string(),
                    value,
                }),
        }
    };
    let scheduler = SCHEDULERS
        .iter()
        .find(|s| var(s.index).is_some())
        .ok_or(NoShard::NoScheduler)?;
    let raw_index = number(scheduler.index)?.unwrap_or_default();
    let mut vars = vec![format!("{}={raw_index}", scheduler.index)];
    let mut index = raw_index;
    // A task of `sbatch --array=1` sent again is task 1 of an array of one:
    // with N given, Slurm's ID is the shard as it stands.
    let slurm = scheduler.index == "SLURM_ARRAY_TASK_ID";
    let mut found = match scheduler.count {
        Some(_) if slurm && count.is_some() => None,
        Some(name) => number(name)?.inspect(|n| vars.push(format!("{name}={n}"))),
        None => None,
    };
    let mut hint = "";
    if slurm && count.is_none() {
        // IDs counted from MIN in steps of STEP.
        let min = number("SLURM_ARRAY_TASK_MIN")?;
        let step = number("SLURM_ARRAY_TASK_STEP")?.filter(|s| *s > 1);
        if let Some(min) = min {
            let step = step.unwrap_or(1);
            if min > 0 || step > 1 {
                vars.push(format!("SLURM_ARRAY_TASK_MIN={min}"));
            }
            if step > 1 {
                vars.push(format!("SLURM_ARRAY_TASK_STEP={step}"));
            }
            hint = " (an --array of evenly spaced IDs, such as 0-3 or 1-8:2)";
            index = if raw_index >= min && (raw_index - min) % step == 0 {
                (raw_index - min) / step
            } else {
                u32::MAX
            };
            if found.is_none() {
                if let Some(max) = number("SLURM_ARRAY_TASK_MAX")? {
                    vars.push(format!("SLURM_ARRAY_TASK_MAX={max}"));
                    found = max.checked_sub(min).map(|span| span / step + 1);
                }
            }
        }
    }
    if found.is_none() {
        found =
            number("GLOSSA_SHARD_COUNT")?.inspect(|n| vars.push(format!("GLOSSA_SHARD_COUNT={n}")));
    }
    let vars = vars.join(", ");
    let count = match (count, found) {
        (Some(given), Some(found)) if given != found => {
            return Err(NoShard::CountDiffers { given, found, vars })
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => {
            return Err(NoShard::NoCount {
                scheduler: scheduler.name,
                index_var: scheduler.index,
                hint: scheduler.hint,
            })
        }
    };
    if count == 0 || index >= count {
        return Err(NoShard::OutOfRange { vars, hint });
    }
    Ok(FromScheduler {
        shard: Shard { index, count },
        scheduler: scheduler.name,
        vars,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    fn shard(count: Option<u32>, pairs: &[(&str, &str)]) -> Result<Shard, NoShard> {
        from_scheduler(count, env(pairs)).map(|f| f.shard)
    }

    #[test]
    fn auto_parses_beside_fixed_shards() {
        assert_eq!("auto".parse(), Ok(ShardArg::Auto { count: None }));
        assert_eq!("auto/8".parse(), Ok(ShardArg::Auto { count: Some(8) }));
        assert_eq!(
            "2/4".parse(),
            Ok(ShardArg::Fixed(Shard { index: 2, count: 4 }))
        );
        for bad in ["auto/0", "auto/x", "automatic", "4/4"] {
            assert!(bad.parse::<ShardArg>().is_err(), "{bad}");
        }
    }

    #[test]
    fn each_scheduler_names_index_and_count() {
        let two_of_four = Ok(Shard { index: 2, count: 4 });
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(shard(None, &slurm), two_of_four);
        let aws = [
            ("AWS_BATCH_JOB_ARRAY_INDEX", "2"),
            ("AWS_BATCH_JOB_ARRAY_SIZE", "4"),
        ];
        assert_eq!(shard(None, &aws), two_of_four);
        let cloud_run = [("CLOUD_RUN_TASK_INDEX", "2"), ("CLOUD_RUN_TASK_COUNT", "4")];
        assert_eq!(shard(None, &cloud_run), two_of_four);
        // Kubernetes gives only the index.
        let k8s = [("JOB_COMPLETION_INDEX", "2")];
        assert_eq!(shard(Some(4), &k8s), two_of_four);
        assert_eq!(
            shard(
                None,
                &[("JOB_COMPLETION_INDEX", "2"), ("GLOSSA_SHARD_COUNT", "4")]
            ),
            two_of_four
        );
        assert!(matches!(shard(None, &k8s), Err(NoShard::NoCount { .. })));
        let found = from_scheduler(None, env(&slurm)).unwrap();
        assert_eq!(found.scheduler, "Slurm");
        assert_eq!(
            found.vars,
            "SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_COUNT=4"
        );
    }

    #[test]
    fn slurm_ids_count_from_min_in_steps() {
        let one_based = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
        ];
        assert_eq!(shard(None, &one_based), Ok(Shard { index: 2, count: 4 }));
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(shard(None, &stepped), Ok(Shard { index: 2, count: 4 }));
        // --array=0,5,9: the count is 3 but ID 9 is no shard of 3.
        let uneven = [
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "9"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ];
        assert!(matches!(
            shard(None, &uneven),
            Err(NoShard::OutOfRange { .. })
        ));
        // Task 1 sent again alone (`sbatch --array=1`) is still 1 of 4.
        let again = [
            ("SLURM_ARRAY_TASK_ID", "1"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
        ];
        assert_eq!(shard(Some(4), &again), Ok(Shard { index: 1, count: 4 }));
        assert_eq!(shard(None, &again), Ok(Shard { index: 0, count: 1 }));
    }

    #[test]
    fn nothing_set_or_nonsense_is_refused_with_the_reason() {
        assert_eq!(shard(None, &[]), Err(NoShard::NoScheduler));
        assert!(NoShard::NoScheduler
            .to_string()
            .contains("SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX"));
        assert!(matches!(
            shard(
                None,
                &[
                    ("SLURM_ARRAY_TASK_ID", "two"),
                    ("SLURM_ARRAY_TASK_COUNT", "4")
                ]
            ),
            Err(NoShard::NotANumber { .. })
        ));
        assert!(matches!(
            shard(
                Some(8),
                &[
                    ("AWS_BATCH_JOB_ARRAY_INDEX", "1"),
                    ("AWS_BATCH_JOB_ARRAY_SIZE", "4")
                ]
            ),
            Err(NoShard::CountDiffers {
                given: 8,
                found: 4,
                ..
            })
        ));
        assert!(matches!(
            shard(
                None,
                &[("CLOUD_RUN_TASK_INDEX", "4"), ("CLOUD_RUN_TASK_COUNT", "4")]
            ),
            Err(NoShard::OutOfRange { .. })
        ));
    }
}
