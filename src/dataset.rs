//! Posts, labels and their splits (docs/formats.md, "Posts" and "Labels"): JSONL
//! parsing, id checks and the join of labels to posts and glossary.

use crate::error::InputError;
use crate::glossary::Glossary;
use crate::limits::{show_bytes, MAX_POST_BYTES};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::BufRead;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Post {
    pub id: String,
    /// In NFC from the moment it is read (docs/formats.md, "Posts").
    #[serde(deserialize_with = "crate::phrase::deserialize_nfc")]
    pub text: String,
}

impl Post {
    /// What every post must be, wherever it is read: a non-empty id and a
    /// text within [`MAX_POST_BYTES`] (longer texts would cost memory and
    /// time out of all proportion in retrieval).
    pub(crate) fn check(&self, path: &str, line: usize) -> Result<(), InputError> {
        if self.id.trim().is_empty() {
            return Err(InputError::at_line(path, line, "post `id` is empty"));
        }
        if self.text.len() > MAX_POST_BYTES {
            return Err(InputError::at_line(
                path,
                line,
                format!(
                    "post `{}` is {} bytes long; glossa reads posts up to {} (split it into several posts)",
                    self.id,
                    self.text.len(),
                    show_bytes(MAX_POST_BYTES)
                ),
            ));
        }
        Ok(())
    }
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
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Split::Dev => "dev",
            Split::Test => "test",
        }
    }
}

/// Which labelled posts a command takes: one split or all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SplitChoice {
    Dev,
    Test,
    All,
}

impl SplitChoice {
    /// `dev`, `test` or `all`, as results name it.
    pub fn name(self) -> &'static str {
        match self {
            SplitChoice::Dev => "dev",
            SplitChoice::Test => "test",
            SplitChoice::All => "all",
        }
    }

    /// Whether a post of `split` is among the chosen ones.
    pub fn keeps(self, split: Split) -> bool {
        match self {
            SplitChoice::Dev => split == Split::Dev,
            SplitChoice::Test => split == Split::Test,
            SplitChoice::All => true,
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
pub(crate) struct LabelRecord {
    pub(crate) post: String,
    #[serde(default)]
    pub(crate) needed: Vec<String>,
    #[serde(default)]
    pub(crate) wrong_sense: Vec<String>,
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    #[serde(default)]
    pub(crate) split: Split,
}

impl LabelRecord {
    /// Check the entry ids against `glossary`: `(post id, label)`, or an
    /// error naming `path`, `line` and the id.
    pub(crate) fn resolve(
        self,
        path: &str,
        line: usize,
        glossary: &Glossary,
    ) -> Result<(String, Label), InputError> {
        let err = |msg: String| InputError::at_line(path, line, msg);
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
        let needed = resolve("needed", &self.needed)?;
        let wrong_sense = resolve("wrong_sense", &self.wrong_sense)?;
        if let Some(both) = needed.iter().find(|i| wrong_sense.contains(i)) {
            return Err(err(format!(
                "entry `{}` is both `needed` and `wrong_sense`",
                glossary.entries[*both].id
            )));
        }
        let label = Label {
            needed,
            wrong_sense,
            tags: self.tags,
            split: self.split,
        };
        Ok((self.post, label))
    }
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
pub(crate) fn jsonl<'a, T: DeserializeOwned + 'a>(
    path: &'a str,
    text: &'a str,
) -> impl Iterator<Item = Result<(usize, T), InputError>> + 'a {
    text.lines().enumerate().filter_map(move |(i, line)| {
        // A byte order mark opens the first line, as the streaming reader
        // accepts it too.
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        if line.trim().is_empty() {
            return None;
        }
        Some(
            serde_json::from_str::<T>(line)
                .map(|record| (i + 1, record))
                .map_err(|e| json_line_error(path, i + 1, line, &e)),
        )
    })
}

/// Parse a posts file: ids unique and non-empty, at least one post.
pub fn parse_posts(path: &str, text: &str) -> Result<Vec<Post>, InputError> {
    let mut posts = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for item in jsonl::<Post>(path, text) {
        let (line, post) = item?;
        post.check(path, line)?;
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

/// How a file of posts to translate is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostsLayout {
    /// JSONL with `id` and `text`, as for `glossa run`.
    Jsonl,
    /// One post per non-blank line; its id is its line number.
    Lines,
}

/// Posts to translate, with no labels: JSONL with `id` and `text` when the
/// first non-blank line starts with `{`, otherwise one post per non-blank
/// line (its id its 1-based line number).
pub fn parse_unlabelled(path: &str, text: &str) -> Result<(Vec<Post>, PostsLayout), InputError> {
    let text = text.trim_start_matches('\u{feff}');
    if text.trim_start().starts_with('{') {
        return Ok((parse_posts(path, text)?, PostsLayout::Jsonl));
    }
    let mut posts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let post = Post {
            id: (i + 1).to_string(),
            text: crate::phrase::nfc(line.trim()).into_owned(),
        };
        post.check(path, i + 1)?;
        posts.push(post);
    }
    if posts.is_empty() {
        return Err(InputError::file(
            path,
            "no posts: the file has no non-blank line (one post per line, or JSONL with id and text)",
        ));
    }
    Ok((posts, PostsLayout::Lines))
}

/// Join labels to `posts` and `glossary`, checking every id. Returns the
/// labelled posts in posts-file order.
pub fn join_labels(
    path: &str,
    text: &str,
    posts: Vec<Post>,
    posts_path: &str,
    glossary: &Glossary,
) -> Result<Vec<LabelledPost>, InputError> {
    let post_ids: HashSet<&str> = posts.iter().map(|p| p.id.as_str()).collect();
    let mut labels = labels_by_post(path, text, glossary, |line, post| {
        match post_ids.contains(post) {
            true => Ok(()),
            false => Err(InputError::at_line(
                path,
                line,
                format!("label for post `{post}`, which is not in {posts_path}"),
            )),
        }
    })?;
    Ok(posts
        .into_iter()
        .filter_map(|post| {
            let (_, label) = labels.remove(&post.id)?;
            Some(LabelledPost { post, label })
        })
        .collect())
}

/// Every label of a labels file by post id, with its line, checked against
/// `glossary`; `known` may refuse a post id (`glossa eval` refuses one that
/// is not a post; `glossa check` takes segment ids). A post labelled twice
/// is an error naming both lines.
pub fn labels_by_post(
    path: &str,
    text: &str,
    glossary: &Glossary,
    known: impl Fn(usize, &str) -> Result<(), InputError>,
) -> Result<HashMap<String, (usize, Label)>, InputError> {
    let mut labels: HashMap<String, (usize, Label)> = HashMap::new();
    for item in jsonl::<LabelRecord>(path, text) {
        let (line, record) = item?;
        known(line, &record.post)?;
        if let Some((first, _)) = labels.get(&record.post) {
            return Err(InputError::at_line(
                path,
                line,
                format!(
                    "second label for post `{}` (first on line {first})",
                    record.post
                ),
            ));
        }
        let (post, label) = record.resolve(path, line, glossary)?;
        labels.insert(post, (line, label));
    }
    if labels.is_empty() {
        return Err(InputError::file(path, "empty file: no labels"));
    }
    Ok(labels)
}

/// JSONL records read one line at a time from a reader, with the file's
/// name and line numbers in errors (bad UTF-8 included).
pub(crate) struct JsonlReader<R: BufRead, T> {
    path: String,
    lines: std::iter::Enumerate<std::io::Lines<R>>,
    records: usize,
    _record: std::marker::PhantomData<T>,
}

impl<R: BufRead, T: DeserializeOwned> JsonlReader<R, T> {
    pub(crate) fn new(path: &str, reader: R) -> Self {
        JsonlReader {
            path: path.to_string(),
            lines: reader.lines().enumerate(),
            records: 0,
            _record: std::marker::PhantomData,
        }
    }

    /// Records read so far.
    pub(crate) fn records(&self) -> usize {
        self.records
    }
}

impl<R: BufRead, T: DeserializeOwned> Iterator for JsonlReader<R, T> {
    type Item = Result<(usize, T), InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (i, line) = self.lines.next()?;
            let line = match line {
                Ok(line) => line,
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    return Some(Err(InputError::at_line(
                        &self.path,
                        i + 1,
                        "not UTF-8 text; save the file as UTF-8",
                    )))
                }
                Err(e) => {
                    return Some(Err(InputError::at_line(
                        &self.path,
                        i + 1,
                        format!("cannot read: {e}"),
                    )))
                }
            };
            let line = if i == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                &line
            };
            if line.trim().is_empty() {
                continue;
            }
            self.records += 1;
            return Some(
                serde_json::from_str::<T>(line)
                    .map(|r| (i + 1, r))
                    .map_err(|e| json_line_error(&self.path, i + 1, line, &e)),
            );
        }
    }
}

/// A JSON-lines record that does not parse. A post where a label was
/// expected, or the other way round, says the files look swapped: "missing
/// field `post`" alone does not tell a user what to do.
fn json_line_error(path: &str, line_no: usize, line: &str, e: &serde_json::Error) -> InputError {
    let mut err = InputError::json(path, line_no, e);
    let message = e.to_string();
    if !message.starts_with("missing field") && !message.starts_with("unknown field") {
        return err;
    }
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(line) else {
        return err;
    };
    let has = |k: &str| fields.contains_key(k);
    let is_label = has("post") && has("needed") && !has("text");
    let is_post = has("id") && has("text") && !has("post");
    let hint = if is_label && (message.contains("`id`") || message.contains("`text`")) {
        Some("this line is a label (it has `post` and `needed`), not a post")
    } else if is_post && message.contains("`post`") {
        Some("this line is a post (it has `id` and `text`), not a label")
    } else {
        None
    };
    if let Some(hint) = hint {
        err.message = format!("{}; {hint}: are --posts and --labels swapped?", err.message);
    }
    err
}

/// A 64-bit fingerprint of an id: sets of these detect duplicates in
/// million-line files without keeping the ids.
fn fingerprint(id: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

/// Posts joined to their labels while both files are read, so memory does
/// not grow with the number of posts when the two files list posts in the
/// same order (labels that come early are held until their post arrives).
/// Yields labelled posts in posts-file order; posts without a label are
/// counted in [`LabelledStream::unlabelled`]. Every error of
/// [`join_labels`] is reported, naming the file and the line.
pub struct LabelledStream<P: BufRead, L: BufRead> {
    posts: JsonlReader<P, Post>,
    labels: JsonlReader<L, LabelRecord>,
    glossary: Arc<Glossary>,
    labels_path: String,
    posts_path: String,
    /// Labels read ahead of their post: post id → (line, label).
    waiting: HashMap<String, (usize, Label)>,
    seen_posts: HashSet<u64>,
    seen_labels: HashSet<u64>,
    labels_done: bool,
    finished: bool,
    pub unlabelled: usize,
}

impl<P: BufRead, L: BufRead> LabelledStream<P, L> {
    pub fn new(
        glossary: Arc<Glossary>,
        posts_path: &str,
        posts: P,
        labels_path: &str,
        labels: L,
    ) -> Self {
        LabelledStream {
            posts: JsonlReader::new(posts_path, posts),
            labels: JsonlReader::new(labels_path, labels),
            glossary,
            labels_path: labels_path.to_string(),
            posts_path: posts_path.to_string(),
            waiting: HashMap::new(),
            seen_posts: HashSet::new(),
            seen_labels: HashSet::new(),
            labels_done: false,
            finished: false,
            unlabelled: 0,
        }
    }

    /// Posts read so far (labelled or not).
    pub fn posts_read(&self) -> usize {
        self.posts.records()
    }

    /// The next label from the file, checked; `None` at the end.
    fn next_label(&mut self) -> Result<Option<(usize, String, Label)>, InputError> {
        if self.labels_done {
            return Ok(None);
        }
        match self.labels.next() {
            None => {
                self.labels_done = true;
                Ok(None)
            }
            Some(item) => {
                let (line, record) = item?;
                let (post, label) = record.resolve(&self.labels_path, line, &self.glossary)?;
                if !self.seen_labels.insert(fingerprint(&post)) {
                    return Err(InputError::at_line(
                        &self.labels_path,
                        line,
                        format!("second label for post `{post}`"),
                    ));
                }
                Ok(Some((line, post, label)))
            }
        }
    }

    /// After the last post: every label left must name a post that exists.
    fn finish(&mut self) -> Result<(), InputError> {
        if self.posts.records() == 0 {
            return Err(InputError::file(
                &self.posts_path,
                "empty file: no posts (one JSON object per line: {\"id\": ..., \"text\": ...})",
            ));
        }
        if self.labels.records() == 0 {
            return Err(InputError::file(&self.labels_path, "empty file: no labels"));
        }
        if let Some((post, (line, _))) = self.waiting.iter().min_by_key(|(_, (line, _))| *line) {
            return Err(InputError::at_line(
                &self.labels_path,
                *line,
                format!(
                    "label for post `{post}`, which is not in {}",
                    self.posts_path
                ),
            ));
        }
        // Every post found its label before the labels ran out, so a label
        // left over names a post that does not exist.
        if let Some((line, post, _)) = self.next_label()? {
            return Err(InputError::at_line(
                &self.labels_path,
                line,
                format!(
                    "label for post `{post}`, which is not in {}",
                    self.posts_path
                ),
            ));
        }
        Ok(())
    }

    fn step(&mut self) -> Result<Option<LabelledPost>, InputError> {
        loop {
            let Some(item) = self.posts.next() else {
                self.finish()?;
                return Ok(None);
            };
            let (line, post) = item?;
            post.check(&self.posts_path, line)?;
            if !self.seen_posts.insert(fingerprint(&post.id)) {
                return Err(InputError::at_line(
                    &self.posts_path,
                    line,
                    format!("duplicate post id `{}`", post.id),
                ));
            }
            if let Some((_, label)) = self.waiting.remove(&post.id) {
                return Ok(Some(LabelledPost { post, label }));
            }
            while let Some((line, id, label)) = self.next_label()? {
                if id == post.id {
                    return Ok(Some(LabelledPost { post, label }));
                }
                self.waiting.insert(id, (line, label));
            }
            self.unlabelled += 1;
        }
    }
}

impl<P: BufRead, L: BufRead> Iterator for LabelledStream<P, L> {
    type Item = Result<LabelledPost, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.finished {
            return None;
        }
        match self.step() {
            Ok(Some(post)) => Some(Ok(post)),
            Ok(None) => {
                self.finished = true;
                None
            }
            Err(e) => {
                self.finished = true;
                Some(Err(e))
            }
        }
    }
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

    #[test]
    fn posts_to_translate_are_lines_or_jsonl() {
        let (posts, layout) =
            parse_unlabelled("w.txt", "Fresh cookies!\n\n  Cold coffee.  \r\n").unwrap();
        assert_eq!(layout, PostsLayout::Lines);
        let ids: Vec<(&str, &str)> = posts.iter().map(|p| (&*p.id, &*p.text)).collect();
        assert_eq!(ids, [("1", "Fresh cookies!"), ("3", "Cold coffee.")]);
        let (posts, layout) =
            parse_unlabelled("w.jsonl", "\n{\"id\": \"a\", \"text\": \"Tea.\"}\n").unwrap();
        assert_eq!(layout, PostsLayout::Jsonl);
        assert_eq!((&*posts[0].id, &*posts[0].text), ("a", "Tea."));
        let err = parse_unlabelled(
            "w.jsonl",
            "{\"id\": \"a\", \"text\": \"x\", \"needed\": []}",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("w.jsonl:1"), "{err}");
        let err = parse_unlabelled("w.txt", " \n\n").unwrap_err().to_string();
        assert!(err.contains("no posts"), "{err}");
    }

    fn posts() -> Vec<Post> {
        parse_posts(
            "p.jsonl",
            "{\"id\":\"p1\",\"text\":\"tea\"}\n\n{\"id\":\"p2\",\"text\":\"date\"}\n",
        )
        .unwrap()
    }

    #[test]
    fn a_byte_order_mark_opens_a_posts_file_as_in_the_streaming_reader() {
        let posts =
            parse_posts("p.jsonl", "\u{feff}{\"id\": \"p1\", \"text\": \"tea\"}\n").unwrap();
        assert_eq!(posts[0].id, "p1");
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

    fn stream(posts: &str, labels: &str) -> (Vec<Result<LabelledPost, InputError>>, usize) {
        let mut s = LabelledStream::new(
            Arc::new(glossary()),
            "p.jsonl",
            posts.as_bytes(),
            "l.jsonl",
            labels.as_bytes(),
        );
        let out: Vec<_> = s.by_ref().collect();
        (out, s.unlabelled)
    }

    #[test]
    fn the_stream_joins_like_join_labels_in_any_order() {
        let posts = "{\"id\":\"p1\",\"text\":\"tea\"}\n{\"id\":\"p2\",\"text\":\"date\"}\n{\"id\":\"p3\",\"text\":\"x\"}\n";
        let labels =
            "{\"post\":\"p2\",\"needed\":[\"date\"]}\n{\"post\":\"p1\",\"needed\":[\"tea\"]}\n";
        let (got, unlabelled) = stream(posts, labels);
        let got: Vec<LabelledPost> = got.into_iter().map(Result::unwrap).collect();
        let want = join_labels(
            "l.jsonl",
            labels,
            parse_posts("p.jsonl", posts).unwrap(),
            "p.jsonl",
            &glossary(),
        )
        .unwrap();
        assert_eq!(
            got.iter().map(|p| &p.post).collect::<Vec<_>>(),
            want.iter().map(|p| &p.post).collect::<Vec<_>>()
        );
        assert_eq!(
            got.iter().map(|p| &p.label).collect::<Vec<_>>(),
            want.iter().map(|p| &p.label).collect::<Vec<_>>()
        );
        assert_eq!(unlabelled, 1);
    }

    #[test]
    fn the_stream_reports_bad_labels_by_line() {
        let posts = "{\"id\":\"p1\",\"text\":\"tea\"}\n";
        let (got, _) = stream(posts, "{\"post\":\"p1\"}\n{\"post\":\"p9\"}\n");
        let err = got.into_iter().find_map(Result::err).unwrap();
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("`p9`"), "{err}");
        let (got, _) = stream(posts, "{\"post\":\"p1\"}\n{\"post\":\"p1\"}\n");
        let err = got
            .into_iter()
            .find_map(Result::err)
            .expect("a duplicate after the last post is found at the end");
        assert!(err.message.contains("second label for post `p1`"), "{err}");
        let (got, _) = stream(
            "{\"id\":\"p1\",\"text\":\"a\"}\n{\"id\":\"p1\",\"text\":\"b\"}\n",
            "{\"post\":\"p1\"}\n",
        );
        assert!(got
            .into_iter()
            .find_map(Result::err)
            .unwrap()
            .message
            .contains("duplicate post id"));
        let (got, _) = stream(posts, "");
        assert!(got
            .into_iter()
            .find_map(Result::err)
            .unwrap()
            .message
            .contains("empty file"));
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
