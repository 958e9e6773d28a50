//! `glossa translate --posts FILE`: every post's translation in the
//! input's order, and its check (every retrieved glossary target in the
//! output); JSONL with `--format json`, a CSV table with `--format csv`.

use super::{Align, Format, Report, Table};
use crate::dataset::PostsLayout;
use crate::generate::pipeline::Trace;
use serde::Serialize;

/// One post's result.
#[derive(Debug, Clone, Serialize)]
pub struct PostTranslation {
    pub(crate) id: String,
    /// `null` when the call failed.
    pub(crate) output: Option<String>,
    /// Every retrieved glossary target is in the output and no forbidden
    /// term is; `null` without an output.
    pub(crate) ok: Option<bool>,
    /// The retrieved targets not in the output.
    pub missing: Vec<String>,
    /// Forbidden terms in the output (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) forbidden: Vec<crate::generate::check::Forbidden>,
    pub error: Option<String>,
    /// A failed call's reply text (cut off, say), never the output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) partial_output: Option<String>,
    /// Answered from the reply cache (a run of the same posts before).
    pub cached: bool,
    /// The post's invariants missing or changed in the output
    /// (docs/formats.md, "Invariants"); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<crate::invariants::Issue>,
}

impl PostTranslation {
    pub fn of(id: &str, trace: &Trace) -> PostTranslation {
        let g = &trace.generate.output;
        let missing: Vec<String> = match g.text {
            Some(_) => trace.review.missing().map(|t| t.target.clone()).collect(),
            None => Vec::new(),
        };
        let forbidden = trace.review.forbidden.clone();
        PostTranslation {
            id: id.to_string(),
            ok: g
                .text
                .as_ref()
                .map(|_| missing.is_empty() && forbidden.is_empty()),
            output: g.text.clone(),
            missing,
            forbidden,
            error: g.error.clone(),
            partial_output: g.partial_output.clone(),
            cached: g.cached,
            invariants: trace.invariants.clone(),
        }
    }

    /// The output on one line (a model answers one sentence per line).
    fn one_line(&self) -> String {
        let text = self.output.as_deref().unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        lines.join(" ")
    }
}

/// Every post's result, in the input's order.
#[derive(Debug, Clone)]
pub struct Translations {
    pub layout: PostsLayout,
    pub posts: Vec<PostTranslation>,
}

impl Translations {
    /// The translations as text, one line per post: for a file of one post
    /// per line, line N is line N's translation (blank for a blank line or
    /// a failed call), so the two files line up.
    pub fn lines(&self) -> String {
        let mut out = String::new();
        let mut line = 0;
        for post in &self.posts {
            if let (PostsLayout::Lines, Ok(at)) = (self.layout, post.id.parse::<usize>()) {
                while line + 1 < at {
                    out.push('\n');
                    line += 1;
                }
            }
            out.push_str(&post.one_line());
            out.push('\n');
            line += 1;
        }
        out
    }

    /// Where a post is, in messages: `line 3` or `post p07`.
    pub fn place(&self, post: &PostTranslation) -> String {
        match self.layout {
            PostsLayout::Lines => format!("line {}", post.id),
            PostsLayout::Jsonl => format!("post {}", post.id),
        }
    }
}

impl Report for Translations {
    /// JSONL: one object per post, in order.
    fn json(&self) -> serde_json::Result<String> {
        let mut out = String::new();
        for post in &self.posts {
            out.push_str(&serde_json::to_string(post)?);
            out.push('\n');
        }
        Ok(out)
    }

    /// A table for CSV; the text formats are [`Translations::lines`].
    fn tables(&self, format: Format) -> Vec<Table> {
        if format != Format::Csv {
            return Vec::new();
        }
        let mut t = Table::new(
            None,
            &[
                ("id", Align::Left),
                ("translation", Align::Left),
                ("check", Align::Left),
                ("missing", Align::Left),
                ("error", Align::Left),
            ],
        );
        for post in &self.posts {
            t.push(vec![
                post.id.clone(),
                post.output.clone().unwrap_or_default(),
                match post.ok {
                    Some(true) => "ok",
                    Some(false) if !post.forbidden.is_empty() => "forbidden",
                    Some(false) => "missing",
                    None => "failed",
                }
                .to_string(),
                post.missing.join("; "),
                post.error.clone().unwrap_or_default(),
            ]);
        }
        vec![t]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn post(id: &str, output: Option<&str>) -> PostTranslation {
        PostTranslation {
            id: id.into(),
            output: output.map(str::to_string),
            ok: output.map(|_| true),
            missing: Vec::new(),
            forbidden: Vec::new(),
            error: output.is_none().then(|| "boom".to_string()),
            partial_output: None,
            cached: false,
            invariants: Vec::new(),
        }
    }

    #[test]
    fn lines_line_up_with_a_file_of_one_post_per_line() {
        let t = Translations {
            layout: PostsLayout::Lines,
            posts: vec![
                post("1", Some("Prøv dorpa.\nFrisk.")),
                post("3", None),
                post("4", Some("Mavi.")),
            ],
        };
        assert_eq!(t.lines(), "Prøv dorpa. Frisk.\n\n\nMavi.\n");
        let jsonl = Translations {
            layout: PostsLayout::Jsonl,
            ..t.clone()
        };
        assert_eq!(jsonl.lines(), "Prøv dorpa. Frisk.\n\nMavi.\n");
        assert_eq!(jsonl.place(&jsonl.posts[1]), "post 3");
        assert_eq!(jsonl.json().unwrap().lines().count(), 3);
    }
}
