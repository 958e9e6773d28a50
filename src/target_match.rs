//! Where a glossary target (or any phrase) stands in a text: the one
//! matcher behind the output check, the offline provider's substitution and
//! the page's highlighting (docs/formats.md, "Generation check").
//!
//! Case is ignored. At each end of the needle: if its end character is in a
//! script written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer,
//! Myanmar) nothing is asked of the neighbour; otherwise no letter or digit
//! may stand right next to it. An apostrophe is not a letter, so "eau"
//! stands on its own in "l'eau".

use std::ops::Range;

/// A text folded for case-insensitive search, remembering where each
/// folded character came from so ranges are given in the original text
/// (lower-casing can change byte lengths: "İ" becomes two characters).
pub struct Haystack<'a> {
    original: &'a str,
    folded: String,
    /// For each byte offset of `folded`: the original byte offset when an
    /// original character starts there (or the text ends there).
    origin: Vec<Option<usize>>,
}

impl<'a> Haystack<'a> {
    pub(crate) fn new(original: &'a str) -> Haystack<'a> {
        let mut folded = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len() + 1);
        for (at, c) in original.char_indices() {
            let from = folded.len();
            fold_char(c, &mut folded);
            origin.push(Some(at));
            origin.resize(folded.len().max(from + 1), None);
        }
        origin.truncate(folded.len());
        origin.push(Some(original.len()));
        // Combining marks in canonical order, as the needle's are: a
        // Myanmar word whose marks were typed in another (canonically
        // equal) order is the same word. Reordering only permutes marks
        // within a run, so lengths hold; the bytes it moved map to no
        // original place (no match starts or ends inside a run of marks).
        // Already in order (nearly every text): no copy.
        if let std::borrow::Cow::Owned(ordered) = nfd().normalize(&folded) {
            if ordered.len() == folded.len() {
                for (i, (a, b)) in folded.bytes().zip(ordered.bytes()).enumerate() {
                    if a != b {
                        origin[i] = None;
                    }
                }
                folded = ordered;
            }
        }
        Haystack {
            original,
            folded,
            origin,
        }
    }

    pub fn original(&self) -> &'a str {
        self.original
    }

    /// Every place `needle` stands (see the module doc), overlapping ones
    /// included, as byte ranges of the original text in text order.
    pub(crate) fn find(&self, needle: &str) -> Vec<Range<usize>> {
        self.places(needle, false).collect()
    }

    /// [`Haystack::find`], and with `exact_case` only the places written
    /// with the needle's case (a case-sensitive entry's target: "EE. UU."
    /// is not "ee. uu."; accents composed or not still alike).
    pub(crate) fn find_cased(&self, needle: &str, exact_case: bool) -> Vec<Range<usize>> {
        self.places(needle, exact_case).collect()
    }

    /// [`Haystack::find_cased`] one place at a time, so that asking whether a
    /// needle stands at all stops at its first place.
    fn places<'s>(
        &'s self,
        needle: &str,
        exact_case: bool,
    ) -> impl Iterator<Item = Range<usize>> + 's {
        let needle = needle.trim();
        let ends = needle.chars().next().zip(needle.chars().next_back());
        let folded_needle = fold(needle);
        let cased_needle = exact_case.then(|| cased(needle));
        let mut from = 0;
        std::iter::from_fn(move || {
            let (first, last) = ends?;
            while let Some(i) = self.folded[from..].find(&folded_needle) {
                let start = from + i;
                let end = start + folded_needle.len();
                // One character on, so overlapping places are seen too.
                from = start
                    + self.folded[start..]
                        .chars()
                        .next()
                        .map_or(1, char::len_utf8);
                if let (Some(s), Some(e)) = (self.origin[start], self.origin[end]) {
                    let before = self.original[..s].chars().next_back();
                    let after = self.original[e..].chars().next();
                    let case_ok = cased_needle
                        .as_ref()
                        .is_none_or(|n| cased(&self.original[s..e]) == *n);
                    if stands_apart(first, before) && stands_apart(last, after) && case_ok {
                        return Some(s..e);
                    }
                }
            }
            None
        })
    }

    /// Whether `needle` stands anywhere in the text.
    pub fn contains(&self, needle: &str) -> bool {
        self.contains_cased(needle, false)
    }

    /// [`Haystack::contains`], with the needle's case when `exact_case`.
    pub(crate) fn contains_cased(&self, needle: &str, exact_case: bool) -> bool {
        self.places(needle, exact_case).next().is_some()
    }

    /// Per needle, whether it stands anywhere in the text: one pass for all
    /// of them (Aho-Corasick), not one per needle, which on a long output
    /// with thousands of targets was quadratic.
    pub(crate) fn standing(&self, needles: &[&str]) -> Vec<bool> {
        self.standing_cased(needles, &[])
    }

    /// [`Haystack::standing`], in the same one pass; needle `k` must be
    /// written with its case where `exact_case[k]` is true (missing: false).
    pub(crate) fn standing_cased(&self, needles: &[&str], exact_case: &[bool]) -> Vec<bool> {
        let needles: Vec<&str> = needles.iter().map(|n| n.trim()).collect();
        let cased_needles: Vec<Option<String>> = needles
            .iter()
            .enumerate()
            .map(|(k, n)| {
                exact_case
                    .get(k)
                    .copied()
                    .unwrap_or(false)
                    .then(|| cased(n))
            })
            .collect();
        let folded: Vec<String> = needles.iter().map(|n| fold(n)).collect();
        let Ok(automaton) = aho_corasick::AhoCorasick::new(&folded) else {
            return needles
                .iter()
                .zip(&cased_needles)
                .map(|(n, c)| self.contains_cased(n, c.is_some()))
                .collect();
        };
        let mut stands = vec![false; needles.len()];
        let mut left = needles.iter().filter(|n| !n.is_empty()).count();
        for hit in automaton.find_overlapping_iter(&self.folded) {
            let k = hit.pattern().as_usize();
            let (Some(first), Some(last)) =
                (needles[k].chars().next(), needles[k].chars().next_back())
            else {
                continue;
            };
            if stands[k] {
                continue;
            }
            if let (Some(s), Some(e)) = (self.origin[hit.start()], self.origin[hit.end()]) {
                let before = self.original[..s].chars().next_back();
                let after = self.original[e..].chars().next();
                let case_ok = cased_needles[k]
                    .as_ref()
                    .is_none_or(|n| cased(&self.original[s..e]) == *n);
                if stands_apart(first, before) && stands_apart(last, after) && case_ok {
                    stands[k] = true;
                    left -= 1;
                    if left == 0 {
                        break;
                    }
                }
            }
        }
        stands
    }
}

/// Whether `needle` stands in `text` (see the module doc).
pub fn contains(text: &str, needle: &str) -> bool {
    Haystack::new(text).contains(needle)
}

/// Non-overlapping places for several needles, longest needle first (so
/// "cold coffee" wins over "coffee"; among equally long ones the first
/// given), in text order. Each place carries its needle's key.
pub fn claim<K: Copy>(text: &Haystack, needles: &[(K, &str)]) -> Vec<(Range<usize>, K)> {
    claim_cased(text, needles, |_| false)
}

/// [`claim`], a needle whose key `exact_case` holds only with its case.
pub(crate) fn claim_cased<K: Copy>(
    text: &Haystack,
    needles: &[(K, &str)],
    exact_case: impl Fn(K) -> bool,
) -> Vec<(Range<usize>, K)> {
    let mut order: Vec<&(K, &str)> = needles.iter().collect();
    order.sort_by_key(|(_, n)| std::cmp::Reverse(n.trim().chars().count()));
    let mut claimed = Claimed::default();
    let mut taken: Vec<(Range<usize>, K)> = Vec::new();
    for &(key, needle) in order {
        for place in text.find_cased(needle, exact_case(key)) {
            if claimed.claim(&place) {
                taken.push((place, key));
            }
        }
    }
    taken.sort_by_key(|(r, _)| r.start);
    taken
}

/// Places taken so far, none overlapping another: whether a new place
/// overlaps one is a look at its neighbour in order, not a pass over all of
/// them (a long text has thousands of places).
#[derive(Debug, Default)]
pub(crate) struct Claimed {
    /// `(start, end)` of each place taken.
    taken: std::collections::BTreeSet<(usize, usize)>,
}

impl Claimed {
    /// Whether `place` overlaps a place taken ([`overlaps`]).
    pub(crate) fn overlaps(&self, place: &Range<usize>) -> bool {
        // Taken places do not overlap, so the last one starting before
        // `place` ends also ends last among them.
        self.taken
            .range(..(place.end, 0))
            .next_back()
            .is_some_and(|&(start, end)| overlaps(&(start..end), place))
    }

    /// Take `place` unless it overlaps a place taken; whether it was taken.
    pub(crate) fn claim(&mut self, place: &Range<usize>) -> bool {
        let free = !self.overlaps(place);
        if free {
            self.taken.insert((place.start, place.end));
        }
        free
    }
}

pub(crate) fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// `inner` lies within `outer`.
pub(crate) fn within(inner: &Range<usize>, outer: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// A needle's end character `edge` may touch `neighbour`.
fn stands_apart(edge: char, neighbour: Option<char>) -> bool {
    written_without_spaces(edge) || neighbour.is_none_or(|c| !c.is_alphanumeric() && !combining(c))
}

/// `text` folded as the matcher compares it (see [`fold_char`]).
pub(crate) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    text.chars().for_each(|c| fold_char(c, &mut out));
    // Marks in canonical order (see [`Haystack::new`]).
    match nfd().normalize(&out) {
        std::borrow::Cow::Borrowed(_) => out,
        std::borrow::Cow::Owned(ordered) => ordered,
    }
}

/// Lower case, one character at a time (so it never depends on the
/// neighbours); final sigma folds with sigma, the micro sign with mu; and
/// decomposed (NFD), so "café" written with U+00E9 or as "cafe" + U+0301
/// folds alike while offsets still map to the text as written.
fn fold_char(c: char, out: &mut String) {
    for l in c.to_lowercase() {
        let l = if l == 'ς' {
            'σ'
        } else {
            crate::phrase::same_letter(l)
        };
        if l.is_ascii() {
            out.push(l);
        } else {
            let mut buf = [0u8; 4];
            out.push_str(&nfd().normalize(l.encode_utf8(&mut buf)));
        }
    }
}

/// `text` as compared with its case: decomposed (NFD), the micro sign as
/// mu, so only case tells two spellings apart that [`fold`] equates.
fn cased(text: &str) -> String {
    let same: String = text.chars().map(crate::phrase::same_letter).collect();
    nfd().normalize(&same).into_owned()
}

fn nfd() -> icu_normalizer::DecomposingNormalizerBorrowed<'static> {
    icu_normalizer::DecomposingNormalizerBorrowed::new_nfd()
}

/// A combining mark (the blocks of them): it belongs to the letter before
/// it, so a needle never ends or starts next to one ("cafe" is not in
/// "cafe" + U+0301).
fn combining(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// Blocks of the scripts written without spaces between words: Han,
/// Hiragana, Katakana (the whole blocks, so the long-vowel mark "ー" counts
/// as Katakana), Thai, Lao, Khmer, Myanmar.
const WITHOUT_SPACES: &[(char, char)] = &[
    ('\u{0E00}', '\u{0EFF}'),   // Thai, Lao
    ('\u{1000}', '\u{109F}'),   // Myanmar
    ('\u{1780}', '\u{17FF}'),   // Khmer
    ('\u{19E0}', '\u{19FF}'),   // Khmer symbols
    ('\u{2E80}', '\u{2FDF}'),   // CJK and Kangxi radicals
    ('\u{3005}', '\u{3007}'),   // 々 〆 〇
    ('\u{3021}', '\u{3029}'),   // Hangzhou numerals
    ('\u{3031}', '\u{3035}'),   // kana repeat marks
    ('\u{3038}', '\u{303C}'),   // Han repeat marks
    ('\u{3040}', '\u{30FF}'),   // Hiragana, Katakana
    ('\u{31F0}', '\u{31FF}'),   // Katakana phonetic extensions
    ('\u{3400}', '\u{4DBF}'),   // CJK extension A
    ('\u{4E00}', '\u{9FFF}'),   // CJK unified ideographs
    ('\u{A9E0}', '\u{A9FF}'),   // Myanmar extended B
    ('\u{AA60}', '\u{AA7F}'),   // Myanmar extended A
    ('\u{F900}', '\u{FAFF}'),   // CJK compatibility ideographs
    ('\u{FF66}', '\u{FF9F}'),   // halfwidth Katakana
    ('\u{1AFF0}', '\u{1B16F}'), // Kana extensions
    ('\u{20000}', '\u{323AF}'), // CJK extensions B–H, compatibility supplement
];

/// Whether `c` belongs to a script written without spaces.
pub(crate) fn written_without_spaces(c: char) -> bool {
    WITHOUT_SPACES
        .iter()
        .any(|&(lo, hi)| (lo..=hi).contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A human Myanmar translation types ASAT before DOT BELOW; the
    /// glossary has them in canonical order (DOT BELOW, ccc 7, first). The
    /// same word, found in both directions, its range the word as written.
    #[test]
    fn marks_in_another_canonical_order_are_the_same_word() {
        let canonical = "\u{101E}\u{1004}\u{1037}\u{103A}";
        let typed = "\u{101E}\u{1004}\u{103A}\u{1037}";
        let text = format!("ပြော {typed} ပါ");
        let found = Haystack::new(&text).find(canonical);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(&text[found[0].clone()], typed);
        let text = format!("ပြော {canonical} ပါ");
        let found = Haystack::new(&text).find(typed);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(&text[found[0].clone()], canonical);
        // Accents stay told apart: a different mark is a different word.
        assert!(Haystack::new("\u{101E}\u{1004}\u{103A}")
            .find(canonical)
            .is_empty());
    }

    fn places<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
        Haystack::new(text)
            .find(needle)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn case_is_ignored_and_ranges_are_in_the_original_text() {
        assert_eq!(places("FROSK MAVI tan", "frosk mavi"), ["FROSK MAVI"]);
        // "İ" lower-cases to two characters: the range still fits the original.
        assert_eq!(
            places("İstanbul İSTANBUL", "İstanbul"),
            ["İstanbul", "İSTANBUL"]
        );
        // A place starting inside one original character is no place.
        assert!(places("İstanbul", "\u{307}stanbul").is_empty());
        assert_eq!(places("ΛΌΓΟΣ", "λόγος"), ["ΛΌΓΟΣ"]);
        assert_eq!(places("un ÉTÉ chaud", "été"), ["ÉTÉ"]);
        // The micro sign and the Greek mu look alike: either is the other.
        assert_eq!(
            places("10 \u{3bc}g/kg", "10 \u{b5}g/kg"),
            ["10 \u{3bc}g/kg"]
        );
        assert_eq!(places("5 \u{b5}l", "5 \u{3bc}l"), ["5 \u{b5}l"]);
    }

    #[test]
    fn letters_and_digits_next_to_a_spaced_script_target_hide_it() {
        assert!(places("dorpas ütdorpa dorpa2", "dorpa").is_empty());
        assert_eq!(places("«Zimbo»! café-zimbo", "zimbo"), ["Zimbo", "zimbo"]);
        assert!(places("zimboé", "zimbo").is_empty());
    }

    #[test]
    fn apostrophes_are_not_letters() {
        assert_eq!(places("l'eau, l’eau", "eau"), ["eau", "eau"]);
        assert_eq!(places("don't", "don"), ["don"]);
    }

    #[test]
    fn scripts_without_spaces_need_no_boundary() {
        assert_eq!(places("郝仁低头看向模型的输出", "模型"), ["模型"]);
        assert_eq!(places("新しいサーバーを使う", "サーバー"), ["サーバー"]);
        assert_eq!(places("ฉันชอบกาแฟเย็นมาก", "กาแฟเย็น"), ["กาแฟเย็น"]);
        assert_eq!(places("ພາສາລາວ", "ລາວ"), ["ລາວ"]);
    }

    #[test]
    fn mixed_targets_follow_the_script_at_each_end() {
        // Han at the start: no boundary there; Latin at the end: one needed.
        assert_eq!(places("用模型 XLM-R。", "模型 XLM-R"), ["模型 XLM-R"]);
        assert!(places("用模型 XLM-Rx", "模型 XLM-R").is_empty());
        assert_eq!(places("XLM-R模型很好", "XLM-R模型"), ["XLM-R模型"]);
        assert!(places("aXLM-R模型很好", "XLM-R模型").is_empty());
    }

    #[test]
    fn exact_case_asks_the_needle_as_written() {
        let hay = Haystack::new("Hecho en EE. UU., ee. uu. no; Ee. Uu.");
        let got: Vec<&str> = hay
            .find_cased("EE. UU.", true)
            .into_iter()
            .map(|r| &hay.original()[r])
            .collect();
        assert_eq!(got, ["EE. UU."]);
        assert_eq!(hay.find("EE. UU.").len(), 3);
        // Accents composed or not are still alike; case is not.
        let nfd = Haystack::new("Glossa Cafe\u{301} / glossa café");
        assert_eq!(nfd.find_cased("Glossa Café", true).len(), 1);
        assert!(!Haystack::new("GLOSSA CAFÉ").contains_cased("Glossa Café", true));
        // One pass, a flag per needle.
        let hay = Haystack::new("the us and ÉTÉ");
        assert_eq!(
            hay.standing_cased(&["US", "us", "été", "ÉTÉ"], &[true, true, true, true]),
            [false, true, false, true]
        );
        assert_eq!(hay.standing(&["US", "été"]), [true, true]);
        let claimed = claim_cased(&hay, &[(0, "US"), (1, "été")], |k| k == 0);
        assert_eq!(claimed.len(), 1);
    }

    #[test]
    fn overlapping_places_are_all_found() {
        assert_eq!(places("啊啊啊", "啊啊"), ["啊啊", "啊啊"]);
        assert!(places("abc", "  ").is_empty());
    }

    proptest::proptest! {
        /// Every place is a range of the original text whose folded text is
        /// the folded needle, and a needle cut out of the text on word
        /// boundaries is found there, whatever case changes do to lengths.
        #[test]
        fn places_are_the_needle_in_the_original_text(
            text in "[aİıẞßΣσς模 '.-]{0,12}",
            from in 0usize..12,
            len in 1usize..6,
        ) {
            let chars: Vec<char> = text.chars().collect();
            let from = from.min(chars.len());
            let needle: String = chars[from..(from + len).min(chars.len())].iter().collect();
            let hay = Haystack::new(&text);
            let places = hay.find(&needle);
            for r in &places {
                proptest::prop_assert_eq!(fold(&text[r.clone()]), fold(needle.trim()));
            }
            let start: usize = chars[..from].iter().map(|c| c.len_utf8()).sum();
            let end = start + needle.len();
            let cut = needle.trim() == needle && !needle.is_empty();
            let before = text[..start].chars().next_back();
            let after = text[end..].chars().next();
            let apart = |edge: char, n: Option<char>| stands_apart(edge, n);
            if cut
                && apart(needle.chars().next().unwrap(), before)
                && apart(needle.chars().next_back().unwrap(), after)
            {
                proptest::prop_assert!(places.contains(&(start..end)), "{:?}", places);
            }
        }
    }

    #[test]
    fn claim_gives_longest_needles_first_without_overlap() {
        let text = Haystack::new("Frosk mavi and mavi");
        let got: Vec<(&str, u8)> = claim(&text, &[(0, "mavi"), (1, "frosk mavi")])
            .into_iter()
            .map(|(r, k)| (&text.original()[r], k))
            .collect();
        assert_eq!(got, [("Frosk mavi", 1), ("mavi", 0)]);
    }

    #[test]
    fn composed_and_decomposed_accents_match_each_other() {
        let nfd = "Un cafe\u{301} noir";
        assert!(contains(nfd, "café"));
        assert!(contains("Un café noir", "cafe\u{301}"));
        // The range covers the letter and its mark, as written.
        let found = Haystack::new(nfd).find("CAFÉ");
        assert_eq!(found.len(), 1);
        assert_eq!(&nfd[found[0].clone()], "cafe\u{301}");
        // A mark belongs to its letter: "cafe" is not in either.
        assert!(!contains(nfd, "cafe"));
        assert!(!contains("Un café noir", "cafe"));
    }

    proptest::proptest! {
        #[test]
        fn claiming_takes_what_comparing_with_every_place_taken_takes(
            places in proptest::collection::vec((0..40usize, 0..6usize), 0..60)
        ) {
            let mut claimed = Claimed::default();
            let mut taken: Vec<Range<usize>> = Vec::new();
            for (start, len) in places {
                let place = start..start + len;
                let free = !taken.iter().any(|t| overlaps(t, &place));
                if free {
                    taken.push(place.clone());
                }
                proptest::prop_assert_eq!(claimed.claim(&place), free, "{:?} {:?}", place, taken);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn standing_is_contains_for_each_needle(
            text in "[aAbB İ.\u{4e00}]{0,30}",
            needles in proptest::collection::vec(("[aAbB İ.\u{4e00}]{0,4}", proptest::bool::ANY), 0..8),
        ) {
            let hay = Haystack::new(&text);
            let cased: Vec<bool> = needles.iter().map(|(_, c)| *c).collect();
            let needles: Vec<&str> = needles.iter().map(|(n, _)| n.as_str()).collect();
            let want: Vec<bool> = needles.iter().map(|n| hay.contains(n)).collect();
            proptest::prop_assert_eq!(hay.standing(&needles), want);
            let want: Vec<bool> = needles
                .iter()
                .zip(&cased)
                .map(|(n, c)| hay.contains_cased(n, *c))
                .collect();
            proptest::prop_assert_eq!(hay.standing_cased(&needles, &cased), want);
        }
    }
}
