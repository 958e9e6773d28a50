//! The keys a matcher looks up: an entry's `source` key, or its aliases'
//! keys. The reference retrievers use source keys only (docs/formats.md); `alias`
//! runs the same matchers over alias keys.

use crate::glossary::Glossary;
use crate::phrase;

/// One key of one entry, borrowed from the glossary (the matchers copy
/// what they keep).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Keyed<'g> {
    /// Index of the entry in the glossary.
    pub(crate) entry: usize,
    /// Phrase key (docs/formats.md phrase rule 6).
    pub(crate) key: &'g str,
    /// The key as the glossary writes it (capitals and punctuation matter
    /// to `exact`).
    pub(crate) written: &'g str,
}

/// Every entry's source key, in glossary order.
pub(crate) fn sources(glossary: &Glossary) -> Vec<Keyed<'_>> {
    glossary
        .entries
        .iter()
        .enumerate()
        .map(|(entry, e)| Keyed {
            entry,
            key: &e.key,
            written: &e.source,
        })
        .collect()
}

/// Every entry's alias keys, in glossary order then alias order. An alias
/// whose key repeats its entry's source key or an earlier alias is left out.
pub(crate) fn aliases(glossary: &Glossary) -> Vec<Keyed<'_>> {
    let mut out = Vec::new();
    for (entry, e) in glossary.entries.iter().enumerate() {
        let first = out.len();
        for (key, written) in e.alias_keys.iter().zip(&e.aliases) {
            if !repeats(&e.key, &e.source, &out[first..], key, written) {
                out.push(Keyed {
                    entry,
                    key,
                    written,
                });
            }
        }
    }
    out
}

/// Every entry's source and aliases without their leading article
/// ([`without_leading_article`]), in glossary order: "the martial arts
/// training institute" is found as written in "a martial arts training
/// institute" (a term list copies its article from one sentence; posts
/// write another or none). Matched as written only: through stems or typos
/// the article's number is lost too ("a week ago" is not "weeks ago"). A
/// key that repeats one of the entry's own is left out.
pub(crate) fn without_articles(glossary: &Glossary) -> Vec<Keyed<'_>> {
    let mut out = Vec::new();
    for (entry, e) in glossary.entries.iter().enumerate() {
        let first = out.len();
        let declared = e.alias_keys.iter().zip(&e.aliases);
        let dropped = std::iter::once((&e.key, &e.source))
            .chain(declared.clone())
            .filter_map(|(key, written)| without_leading_article(key, written));
        for (key, written) in dropped {
            let own = declared.clone().any(|(k, w)| same_key(k, w, key, written));
            if !own && !repeats(&e.key, &e.source, &out[first..], key, written) {
                out.push(Keyed {
                    entry,
                    key,
                    written,
                });
            }
        }
    }
    out
}

/// Whether `key` (written `written`) is the entry's source key or one of
/// `earlier`.
fn repeats(source_key: &str, source: &str, earlier: &[Keyed], key: &str, written: &str) -> bool {
    same_key(source_key, source, key, written)
        || earlier
            .iter()
            .any(|k| same_key(k.key, k.written, key, written))
}

fn same_key(a_key: &str, a_written: &str, b_key: &str, b_written: &str) -> bool {
    // Keys of symbols only are all empty: their text tells them apart.
    a_key == b_key && (!a_key.is_empty() || a_written.trim() == b_written.trim())
}

/// `key` and `written` without their leading "the", "a" or "an", when the
/// rest has at least two words that are not stop words. Less would be found
/// far more often than the term is meant: "the Fed" in "I fed the cat",
/// the idiom "the other day" in "every other day", "a lot of" in "a
/// parking lot of ...". "A" or "an" before a name is part of a title ("A
/// Programming Language" is not every "programming language"); "the" is
/// not ("the Jade Emperor").
pub(crate) fn without_leading_article<'g>(
    key: &'g str,
    written: &'g str,
) -> Option<(&'g str, &'g str)> {
    let (article, rest) = ["the", "a", "an"]
        .into_iter()
        .find_map(|a| Some((a, key.strip_prefix(a)?.strip_prefix(' ')?)))?;
    let content_words = rest.split(' ').filter(|w| !phrase::is_stopword(w)).count();
    if content_words < 2 {
        return None;
    }
    // The written form must start with the article as a word of its own
    // ("(the ...)" or "the-" keep theirs).
    let written = written.trim_start();
    let after = written.get(article.len()..)?;
    let starts_with_article = written[..article.len()].eq_ignore_ascii_case(article)
        && after.starts_with(char::is_whitespace);
    let rest_written = after.trim_start();
    let title = article != "the" && rest_written.chars().any(char::is_uppercase);
    (starts_with_article && !title).then_some((rest, rest_written))
}

/// Every source key, then every alias key numbered past the glossary's
/// entries (an alias key's entry is `entries + i`): one list of every
/// different key the glossary has.
pub(crate) fn sources_and_aliases(glossary: &Glossary) -> Vec<Keyed<'_>> {
    let entries = glossary.entries.len();
    let aliases = aliases(glossary);
    let mut all = Vec::with_capacity(entries + aliases.len());
    all.extend(sources(glossary));
    all.extend(aliases.into_iter().map(|k| Keyed {
        entry: entries + k.entry,
        ..k
    }));
    all
}

#[cfg(test)]
mod tests {
    use super::without_leading_article as drop;

    #[test]
    fn an_article_goes_only_before_two_words_that_are_not_stop_words() {
        let key = "the martial arts training institute";
        let rest = Some((
            "martial arts training institute",
            "Martial Arts Training Institute",
        ));
        assert_eq!(drop(key, "The Martial Arts Training Institute"), rest);
        assert_eq!(drop(key, "  the\tMartial Arts Training Institute"), rest);
        assert_eq!(
            drop("the jade emperor", "The Jade Emperor"),
            Some(("jade emperor", "Jade Emperor"))
        );
        // "A" or "an" before a name: the title of a work.
        assert_eq!(
            drop("a programming language", "A Programming Language"),
            None
        );
        assert_eq!(drop("an eu council", "An EU council"), None);
        assert_eq!(
            drop("a programming language", "A programming language"),
            Some(("programming language", "programming language"))
        );
        // One word left, or one besides stop words.
        assert_eq!(drop("the fed", "the Fed"), None);
        assert_eq!(drop("the other day", "the other day"), None);
        assert_eq!(drop("a lot of", "a lot of"), None);
        // Not an article, or not written as a word of its own.
        assert_eq!(drop("then old city wall", "then old city wall"), None);
        assert_eq!(drop("the old city wall", "(the) old city wall"), None);
        assert_eq!(drop("the old city wall", "the-old city wall"), None);
    }
}
