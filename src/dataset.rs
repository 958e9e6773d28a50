//! Posts, labels and their splits (SPEC.md, "Posts" and "Labels"): JSONL
//! parsing, id checks and the join of labels to posts and glossary.

use crate::error::{read_text, InputError};
use crate::glossary::Glossary;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Post {
    pub id: String,
    pub text: String,
}

/// Which half of a labelled set a post belongs to: tune on dev, report test.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    #[default]
    Dev,
    Test,
}

impl Split {
    pub fn as_str(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::Test => "test",
        }
    }
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A label as written in the file: entry ids, not yet checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelRecord {
    pub post: String,
    #[serde(default)]
    pub needed: Vec<String>,
    #[serde(default)]
    pub wrong_sense: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub split: Split,
}

/// A checked label: entries as glossary indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub needed: Vec<usize>,
    pub wrong_sense: Vec<usize>,
    pub tags: Vec<String>,
    pub split: Split,
}

/// A post with its label, ready to score.
#[derive(Debug, Clone)]
pub struct LabelledPost {
    pub post: Post,
    pub label: Label,
}

/// Parse JSONL text into `(line, record)` pairs, lazily; blank lines are
/// skipped. The first bad line stops the iteration with its error.
pub fn jsonl<'a, T: DeserializeOwned + 'a>(
    path: &'a str,
    text: &'a str,
) -> impl Iterator<Item = Result<(usize, T), InputError>> + 'a {
    text.lines().enumerate().filter_map(move |(i, line)| {
        if line.trim().is_empty() {
            return None;
        }
        Some(
            serde_json::from_str::<T>(line)
                .map(|record| (i + 1, record))
                .map_err(|e| InputError::json(path, i + 1, &e)),
        )
    })
}

/// Load a posts file: ids unique and non-empty, at least one post.
pub fn load_posts(path: &Path) -> Result<Vec<Post>, InputError> {
    let text = read_text(path)?;
    parse_posts(&path.display().to_string(), &text)
}

pub fn parse_posts(path: &str, text: &str) -> Result<Vec<Post>, InputError> {
    let mut posts = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for item in jsonl::<Post>(path, text) {
        let (line, post) = item?;
        if post.id.trim().is_empty() {
            return Err(InputError::at_line(path, line, "post `id` is empty"));
        }
        if let Some(first) = seen.insert(post.id.clone(), line) {
            return Err(InputError::at_line(
                path,
                line,
                format!("duplicate post id `{}` (first on line {first})", post.id),
            ));
        }
        posts.push(post);
    }
    if posts.is_empty() {
        return Err(InputError::file(
            path,
            "empty file: no posts (one JSON object per line: {\"id\": ..., \"text\": ...})",
        ));
    }
    Ok(posts)
}

/// Load labels and join them to `posts` and `glossary`, checking every id.
/// Returns the labelled posts in posts-file order.
pub fn load_labels(
    path: &Path,
    posts: Vec<Post>,
    posts_path: &str,
    glossary: &Glossary,
) -> Result<Vec<LabelledPost>, InputError> {
    let text = read_text(path)?;
    join_labels(
        &path.display().to_string(),
        &text,
        posts,
        posts_path,
        glossary,
    )
}

pub fn join_labels(
    path: &str,
    text: &str,
    posts: Vec<Post>,
    posts_path: &str,
    glossary: &Glossary,
) -> Result<Vec<LabelledPost>, InputError> {
    let post_ids: HashSet<&str> = posts.iter().map(|p| p.id.as_str()).collect();
    let mut labels: HashMap<String, Label> = HashMap::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for item in jsonl::<LabelRecord>(path, text) {
        let (line, record) = item?;
        let err = |msg: String| InputError::at_line(path, line, msg);
        if !post_ids.contains(record.post.as_str()) {
            return Err(err(format!(
                "label for post `{}`, which is not in {posts_path}",
                record.post
            )));
        }
        if let Some(first) = first_line.get(&record.post) {
            return Err(err(format!(
                "second label for post `{}` (first on line {first})",
                record.post
            )));
        }
        let resolve = |field: &str, ids: &[String]| -> Result<Vec<usize>, InputError> {
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                let index = glossary.index_of(id).ok_or_else(|| {
                    err(format!(
                        "`{field}` names entry `{id}`, which is not in {}",
                        glossary.path
                    ))
                })?;
                if out.contains(&index) {
                    return Err(err(format!("`{field}` names entry `{id}` twice")));
                }
                out.push(index);
            }
            Ok(out)
        };
        let needed = resolve("needed", &record.needed)?;
        let wrong_sense = resolve("wrong_sense", &record.wrong_sense)?;
        if let Some(both) = needed.iter().find(|i| wrong_sense.contains(i)) {
            return Err(err(format!(
                "entry `{}` is both `needed` and `wrong_sense`",
                glossary.entries[*both].id
            )));
        }
        first_line.insert(record.post.clone(), line);
        labels.insert(
            record.post,
            Label {
                needed,
                wrong_sense,
                tags: record.tags,
                split: record.split,
            },
        );
    }
    if labels.is_empty() {
        return Err(InputError::file(path, "empty file: no labels"));
    }
    Ok(posts
        .into_iter()
        .filter_map(|post| {
            let label = labels.remove(&post.id)?;
            Some(LabelledPost { post, label })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glossary() -> Glossary {
        Glossary::parse(
            "g.json",
            "g",
            r#"{"entries":[{"id":"tea","source":"tea","target":"x"},{"id":"date","source":"date","target":"y"}]}"#,
        )
        .unwrap()
    }

    fn posts() -> Vec<Post> {
        parse_posts(
            "p.jsonl",
            "{\"id\":\"p1\",\"text\":\"tea\"}\n\n{\"id\":\"p2\",\"text\":\"date\"}\n",
        )
        .unwrap()
    }

    #[test]
    fn labels_join_posts_in_posts_order_with_default_split() {
        let labels = "{\"post\":\"p2\",\"needed\":[\"date\"],\"split\":\"test\"}\n{\"post\":\"p1\",\"needed\":[\"tea\"],\"wrong_sense\":[\"date\"],\"tags\":[\"as-is\"]}";
        let joined = join_labels("l.jsonl", labels, posts(), "p.jsonl", &glossary()).unwrap();
        assert_eq!(joined[0].post.id, "p1");
        assert_eq!(joined[0].label.split, Split::Dev);
        assert_eq!(joined[0].label.wrong_sense, [1]);
        assert_eq!(joined[1].label.split, Split::Test);
    }

    #[test]
    fn unknown_entry_names_line_and_id() {
        let labels =
            "{\"post\":\"p1\",\"needed\":[\"tea\"]}\n{\"post\":\"p2\",\"needed\":[\"cofee\"]}";
        let err = join_labels("l.jsonl", labels, posts(), "p.jsonl", &glossary()).unwrap_err();
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("`cofee`"), "{err}");
    }

    #[test]
    fn unknown_post_and_duplicates_are_errors() {
        let g = glossary();
        let unknown = join_labels("l.jsonl", "{\"post\":\"p9\"}", posts(), "p.jsonl", &g);
        assert!(unknown.unwrap_err().message.contains("`p9`"));
        let twice = join_labels(
            "l.jsonl",
            "{\"post\":\"p1\"}\n{\"post\":\"p1\"}",
            posts(),
            "p.jsonl",
            &g,
        );
        assert!(twice.unwrap_err().message.contains("second label"));
        let dup_post = parse_posts(
            "p.jsonl",
            "{\"id\":\"a\",\"text\":\"\"}\n{\"id\":\"a\",\"text\":\"\"}",
        );
        assert_eq!(dup_post.unwrap_err().line, Some(2));
    }

    #[test]
    fn bad_split_and_unknown_field() {
        let g = glossary();
        let split = join_labels(
            "l.jsonl",
            "{\"post\":\"p1\",\"split\":\"train\"}",
            posts(),
            "p.jsonl",
            &g,
        );
        assert!(split
            .unwrap_err()
            .message
            .contains("unknown variant `train`"));
        let field = join_labels(
            "l.jsonl",
            "{\"post\":\"p1\",\"neded\":[]}",
            posts(),
            "p.jsonl",
            &g,
        );
        assert!(field.unwrap_err().message.contains("unknown field `neded`"));
    }
}
