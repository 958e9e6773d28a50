//! The cap on a reply's length. Without one, a local server (llama.cpp,
//! Ollama) generates until its context is full, keeps going after glossa's
//! timeout gave up, and every later call waits behind it; so when
//! `--max-tokens` is not given, a cap follows from the length of the text
//! to translate (docs/models.md, "The default cap").

use serde::{Deserialize, Serialize};
use std::fmt;

/// `floor + per_char × characters of the text`, at most `ceiling` tokens.
/// Saved in `run.json` as it was applied, so a resumed run keeps its cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LengthCap {
    pub(crate) per_char: u32,
    pub(crate) floor: u32,
    pub(crate) ceiling: u32,
}

impl LengthCap {
    /// One token per character of the post (a translation in any script
    /// fits; English is about a quarter of that) plus room for a preamble.
    pub const DEFAULT: LengthCap = LengthCap {
        per_char: 1,
        floor: 128,
        ceiling: 4096,
    };

    /// The cap for a reply to `text` (counted in Unicode characters).
    pub fn tokens(&self, text: &str) -> u32 {
        let chars = u32::try_from(text.chars().count()).unwrap_or(u32::MAX);
        chars
            .saturating_mul(self.per_char)
            .saturating_add(self.floor)
            .min(self.ceiling)
    }
}

impl fmt::Display for LengthCap {
    /// The formula in words, for help texts and messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per = match self.per_char {
            1 => "one token".to_string(),
            n => format!("{n} tokens"),
        };
        write!(
            f,
            "{} tokens + {per} per character of the post, at most {}",
            self.floor, self.ceiling
        )
    }
}

/// What caps one provider's replies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenLimit {
    /// `--max-tokens N`.
    Fixed(u32),
    /// The default: from the text's length.
    FromText(LengthCap),
}

impl TokenLimit {
    /// The limit of a provider: `max_tokens` when given, else `auto` —
    /// except for a model that reasons before it answers (`reasons`),
    /// whose reasoning counts against the cap, which a cap from the text's
    /// length would cut off before the answer.
    pub(crate) fn of(
        max_tokens: Option<u32>,
        auto: Option<LengthCap>,
        reasons: bool,
    ) -> Option<Self> {
        match (max_tokens, auto) {
            (Some(n), _) => Some(TokenLimit::Fixed(n)),
            (None, Some(cap)) if !reasons => Some(TokenLimit::FromText(cap)),
            _ => None,
        }
    }

    /// The tokens a reply to `text` may take.
    pub(crate) fn tokens(&self, text: &str) -> u32 {
        match self {
            TokenLimit::Fixed(n) => *n,
            TokenLimit::FromText(cap) => cap.tokens(text),
        }
    }
}

impl fmt::Display for TokenLimit {
    /// As the cache key's identity holds it: a fixed limit as its number
    /// (the same identity as before the default cap existed).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenLimit::Fixed(n) => write!(f, "{n}"),
            TokenLimit::FromText(c) => {
                write!(f, "auto({}+{}/char<={})", c.floor, c.per_char, c.ceiling)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_cap_grows_with_the_post_and_stops_at_the_ceiling() {
        let cap = LengthCap::DEFAULT;
        assert_eq!(cap.tokens(""), 128);
        assert_eq!(cap.tokens("Fresh cookies!"), 128 + 14);
        // Characters, not bytes: "café" is 4.
        assert_eq!(cap.tokens("café"), 132);
        assert_eq!(cap.tokens(&"x".repeat(10_000)), 4096);
        assert_eq!(
            cap.to_string(),
            "128 tokens + one token per character of the post, at most 4096"
        );
    }

    #[test]
    fn a_given_limit_wins_and_reasoning_models_get_no_default() {
        let auto = Some(LengthCap::DEFAULT);
        assert_eq!(
            TokenLimit::of(Some(64), auto, false),
            Some(TokenLimit::Fixed(64))
        );
        assert_eq!(
            TokenLimit::of(Some(64), auto, true),
            Some(TokenLimit::Fixed(64))
        );
        assert_eq!(
            TokenLimit::of(None, auto, false),
            Some(TokenLimit::FromText(LengthCap::DEFAULT))
        );
        assert_eq!(TokenLimit::of(None, auto, true), None);
        assert_eq!(TokenLimit::of(None, None, false), None);
        assert_eq!(TokenLimit::Fixed(300).to_string(), "300");
    }
}
